"""The dashboard's session cookie, at no cost to the requests that carry none (every worker page).

Flask's cookie session builds its signing serializer (and derives its key) for every request, also one
without a session cookie, only to hand it an empty session, and reads seven cookie settings at the end of
every request before finding that the empty session needs no cookie. The worker pages never use a session
(they carry a signed token in the URL), so here an empty, untouched session costs nothing either way; a
request with the cookie is read and answered exactly as by Flask's own interface.
"""
from __future__ import annotations

from flask import Flask, Request, Response
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin


class CookieSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, skipping the work for a request without the cookie."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()  # what Flask's interface returns then
        return super().open_session(app, request)

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        if not session and not session.modified and not session.accessed:
            return  # Flask's interface would set nothing: no cookie, no Vary header
        super().save_session(app, session, response)
