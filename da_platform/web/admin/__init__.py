"""The researchers' dashboard, mounted at ``/admin``: campaigns, rankings, workers, decisions, exports.

Security (set up on the app by :func:`init_admin`, which ``create_app`` calls before registering ``bp``):

- every page needs a logged-in researcher (accounts from ``da-platform admin create-user``);
- the session cookie is HttpOnly, SameSite=Lax, and Secure when ``DA_PUBLIC_URL`` is https;
- every form carries a CSRF token (Flask-WTF ``CSRFProtect``); a POST without one gets 400;
- login attempts are rate limited per IP address and user name (:class:`LoginThrottle`, default 5
  per minute), per IP address across user names (default 20 per minute) and per account from browsers
  it never logged in from (default 10 per minute and 100 per hour; a known browser has its own limit,
  so the owner is never locked out). An address is an IPv6 /64; behind reverse proxies set
  ``$DA_TRUSTED_PROXIES`` (``da_platform.web.proxies``). The default storage is in memory: per
  process, so with N gunicorn workers the
  effective limit is N times higher and restarts reset it; set ``$DA_ADMIN_RATELIMIT_STORAGE_URI``
  (for example ``redis://…``) for a shared limit (see docs/dashboard.md).
"""
from __future__ import annotations

from flask import Blueprint, Flask

bp = Blueprint("admin", __name__)

from da_platform.web.admin import auth, campaigns, early, lifecycle, planning, prepared, results, templating, workers  # noqa: E402,F401  (routes, filters)


def init_admin(app: Flask) -> None:
    """Cookies, CSRF protection and the login throttle for ``app``."""
    from flask_wtf.csrf import CSRFProtect

    from da_platform.web.admin.auth import DEFAULT_ACCOUNT_LIMIT, DEFAULT_ADDRESS_LIMIT, LoginThrottle

    app.config.setdefault("ADMIN_LOGIN_LIMIT", "5 per minute")
    app.config.setdefault("ADMIN_LOGIN_ADDRESS_LIMIT", DEFAULT_ADDRESS_LIMIT)
    app.config.setdefault("ADMIN_LOGIN_ACCOUNT_LIMIT", DEFAULT_ACCOUNT_LIMIT)
    app.config.setdefault("ADMIN_RATELIMIT_STORAGE_URI", "memory://")  # web_config sets $DA_ADMIN_RATELIMIT_STORAGE_URI
    app.config.setdefault("ADMIN_SESSION_HOURS", 12)
    app.config.update(
        SESSION_COOKIE_NAME="da_admin",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=str(app.config.get("PUBLIC_URL") or "").startswith("https://"),
    )
    csrf = CSRFProtect(app)
    # The worker pages authenticate by signed tokens in the URL, never by a cookie, so a forged
    # cross-site POST has nothing to ride on; and MTurk shows them in a cross-site iframe where
    # a CSRF cookie/session could not work anyway. They are exempt; everything else is protected.
    from da_platform.web.worker import bp as worker_bp

    csrf.exempt(worker_bp)
    app.extensions["da_admin_login_throttle"] = LoginThrottle(
        app.config["ADMIN_LOGIN_LIMIT"], app.config["ADMIN_RATELIMIT_STORAGE_URI"],
        app.config["ADMIN_LOGIN_ADDRESS_LIMIT"], app.config["ADMIN_LOGIN_ACCOUNT_LIMIT"]
    )
