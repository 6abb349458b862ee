"""An acknowledged rating survives a power cut on SQLite too: by default every commit is fsynced
(``PRAGMA synchronous=FULL`` in WAL mode), on the connections that serve the worker pages and on the
command line's; ``DA_SQLITE_SYNCHRONOUS=normal`` is the named, faster mode (fsync at checkpoints only).
The cost is measured in benchmarks/durability.py, not here."""
from __future__ import annotations

from pathlib import Path

import pytest

from da_platform.cli import CliContext
from da_platform.db import SqliteSynchronous, upgrade
from da_platform.settings import Settings, SettingsError
from da_platform.web import create_app
from hit_builder.storage import LocalImageStorage
from tests.web_factories import WebEnv
from tests.worker_flow import arrive_pool, current, rate

# PRAGMA synchronous answers a number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA (sqlite.org/pragma.html#pragma_synchronous).
FULL, NORMAL = 2, 1


def _environ(tmp_path: Path, **extra: str) -> dict[str, str]:
    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    upgrade(url)
    return {"DA_DATABASE_URL": url, "DA_SECRET_KEY": "test-secret-key", "DA_IMAGE_FOLDER": str(tmp_path / "images"),
            **extra}


def _served_pragmas(tmp_path: Path, **extra: str) -> tuple[int, str]:
    """Serve one rating with the app built from the environment, then read ``synchronous`` and
    ``journal_mode`` back on the pooled connection that served it."""
    app = create_app(settings=Settings.from_environ(_environ(tmp_path, **extra)))
    env = WebEnv(app=app, sessions=app.config["SESSIONS"], storage=LocalImageStorage(tmp_path / "images"))
    made = env.campaign(slots=2)
    client = app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    slot, _ = current(client, base)
    assert rate(client, base, slot, 50, "rating").status_code == 200
    engine = app.extensions["da_autocommit_engine"]
    assert engine.pool.checkedin() == 1  # the one connection that served every request
    with engine.connect() as connection:
        return (connection.exec_driver_sql("PRAGMA synchronous").scalar_one(),
                connection.exec_driver_sql("PRAGMA journal_mode").scalar_one())


def test_by_default_every_commit_of_the_served_connections_is_fsynced(tmp_path: Path) -> None:
    assert _served_pragmas(tmp_path) == (FULL, "wal")


def test_the_faster_mode_is_a_named_setting(tmp_path: Path) -> None:
    assert _served_pragmas(tmp_path, DA_SQLITE_SYNCHRONOUS="normal") == (NORMAL, "wal")


@pytest.mark.parametrize(("value", "mode", "pragma"), [(None, SqliteSynchronous.full, FULL),
                                                       ("FULL", SqliteSynchronous.full, FULL),
                                                       ("Normal", SqliteSynchronous.normal, NORMAL)])
def test_the_command_line_commits_as_the_setting_says(tmp_path: Path, value, mode, pragma) -> None:
    settings = Settings.from_environ(_environ(tmp_path, **({"DA_SQLITE_SYNCHRONOUS": value} if value else {})))
    assert settings.sqlite_synchronous is mode
    engine = CliContext(settings=settings).engine
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar_one() == pragma
    engine.dispose()


def test_a_mode_the_platform_does_not_know_is_refused_naming_the_variable(tmp_path: Path) -> None:
    for value in ("off", "fast", "extra"):
        with pytest.raises(SettingsError, match=rf"DA_SQLITE_SYNCHRONOUS='{value}' .*full, normal"):
            Settings.from_environ(_environ(tmp_path, DA_SQLITE_SYNCHRONOUS=value))
