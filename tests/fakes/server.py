"""Run any WSGI application on 127.0.0.1 at a random free port, in a background thread.

Usage::

    with serve_wsgi(app) as base_url:      # e.g. "http://127.0.0.1:43817"
        requests.get(base_url + "/healthz")

(The implementation lives in the package, so that the demo can use it too.)
"""
from da_platform.simulation.background import serve_in_background as serve_wsgi

__all__ = ["serve_wsgi"]
