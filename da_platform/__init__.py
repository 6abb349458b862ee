"""da-platform: crowdsourced Direct Assessment of language systems.

The flow, as the code reads: ``hit_builder`` imports and builds HITs, ``da_platform.web`` serves
them to workers, ``da_platform.providers`` runs the campaign on MTurk / Prolific / the own pool,
and ``analysis`` turns the ratings into quality control, scores, rankings and exports.
"""

__version__ = "0.1.0"
