"""Text no database can take is refused before any view runs: NUL bytes, and control characters in ids.

PostgreSQL cannot hold a NUL character in text (psycopg refuses the query), so a ``%00`` anywhere a
view passes on to the database — a slot id in the rating form, an image URL, the login form's user
name, the dashboard's preview URL — would be a 500. Every request is checked once, here:

- a URL path with a control character (U+0000–U+001F, U+007F) is a 404: ids travel in paths, and
  no id has one;
- a query or form field (name or value) with a NUL is a 400 (free text such as a reason may hold
  tabs and line breaks; no text holds a NUL).

The page's script gets JSON (``{"error", "resume"}``), every other page the message page.
"""
from __future__ import annotations

import re

from flask import Flask, render_template, request, url_for

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

NOT_FOUND = "This page does not exist."
BAD_TEXT = "The request held a character no text may hold and was refused; nothing was saved."


def init_input_guard(app: Flask) -> None:
    app.before_request(refuse_unstorable_text)


def refuse_unstorable_text():
    """None when the request may go on; otherwise the refusal (see the module's docstring)."""
    if _CONTROL.search(request.path):
        return _refusal(NOT_FOUND, 404)
    for fields in (request.args, request.form):
        for name, value in fields.items(multi=True):
            if "\x00" in name or "\x00" in value:
                return _refusal(BAD_TEXT, 400)
    return None


def _refusal(message: str, status: int):
    token = (request.view_args or {}).get("token")
    if request.endpoint == "worker.rate_and_next" and isinstance(token, str) and not _CONTROL.search(token):
        return {"error": message, "resume": url_for("worker.slot", token=token)}, status
    title = "Not found" if status == 404 else "Bad request"
    return render_template("worker/message.html", title=title, message=message), status
