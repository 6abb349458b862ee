"""Run any WSGI application on 127.0.0.1 at a random free port, in a background thread.

Usage::

    with serve_wsgi(app) as base_url:      # e.g. "http://127.0.0.1:43817"
        requests.get(base_url + "/healthz")
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from werkzeug.serving import WSGIRequestHandler, make_server


class _QuietHandler(WSGIRequestHandler):
    """No access log lines in the test output."""

    def log_request(self, *args, **kwargs) -> None:
        pass


@contextmanager
def serve_wsgi(app, host: str = "127.0.0.1", threaded: bool = True) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL (no trailing slash)."""
    server = make_server(host, 0, app, threaded=threaded, request_handler=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="wsgi-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
