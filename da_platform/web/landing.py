"""The page at ``/``: says what this server is and points researchers to the dashboard.

Workers never need it (they arrive through their own links), so it names no campaign and reads no
database; it is in the shipped language the browser asks for (``da_platform.web.i18n``).
"""
from __future__ import annotations

from flask import Flask, render_template


def init_landing(app: Flask) -> None:
    """Serve the landing page at ``/``."""

    @app.get("/")
    def landing():
        return render_template("landing.html")
