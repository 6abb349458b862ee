"""Database engine, sessions and schema migrations (Alembic, shipped inside the package)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from da_platform.db.sqlite_commit import SqliteCommit, connect_args

MIGRATIONS = Path(__file__).parent / "migrations"


def make_engine(url: str, *, sqlite_commit: SqliteCommit = SqliteCommit.group, **kwargs) -> Engine:
    """Create an engine; SQLite gets foreign keys, WAL, commits as ``sqlite_commit`` says (by default each
    is on disk before it returns: :mod:`da_platform.db.sqlite_commit`) and a busy timeout for concurrent workers."""
    if url.startswith("sqlite"):
        mode = SqliteCommit(sqlite_commit)
        pragma = f"PRAGMA synchronous={mode.pragma}"
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"timeout": 30, **connect_args(mode, url), **kwargs.get("connect_args", {})}
        engine = create_engine(url, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(pragma)
            cursor.close()

        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(url, **kwargs)


def alembic_config(url: str):
    """An Alembic configuration pointing at the packaged migrations and the given database."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to the given revision (creating it when empty)."""
    _migrate(url, revision, downgrade=False)


def downgrade(url: str, revision: str) -> None:
    """Take the database at ``url`` back to the given revision (the migrations' ``downgrade`` steps)."""
    _migrate(url, revision, downgrade=True)


def _migrate(url: str, revision: str, *, downgrade: bool) -> None:
    """Run the migrations to ``revision`` in one transaction; on SQLite, with the foreign-key checks around it."""
    from alembic import command

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                # SQLite alters a table by copying it and dropping the old one; with foreign keys on,
                # that drop would cascade to the rows pointing at it (the slots of a HIT, say).
                # The pragma only takes effect outside a transaction; this engine is disposed after.
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            with connection.begin():
                config = alembic_config(url)
                config.attributes["connection"] = connection
                (command.downgrade if downgrade else command.upgrade)(config, revision)
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"migration left {len(broken)} broken foreign keys, first: {broken[0]}")
    finally:
        engine.dispose()


def begin_write(target: Session | Connection) -> None:
    """Start the transaction of a session or connection as a writer, before anything is read or written in it.

    SQLite: ``BEGIN IMMEDIATE`` (the write lock now, so that what the transaction reads stays current until it
    commits). PostgreSQL: ``BEGIN`` on a connection in autocommit mode (the worker pages' one connection per
    request, whose single statements commit on their own); nothing on a connection that begins its transactions
    itself. The caller commits or rolls back on the connection.
    """
    connection = target.connection() if isinstance(target, Session) else target
    dbapi = connection.connection.dbapi_connection  # None only once the connection is closed
    if dbapi is None:
        return
    if connection.dialect.name == "sqlite":
        if not dbapi.in_transaction:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
    elif connection.dialect.name == "postgresql" and getattr(dbapi, "autocommit", False):
        from psycopg.pq import TransactionStatus

        if dbapi.info.transaction_status == TransactionStatus.IDLE:
            connection.exec_driver_sql("BEGIN")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work is committed on success and rolled back entirely on any error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
