"""Security headers for every response: a strict Content-Security-Policy and friends.

Scripts and styles come only from our own static files (no inline code). Only the worker pages may
be framed, and only by MTurk (ExternalQuestion iframe); the dashboard may not be framed at all. Forms may post to
ourselves, to Prolific's completion page (reached
by redirect at the end of a form submission), and, on the MTurk completion page, to the one
allow-listed ``turkSubmitTo`` origin (``g.csp_form_targets``).
"""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, current_app, g, request


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def frameable() -> bool:
    """Only the worker pages are shown inside another site's frame (MTurk's ExternalQuestion)."""
    return request.blueprint == "worker"


def content_security_policy() -> str:
    """The policy for this response (computed once per app unless the page adds a form target)."""
    extra = g.get("csp_form_targets")
    framed = frameable()
    if extra is None:
        cache = current_app.extensions.setdefault("da_csp", {})
        if framed not in cache:
            cache[framed] = _policy(current_app.config, [], framed)
        return cache[framed]
    return _policy(current_app.config, extra, framed)


def _policy(config, extra_form_targets: list[str], framed: bool) -> str:
    form_targets = ["'self'", origin_of(config["PROLIFIC_COMPLETE_URL"]), *extra_form_targets]
    frame_ancestors = ["'self'", *config["FRAME_ANCESTORS"]] if framed else ["'none'"]
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
    if not frameable():
        response.headers["X-Frame-Options"] = "DENY"  # for browsers without CSP frame-ancestors
    response.headers["Referrer-Policy"] = "no-referrer"  # worker links carry tokens
    response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
    if request.endpoint != "static" and "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "no-store"  # no stale slot from the back button
    return response


def init_security(app: Flask) -> None:
    app.jinja_env.autoescape = True  # every template, whatever its file name
    app.after_request(add_security_headers)
