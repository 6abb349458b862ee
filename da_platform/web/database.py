"""One database session per request, closed (and rolled back if uncommitted) on teardown."""
from __future__ import annotations

from flask import Flask, current_app, g
from sqlalchemy.orm import Session, sessionmaker

from da_platform.db import make_engine, session_factory


def init_database(app: Flask) -> None:
    """Give the app ``app.config["SESSIONS"]`` (a sessionmaker) and per-request session clean-up."""
    if app.config.get("SESSIONS") is None:
        engine = make_engine(app.config["DATABASE_URL"])
        app.config["SESSIONS"] = session_factory(engine)
        app.extensions["da_engine"] = engine
    app.teardown_appcontext(close_session)


def get_session() -> Session:
    """The current request's session (created on first use)."""
    if "db_session" not in g:
        sessions: sessionmaker[Session] = current_app.config["SESSIONS"]
        g.db_session = sessions()
    return g.db_session


def close_session(_error: BaseException | None = None) -> None:
    session: Session | None = g.pop("db_session", None)
    if session is not None:
        session.close()  # rolls back anything not committed
