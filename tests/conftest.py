"""Shared fixtures: a migrated database on SQLite and, where configured, on a real PostgreSQL.

PostgreSQL runs when $DA_TEST_POSTGRES_URL names a server (``.ci/run`` starts one). Under CI
(``CI=true``) a missing server is a failure, not a skip, so the PostgreSQL half can never vanish.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from da_platform.db import make_engine, session_factory, upgrade

SHARED = Path(os.environ.get("DA_SHARED_PATH", Path(__file__).resolve().parents[2] / "shared"))
WMT21 = Path(os.environ.get("DA_WMT21_FIXTURE",
                            Path(__file__).resolve().parent / "data" / "wmt21-facebook-wikipedia-2021"))
"""The public WMT21 facebook-wikipedia release (tests/data, see its SOURCE.md); $DA_WMT21_FIXTURE overrides."""


def _postgres_admin_url() -> str | None:
    url = os.environ.get("DA_TEST_POSTGRES_URL")
    if not url and os.environ.get("CI") == "true":
        pytest.fail("CI=true but DA_TEST_POSTGRES_URL is not set: .ci/run must start PostgreSQL")
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of a fresh, migrated database: a SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'test.sqlite'}"
        upgrade(url)
        yield url
        return
    admin_url = _postgres_admin_url()
    if admin_url is None:
        pytest.skip("no PostgreSQL server configured (set DA_TEST_POSTGRES_URL; CI always does)")
    name = f"da_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    """A session factory bound to the fresh database."""
    engine = make_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def session(sessions: sessionmaker[Session]) -> Iterator[Session]:
    with sessions() as s:
        yield s
