"""The migrations create exactly the schema the models describe, on SQLite and PostgreSQL."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from da_platform.db import make_engine, upgrade
from da_platform.models import Base


def test_migrated_schema_matches_models(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        tables = set(inspect(connection).get_table_names())
    engine.dispose()
    assert diff == []
    assert set(Base.metadata.tables) <= tables
    assert "alembic_version" in tables


def test_upgrade_is_idempotent(database_url: str) -> None:
    upgrade(database_url)  # already at head: must be a no-op, not an error
    engine = make_engine(database_url)
    with engine.connect() as connection:
        version = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one()
    engine.dispose()
    assert version.startswith("0001") or version > "0001"
