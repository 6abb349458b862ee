"""The assignment a worker's request is about, read once at the worker blueprint's edge.

Every page after arrival carries the assignment's signed token in its URL (``/a/<token>/…``). The
blueprint decodes it once per request, before the view runs (:func:`read_assignment_request`), into an
:class:`AssignmentRequest` kept for the request (:func:`assignment_request`): the token, the
assignment's public id (or why the token is not valid), the server's time for the assignment, and the
request's one database connection (:func:`da_platform.web.database.request_connection`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from flask import g
from sqlalchemy import Connection

from da_platform.providers.tokens import TokenError
from da_platform.web.database import request_connection
from da_platform.web.services import services


class AssignmentTokenRefused(Exception):
    """The request's token is forged, malformed or expired (``expired`` tells which); ``public_id``: the
    assignment an expired token named (its page is then in the campaign's language)."""

    def __init__(self, expired: bool, public_id: str | None) -> None:
        super().__init__("This link has expired." if expired else "This link is not valid.")
        self.expired, self.public_id = expired, public_id


@dataclass
class AssignmentRequest:
    """One request's assignment: its token as given, decoded once."""

    token: str
    _public_id: str | None
    _refused: AssignmentTokenRefused | None
    _now: datetime | None = field(default=None, repr=False)

    @property
    def public_id(self) -> str:
        """The assignment's public id; :class:`AssignmentTokenRefused` when the token is not valid."""
        if self._refused is not None:
            raise self._refused
        assert self._public_id is not None  # (one of the two is set: read_assignment_request)
        return self._public_id

    @property
    def known_public_id(self) -> str | None:
        """The assignment the token names, if it names one: a valid token's, or an expired token's."""
        return self._public_id if self._refused is None else self._refused.public_id

    @property
    def now(self) -> datetime:
        """The server's time for this assignment (the app's clock), read once per request."""
        if self._now is None:
            self._now = services().clock(self.token)
        return self._now

    @property
    def connection(self) -> Connection:
        """The request's database connection (autocommit; see :func:`request_connection`)."""
        return request_connection()


def read_assignment_request(token: str) -> AssignmentRequest:
    """Decode ``token`` (never raises: a bad token is kept as the reason, raised on use of ``public_id``) and
    keep the result as this request's :func:`assignment_request`."""
    try:
        read = AssignmentRequest(token, services().tokens.read_assignment(token), None)
    except TokenError as error:
        read = AssignmentRequest(token, None, AssignmentTokenRefused(error.expired, error.public_id))
    g.assignment_request = read
    return read


def assignment_request() -> AssignmentRequest:
    """This request's assignment (the worker blueprint reads it before any view taking a token runs)."""
    return g.assignment_request
