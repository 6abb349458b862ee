"""Refusals answered outside a worker view (a request too large, a field no text may hold, a database or image
store that cannot be reached), in the worker's language: the campaign's when the URL names an assignment, else
the browser's."""
from __future__ import annotations

from flask import render_template, request, url_for

from da_platform.providers.tokens import TokenError


def refusal(message: str, status: int, title: str, *, headers: dict[str, str] | None = None,
            database_up: bool = True):
    """JSON for the page's script (``{"error", "resume"}``), the message page otherwise.

    ``database_up`` False (a database fault): the campaign's language only if this process already knows
    it (nothing is asked of the database), else the browser's.
    """
    from da_platform.web.i18n import current_language
    from da_platform.web.services import services
    from da_platform.web.worker_page import assignment_page, cached_assignment_page, use_page

    token = (request.view_args or {}).get("token")
    if token and (request.endpoint or "").startswith("worker."):
        try:
            public_id = services().tokens.read_assignment(token)
            use_page(assignment_page(public_id) if database_up else cached_assignment_page(public_id))
        except TokenError:
            pass
    if request.endpoint == "worker.rate_and_next" and token:
        answer = {"error": current_language().text(message), "resume": url_for("worker.slot", token=token)}
        return answer, status, headers or {}
    return render_template("worker/message.html", title=title, message=message), status, headers or {}
