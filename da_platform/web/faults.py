"""503 "try again": a database or an image store that cannot be reached for a moment.

A worker's page says so in the worker's language (the campaign's, through :func:`da_platform.web.refusals.refusal`;
JSON for the page's script); the dashboard's in English. Neither needs the database to render.
"""
from __future__ import annotations

from flask import Flask, g, render_template, request
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, PendingRollbackError

from da_platform.web.database import discard_session
from da_platform.web.refusals import refusal
from hit_builder.storage import StoreUnavailable

RETRY_TITLE = "Please try again"
RETRY_MESSAGE = ("The server could not reach its database for a moment. Your ratings so far are safe: "
                 "reload the page in a few seconds to continue where you were.")
STORE_RETRY = ("The server could not load this image for a moment. Your ratings so far are safe: reload the page "
               "in a few seconds to continue where you were.")
_HEADERS = {"Retry-After": "5"}


def init_faults(app: Flask) -> None:
    """Answer database faults and an unreachable image store with 503 "try again"."""
    app.register_error_handler(DBAPIError, _database_error)
    app.register_error_handler(PendingRollbackError, _database_error)
    app.register_error_handler(StoreUnavailable, _store_unavailable)


def _database_error(error: Exception):
    """A database fault (server restarted or unreachable, a dropped connection): 503 "try again".

    The request's session is discarded first, never used again to render the page (it may be
    broken); the page itself needs no database: a worker's page is in the campaign's language if this
    process knows it already, else the browser's. Any other database error (a bug) stays a 500.
    """
    fault = isinstance(error, (OperationalError, InterfaceError, PendingRollbackError)) or (
        isinstance(error, DBAPIError) and error.connection_invalidated)
    if not fault:
        raise error
    discard_session(disconnected=isinstance(error, DBAPIError) and error.connection_invalidated)
    g.admin_user = None  # the dashboard's templates must not look the user up in the broken session
    if request.blueprint == "admin":
        message = ("The server could not reach its database for a moment. Nothing was lost: reload the page in "
                   "a few seconds.")
        return render_template("worker/message.html", title=RETRY_TITLE, message=message), 503, _HEADERS
    return refusal(RETRY_MESSAGE, 503, RETRY_TITLE, headers=_HEADERS, database_up=False)


def _store_unavailable(_error: StoreUnavailable):
    """The image store is unreachable or too slow (a remote store): 503 "try again", as for a database
    fault. The store has short timeouts and is not tried again for a few seconds after a fault, so such a
    request never holds a server thread for long (da_platform.images.s3)."""
    return refusal(STORE_RETRY, 503, RETRY_TITLE, headers=_HEADERS)
