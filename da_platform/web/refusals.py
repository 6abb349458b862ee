"""Refusals answered outside a worker view (a request too large, a field no text may hold), in the
worker's language: the campaign's when the URL names an assignment, else the browser's."""
from __future__ import annotations

from flask import render_template, request, url_for

from da_platform.sources.tokens import TokenError


def refusal(message: str, status: int, title: str):
    """JSON for the page's script (``{"error", "resume"}``), the message page otherwise."""
    from da_platform.web.i18n import current_language
    from da_platform.web.services import services
    from da_platform.web.worker_page import assignment_page, use_page

    token = (request.view_args or {}).get("token")
    if token and (request.endpoint or "").startswith("worker."):
        try:
            use_page(assignment_page(services().tokens.read_assignment(token)))
        except TokenError:
            pass
    if request.endpoint == "worker.rate_and_next" and token:
        return {"error": current_language().text(message), "resume": url_for("worker.slot", token=token)}, status
    return render_template("worker/message.html", title=title, message=message), status
