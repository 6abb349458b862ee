"""Files made from a campaign (ranking, ratings, WMT, bundle); large ones prepared off the request path."""
