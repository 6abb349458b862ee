"""Run any WSGI application on 127.0.0.1 at a random free port, in a background thread.

For the tests, the demo and benchmarks (never production, which uses gunicorn)::

    with serve_in_background(app) as base_url:      # e.g. "http://127.0.0.1:43817"
        requests.get(base_url + "/healthz")
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from werkzeug.serving import WSGIRequestHandler, make_server


class QuietRequestHandler(WSGIRequestHandler):
    """No access log lines."""

    def log_request(self, *args, **kwargs) -> None:
        pass


@contextmanager
def serve_in_background(app, host: str = "127.0.0.1", threaded: bool = True) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL (no trailing slash)."""
    server = make_server(host, 0, app, threaded=threaded, request_handler=QuietRequestHandler)
    thread = threading.Thread(target=server.serve_forever, name="wsgi-background-server", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
