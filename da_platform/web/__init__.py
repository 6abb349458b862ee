"""The web application: worker pages now, the researchers' dashboard later.

``create_app`` is a Flask application factory (as in the Flask tutorial). Production::

    DA_SECRET_KEY=… DA_DATABASE_URL=postgresql+psycopg://… da-platform init
    gunicorn --workers 4 --threads 8 --bind 127.0.0.1:8000 "da_platform.web:create_app()"

(see docs/deploy.md). Blueprints: ``worker`` (arrival, the slots, completion) and, later, ``admin``,
registered by :func:`register_blueprints` when ``da_platform.web.admin`` exists.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from flask import Flask

_PACKAGE = Path(__file__).resolve().parents[1]  # da_platform/


def resource_folder(name: str) -> Path:
    """``da_platform/<name>`` in an installed wheel, else the top-level ``<name>/`` of a source checkout."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise RuntimeError(f"no {name}/ folder next to {_PACKAGE}: the installation is incomplete")


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the application; configuration from the environment, overridden by ``config``."""
    from da_platform.web.config import web_config
    from da_platform.web.database import init_database
    from da_platform.web.security import init_security
    from da_platform.web.services import init_services

    app = Flask(
        __name__,
        template_folder=str(resource_folder("templates")),
        static_folder=str(resource_folder("static")),
    )
    app.config.from_mapping(web_config(config))
    init_database(app)
    init_services(app)
    init_security(app)
    register_blueprints(app)

    @app.get("/healthz")
    def healthz():
        """Liveness probe (no database): the baseline of benchmarks/serve_load.py."""
        return {"status": "ok"}

    return app


def register_blueprints(app: Flask) -> None:
    """The worker blueprint at ``/``; the admin blueprint at ``/admin`` once it exists.

    The admin module (``da_platform/web/admin.py`` or package) provides ``bp``, a Blueprint named
    ``admin``, registered with ``url_prefix="/admin"``, and optionally ``init_admin(app)`` for its
    app-wide set-up (session cookie, CSRF, rate limits), called before registration. Worker pages use
    no cookie and no session: admin set-up must leave the ``worker`` blueprint alone (CSRF-exempt).
    """
    from da_platform.web.worker import bp as worker

    app.register_blueprint(worker)
    if importlib.util.find_spec("da_platform.web.admin") is not None:
        admin = importlib.import_module("da_platform.web.admin")
        if hasattr(admin, "init_admin"):
            admin.init_admin(app)
        app.register_blueprint(admin.bp, url_prefix="/admin")
