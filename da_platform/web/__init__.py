"""The web application: the worker pages and the researchers' dashboard.

``create_app`` is a Flask application factory (as in the Flask tutorial). Production::

    DA_SECRET_KEY=… DA_DATABASE_URL=postgresql+psycopg://… da-platform init
    gunicorn --worker-class gthread --workers 3 --threads 4 --bind 127.0.0.1:8000 "da_platform.web:create_app()"

(see docs/deploy.md). Blueprints: ``worker`` (arrival, the slots, completion) and ``admin`` (the
researchers' dashboard at ``/admin``), registered by :func:`register_blueprints`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask

if TYPE_CHECKING:
    from da_platform.config.settings import Settings
    from da_platform.rating.clock import AssignmentClock

_PACKAGE = Path(__file__).resolve().parents[1]  # da_platform/


def create_app(config: dict[str, Any] | None = None, settings: Settings | None = None,
               clock: AssignmentClock | None = None) -> Flask:
    """Build the application from ``settings`` (default: read from the environment once, here),
    overridden by ``config``. ``clock``: the server's time for an assignment (default: the real time;
    a simulation passes its own, see :mod:`da_platform.rating.clock`)."""
    from da_platform.config.settings import Settings
    from da_platform.rating.clock import real_time
    from da_platform.web.config import app_settings, web_config
    from da_platform.web.database import DatabaseId, init_database
    from da_platform.web.faults import init_faults
    from da_platform.web.i18n import init_i18n
    from da_platform.web.input_guard import init_input_guard
    from da_platform.web.limits import init_limits
    from da_platform.web.proxies import init_proxies
    from da_platform.web.security import init_security
    from da_platform.web.services import init_services

    app = Flask(
        __name__,
        template_folder=str(_PACKAGE / "templates"),
        static_folder=str(_PACKAGE / "static"),
    )
    if settings is None:
        settings = Settings.from_environ(os.environ)
    settings = app_settings(settings, config)
    app.extensions["da_settings"] = settings
    app.config.from_mapping(web_config(settings, config))
    init_proxies(app)
    app.url_map.converters["int"] = DatabaseId  # before any route is added
    init_database(app)
    init_faults(app)
    init_limits(app)
    init_input_guard(app)  # before the dashboard's hooks (CSRF, login) and every view
    init_services(app, clock or real_time)
    init_security(app)
    init_i18n(app)
    from da_platform.web.sessions import CookieSessions

    app.session_interface = CookieSessions()
    register_blueprints(app)
    from da_platform.web.landing import init_landing

    init_landing(app)

    @app.get("/healthz")
    def healthz():
        """Liveness probe (no database): the baseline of benchmarks/serve_load.py."""
        return {"status": "ok"}

    return app


def register_blueprints(app: Flask) -> None:
    """The worker blueprint at ``/`` and the researchers' dashboard at ``/admin``.

    ``init_admin`` sets up what the dashboard needs app-wide (session cookie, CSRF protection with
    the token-authenticated ``worker`` blueprint exempt, the login rate limiter).
    """
    from da_platform.web.admin import bp as admin
    from da_platform.web.admin import init_admin
    from da_platform.web.worker import bp as worker

    app.register_blueprint(worker)
    init_admin(app)
    app.register_blueprint(admin, url_prefix="/admin")
