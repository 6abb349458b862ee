"""Database access per request: an ORM session for the dashboard's pages, one Core connection for a worker's.

Both are made on first use and closed on teardown (anything not committed is rolled back then).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import Flask, current_app, g
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, configure_mappers, sessionmaker
from werkzeug.routing import IntegerConverter

from da_platform.db.engine import make_engine, session_factory
from da_platform.db.sqlite_commit import SqliteCommit

T = TypeVar("T")


def init_database(app: Flask) -> None:
    """Give the app ``app.config["SESSIONS"]`` (a sessionmaker), its engine, and per-request clean-up.

    No ``pool_pre_ping``: it costs a round trip per request. A connection the server dropped (a
    restart) fails on first use instead; SQLAlchemy then invalidates the pool, the worker pages try
    once more (:func:`once_more_if_disconnected`), and any other page answers 503 "try again"
    (:mod:`da_platform.web.faults`).
    """
    sqlite_commit = SqliteCommit(app.config["SQLITE_COMMIT"])
    own = app.config.get("SESSIONS") is None
    if own:
        app.config["SESSIONS"] = session_factory(make_engine(
            app.config["DATABASE_URL"], pool_pre_ping=False, sqlite_commit=sqlite_commit))
    engine: Engine = app.config["SESSIONS"].kw["bind"]
    app.extensions["da_engine"] = engine
    # The worker pages' connections (request_connection): single statements that only read (or write one row
    # atomically) need no transaction, which on PostgreSQL saves the BEGIN and COMMIT round trips. A pool of its
    # own whose connections are made in autocommit mode once, rather than switched on and back at every
    # checkout of ``engine``'s (which costs more than a rating's statements); ``engine``'s, switched, for a
    # sessionmaker given in the configuration and for an in-memory SQLite database (one per pool).
    url = str(app.config["DATABASE_URL"] or "")
    in_memory = url in ("sqlite://", "sqlite:///:memory:") or "mode=memory" in url
    app.extensions["da_autocommit_engine"] = (
        make_engine(url, pool_pre_ping=False, sqlite_commit=sqlite_commit, isolation_level="AUTOCOMMIT")
        if own and not in_memory else engine.execution_options(isolation_level="AUTOCOMMIT"))
    app.teardown_appcontext(close_session)
    configure_mappers()  # now, not in a worker process's first request


class DatabaseId(IntegerConverter):
    """``<int:…>`` in URLs: only ids an INTEGER primary key can hold (PostgreSQL: 32 bits), so a
    23-digit id is a 404, not an overflow error from the database."""

    def __init__(self, map, fixed_digits: int = 0, min: int | None = None, max: int | None = 2**31 - 1,
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def once_more_if_disconnected(work: Callable[[], T]) -> T:
    """Run ``work``, and once more if the database connection turned out to be dead.

    Only for work that is safe to repeat: every worker-page step is (a rating sent twice is stored once).
    """
    try:
        return work()
    except DBAPIError as error:
        if not error.connection_invalidated:
            raise
        _drop_connection()  # ``work`` gets a new one from request_connection()
        forget_idle_connections()
        return work()


def forget_idle_connections() -> None:
    """After the database dropped a connection (a restart, say), the idle connections of the app's other pool
    are dead too (SQLAlchemy renews the pool where the dead one was found): the dashboard's and the worker
    pages' engines start new pools, so that the next page of either finds a live connection."""
    for name in ("da_engine", "da_autocommit_engine"):
        engine: Engine = current_app.extensions[name]
        engine.dispose(close=False)  # (connections in use finish their work and are dropped on return)


def get_session() -> Session:
    """The current request's session (created on first use)."""
    if "db_session" not in g:
        sessions: sessionmaker[Session] = current_app.config["SESSIONS"]
        g.db_session = sessions()
    return g.db_session


def request_connection() -> Connection:
    """The worker pages' one database handle: this request's Core connection, made on first use.

    It is in autocommit mode: a single statement commits on its own (on PostgreSQL without a BEGIN and COMMIT
    round trip); a step that writes several statements together opens a transaction with
    :func:`da_platform.db.engine.begin_write` and commits it. Closed on teardown (rolling back anything left).
    """
    connection: Connection | None = g.get("db_connection")
    if connection is None:
        connection = g.db_connection = current_app.extensions["da_autocommit_engine"].connect()
    return connection


def _release(name: str, how: str) -> None:
    """Pop the request's ``g.<name>`` (session or connection) and ``close`` or ``invalidate`` it; one whose
    connection is gone already is dropped all the same."""
    handle = g.pop(name, None)
    if handle is not None:
        try:
            getattr(handle, how)()
        except Exception:  # noqa: BLE001 - the connection is gone already; nothing else to release
            pass


def _drop_connection() -> None:
    """Close the request's connection, if any (a dead one is discarded by the pool)."""
    _release("db_connection", "close")


def discard_session(disconnected: bool = False) -> None:
    """Drop the request's session and connection without using them again (they may be dead); ``disconnected``
    (the database dropped a connection): the idle connections of both pools too (:func:`forget_idle_connections`)."""
    _release("db_session", "invalidate")
    _drop_connection()
    if disconnected:
        forget_idle_connections()


def close_session(_error: BaseException | None = None) -> None:
    session: Session | None = g.pop("db_session", None)
    if session is not None:
        session.close()  # rolls back anything not committed
    _drop_connection()
