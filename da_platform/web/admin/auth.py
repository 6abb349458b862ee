"""Logging in and out, the ``login_required`` guard, and the dashboard's error pages."""
from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from urllib.parse import urlsplit

from flask import current_app, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError

from da_platform.config.accounts import authenticate, revoke_sessions
from da_platform.db.models import AdminUser
from da_platform.web.admin import bp
from da_platform.web.database import get_session


def safe_next(target: str | None) -> str:
    """``target`` if it is a path on this site (``/admin/…``), else the dashboard's start page."""
    default = url_for("admin.campaigns")
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or any(ord(c) < 32 for c in target):
        return default
    return target


def current_user() -> AdminUser | None:
    """The logged-in researcher (checked against the database on every request), or None.

    A session is valid while it is younger than ``ADMIN_SESSION_HOURS`` and carries the user's current
    ``session_epoch`` (logout and a new password increase it, ending every older session).
    """
    if "admin_user" not in g:
        user = None
        user_id, since = session.get("admin_user_id"), session.get("admin_since", 0)
        max_age = float(current_app.config["ADMIN_SESSION_HOURS"]) * 3600
        if user_id is not None and time.time() - since < max_age:
            user = get_session().get(AdminUser, user_id)
            if user is not None and session.get("admin_epoch") != user.session_epoch:
                user = None
        g.admin_user = user
    return g.admin_user


def logged_in_user() -> AdminUser:
    """The researcher of a ``login_required`` view (a :class:`RuntimeError` in a view without the guard)."""
    user = current_user()
    if user is None:
        raise RuntimeError("no researcher is logged in: the view needs @login_required")
    return user


def login_required(view: Callable) -> Callable:
    """Redirect to the login page (with ``next``) unless a researcher is logged in."""
    @wraps(view)
    def guarded(*args, **kwargs):
        if current_user() is None:
            return redirect(url_for("admin.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return guarded


DEFAULT_ADDRESS_LIMIT = "20 per minute"


class LoginThrottle:
    """Login attempts in a moving window: per address and user name (``limit``), and per address
    whatever the user names (``address_limit``), so that trying one password on many accounts
    (password spraying) is slowed down as much as many passwords on one.

    The ``limits`` library (what Flask-Limiter is built on), called only by the login view: no hook
    runs on the worker pages or any other request.
    """

    def __init__(self, limit: str, storage_uri: str, address_limit: str = DEFAULT_ADDRESS_LIMIT) -> None:
        from limits import parse
        from limits.storage import storage_from_string
        from limits.strategies import MovingWindowRateLimiter

        self.limit = parse(limit)
        self.address_limit = parse(address_limit)
        self._limiter = MovingWindowRateLimiter(storage_from_string(storage_uri))

    def allow(self, address: str, user: str) -> bool:
        """Count one attempt from ``address`` for ``user``; False once either limit is exceeded."""
        per_address = self._limiter.hit(self.address_limit, "admin-login-address", address)
        per_user = self._limiter.hit(self.limit, "admin-login", f"{address}|{user[:100].lower()}")
        return per_address and per_user


@bp.route("/login", methods=["GET", "POST"])
def login():
    """The login form; a POST checks the password (rate limited per IP address and user name)."""
    error = None
    target = safe_next(request.values.get("next"))
    if request.method == "POST":
        throttle: LoginThrottle = current_app.extensions["da_admin_login_throttle"]
        if not throttle.allow(str(request.remote_addr), request.form.get("username", "")):
            return render_template("admin/message.html", title="Too many login attempts",
                                   message=f"Too many login attempts (at most {throttle.limit}). Wait a minute "
                                           "and try again."), 429
        user = authenticate(get_session(), request.form.get("username", ""), request.form.get("password", ""))
        if user is not None:
            session.clear()
            session["admin_user_id"] = user.id
            session["admin_since"] = time.time()
            session["admin_epoch"] = user.session_epoch
            return redirect(target, code=303)
        error = "Wrong user name or password."
    status = 401 if error else 200
    return render_template("admin/login.html", error=error, next=target), status


@bp.post("/logout")
def logout():
    """End this session and every other session of the same user (a copied cookie stops working)."""
    user = current_user()
    if user is not None:
        revoke_sessions(user)
        get_session().commit()
    session.clear()
    return redirect(url_for("admin.login"), code=303)


@bp.errorhandler(CSRFError)
def _csrf_error(error: CSRFError):
    return render_template("admin/message.html", title="Form expired or forged",
                           message=f"The form was refused ({error.description}). Nothing was changed. "
                                   "Go back, reload the page and try again."), 400
