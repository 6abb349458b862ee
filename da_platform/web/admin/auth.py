"""Logging in and out, the ``login_required`` guard, and the dashboard's error pages."""
from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from urllib.parse import urlsplit

from flask import current_app, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError

from da_platform.models import AdminUser
from da_platform.web.admin import bp
from da_platform.web.admin.accounts import authenticate, revoke_sessions
from da_platform.web.admin.devices import known_device, remember_device
from da_platform.web.database import get_session
from da_platform.web.proxies import client_network, warn_if_forwarded_untrusted


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
DEFAULT_ACCOUNT_LIMIT = "10 per minute; 100 per hour"


class LoginThrottle:
    """Login attempts in moving windows, so that guessing is slow however it is spread:

    - per address and user name (``limit``): many passwords on one account from one place;
    - per address whatever the user names (``address_limit``): one password on many accounts (spraying);
    - per account from every address together (``account_limit``, ``;``-separated limits): one account
      guessed from many addresses. It counts only attempts from browsers that account never logged in
      from: one carrying its device cookie (``da_platform.web.admin.devices``) is limited per device
      (``limit``) instead, so guessing from elsewhere never locks the owner out.

    An address is an IPv4 address or an IPv6 /64 (``da_platform.web.proxies.client_network``). The
    ``limits`` library (what Flask-Limiter is built on), called only by the login view: no hook runs on
    the worker pages or any other request.
    """

    def __init__(self, limit: str, storage_uri: str, address_limit: str = DEFAULT_ADDRESS_LIMIT,
                 account_limit: str = DEFAULT_ACCOUNT_LIMIT) -> None:
        from limits import parse, parse_many
        from limits.storage import storage_from_string
        from limits.strategies import MovingWindowRateLimiter

        self.limit = parse(limit)
        self.address_limit = parse(address_limit)
        self.account_limits = parse_many(account_limit)
        self._limiter = MovingWindowRateLimiter(storage_from_string(storage_uri))

    def refusal(self, address: str, user: str, device: str | None = None) -> str | None:
        """Count one attempt from ``address`` (a ``client_network``) for ``user``, from the known device
        ``device`` if any; None if it may go ahead, else why not (for the page)."""
        account = user[:100].lower()
        hit = self._limiter.hit
        if device is not None:
            if hit(self.limit, "admin-login-device", f"{account}|{device}"):
                return None
            return f"Too many login attempts from this browser (at most {self.limit}). Wait a minute and try again."
        allowed = [hit(self.address_limit, "admin-login-address", address),
                   hit(self.limit, "admin-login", f"{address}|{account}")]
        if not all(allowed):
            return f"Too many login attempts (at most {self.limit}). Wait a minute and try again."
        if not all([hit(limit, "admin-login-account", account) for limit in self.account_limits]):
            return ("Too many login attempts on this account from browsers it has not logged in from. Log in "
                    "from a browser you have used for this account before, or wait a few minutes.")
        return None

    def allow(self, address: str, user: str, device: str | None = None) -> bool:
        """Count one attempt (as :meth:`refusal`); False once a limit is exceeded."""
        return self.refusal(address, user, device) is None


@bp.route("/login", methods=["GET", "POST"])
def login():
    """The login form; a POST checks the password (rate limited: :class:`LoginThrottle`)."""
    error = None
    target = safe_next(request.values.get("next"))
    if request.method == "POST":
        throttle: LoginThrottle = current_app.extensions["da_admin_login_throttle"]
        name = request.form.get("username", "")
        warn_if_forwarded_untrusted(current_app, request)
        refused = throttle.refusal(client_network(request.remote_addr), name, known_device(name))
        if refused:
            return render_template("admin/message.html", title="Too many login attempts", message=refused), 429
        user = authenticate(get_session(), name, request.form.get("password", ""))
        if user is not None:
            session.clear()
            session["admin_user_id"] = user.id
            session["admin_since"] = time.time()
            session["admin_epoch"] = user.session_epoch
            response = redirect(target, code=303)
            remember_device(response, user.username)
            return response
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
