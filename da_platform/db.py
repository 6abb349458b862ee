"""Database engine, sessions and schema migrations (Alembic, shipped inside the package)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from analysis.states import StrState

MIGRATIONS = Path(__file__).parent / "migrations"


class SqliteSynchronous(StrState):
    """How a commit to the embedded (SQLite) database reaches the disk (``$DA_SQLITE_SYNCHRONOUS``).

    ``full`` (the default): the write-ahead log is fsynced at every commit, before the commit returns,
    so a rating the server acknowledged survives a crash of the machine (power cut, kernel panic, the
    VM's host) as it does on PostgreSQL. ``normal``: the log is fsynced only at checkpoints; commits are
    faster, an acknowledged rating survives a crash of the server process, but a crash of the machine
    can silently take the last ones (docs/deploy.md, "What survives a crash"). PostgreSQL ignores it.
    """

    full = "full"
    normal = "normal"


def make_engine(url: str, *, sqlite_synchronous: SqliteSynchronous = SqliteSynchronous.full, **kwargs) -> Engine:
    """Create an engine; SQLite gets foreign keys, WAL, the commit durability ``sqlite_synchronous``
    and a busy timeout for concurrent workers."""
    pragma = f"PRAGMA synchronous={SqliteSynchronous(sqlite_synchronous).value.upper()}"
    if url.startswith("sqlite"):
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        kwargs.setdefault("connect_args", {"timeout": 30})
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
