"""Known devices: a browser that has logged in as a researcher before is recognised by a signed cookie,
so that the per-account login limit, which slows password guessing from everywhere else, never locks
that researcher out (OWASP's "device cookies" against online guessing).

After each successful login the browser gets ``da_admin_device``: the user name and a fresh random
device id, signed with the app's secret key, for ``DEVICE_DAYS`` days (HttpOnly, SameSite=Strict,
Secure behind https, path ``/admin``). A login attempt carrying a valid cookie for the user name it
tries is limited per device (``ADMIN_LOGIN_LIMIT``) instead of per address and per account. A copied
cookie gives its holder no more than that: the device's own limit, for that one account.
"""
from __future__ import annotations

import secrets

from flask import current_app, request
from itsdangerous import BadData, URLSafeTimedSerializer
from werkzeug.wrappers import Response

COOKIE = "da_admin_device"
DEVICE_DAYS = 180
_SALT = "da-admin-device"


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def known_device(user: str) -> str | None:
    """The id of this browser's device cookie if it is valid and names ``user``, else None."""
    raw = request.cookies.get(COOKIE)
    if not raw or not user:
        return None
    try:
        data = _serializer().loads(raw, max_age=DEVICE_DAYS * 86400)
    except BadData:
        return None
    if not isinstance(data, dict) or data.get("u") != user or not isinstance(data.get("d"), str):
        return None
    return data["d"]


def remember_device(response: Response, user: str) -> None:
    """Give the browser a new device cookie for ``user`` (after a successful login)."""
    response.set_cookie(COOKIE, _serializer().dumps({"u": user, "d": secrets.token_urlsafe(12)}),
                        max_age=DEVICE_DAYS * 86400, path="/admin", httponly=True, samesite="Strict",
                        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")))
