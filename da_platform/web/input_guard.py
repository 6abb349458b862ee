"""Text no database can take is refused before any view runs: NUL bytes, and control characters in ids.

PostgreSQL cannot hold a NUL character in text (psycopg refuses the query), so a ``%00`` anywhere a
view passes on to the database — a slot id in the rating form, an image URL, the login form's user
name, the dashboard's preview URL — would be a 500. Every request is checked once, here:

- a URL path with a control character (U+0000–U+001F, U+007F) is a 404: ids travel in paths, and
  no id has one;
- a query or form field (name or value) with a NUL is a 400 (free text such as a reason may hold
  tabs and line breaks; no text holds a NUL).

Both answer as the worker pages do (the 404 page; JSON for the page's script), in the worker's language.
"""
from __future__ import annotations

import re

from flask import Flask, abort, request

from da_platform.web.refusals import refusal

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

BAD_TEXT = "The request held a character no text may hold and was refused; nothing was saved."


def init_input_guard(app: Flask) -> None:
    app.before_request(refuse_unstorable_text)


def refuse_unstorable_text():
    """None when the request may go on; otherwise the refusal (see the module's docstring)."""
    if _CONTROL.search(request.path):
        abort(404)
    for fields in (request.args, request.form):
        for name, value in fields.items(multi=True):
            if "\x00" in name or "\x00" in value:
                return refusal(BAD_TEXT, 400, "Bad request")
    return None
