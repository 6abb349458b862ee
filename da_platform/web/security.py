"""Security headers for every response: a strict Content-Security-Policy and friends.

Scripts and styles come only from our own static files (no inline code). Framing is allowed only to
MTurk (ExternalQuestion iframe). Forms may post to ourselves, to Prolific's completion page (reached
by redirect at the end of a form submission), and, on the MTurk completion page, to the one
allow-listed ``turkSubmitTo`` origin (``g.csp_form_targets``).
"""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, current_app, g, request


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def content_security_policy() -> str:
    """The policy for this response (computed once per app unless the page adds a form target)."""
    extra = g.get("csp_form_targets")
    if extra is None:
        cached = current_app.extensions.get("da_csp")
        if cached is None:
            cached = current_app.extensions["da_csp"] = _policy(current_app.config, [])
        return cached
    return _policy(current_app.config, extra)


def _policy(config, extra_form_targets: list[str]) -> str:
    form_targets = ["'self'", origin_of(config["PROLIFIC_COMPLETE_URL"]), *extra_form_targets]
    frame_ancestors = ["'self'", *config["FRAME_ANCESTORS"]]
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action " + " ".join(dict.fromkeys(form_targets)),
            "frame-ancestors " + " ".join(frame_ancestors),
        ]
    )


def add_security_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = content_security_policy()
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"  # worker links carry tokens
    response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
    if request.endpoint != "static" and "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "no-store"  # no stale slot from the back button
    return response


def init_security(app: Flask) -> None:
    app.jinja_env.autoescape = True  # every template, whatever its file name
    app.after_request(add_security_headers)
