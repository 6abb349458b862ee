"""An acknowledged rating survives a power cut on SQLite too (docs/deploy.md, "What survives a crash").

By default (``DA_SQLITE_COMMIT=group``) every commit waits for an fdatasync of the write-ahead log that
began after the commit was written; ``full`` is SQLite's own ``synchronous=FULL``; ``normal`` does not
wait. These tests read the settings back on the connections that served requests and watch the real
``fdatasync`` calls (``os.fdatasync`` is wrapped, still called): which rows another connection could
already see when each sync began. The cost of each mode is measured in benchmarks/durability.py."""
from __future__ import annotations

import os
import sqlite3
import threading
from itertools import count
from pathlib import Path

import pytest
from sqlalchemy import text

from da_platform.cli import CliContext
from da_platform.config.settings import Settings, SettingsError
from da_platform.db import sqlite_commit
from da_platform.db.engine import make_engine, upgrade
from da_platform.db.sqlite_commit import GroupCommitConnection, SqliteCommit
from da_platform.web import create_app
from hit_builder.storage import LocalImageStorage
from tests.web_factories import WebEnv
from tests.worker_flow import arrive_pool, current, rate

# PRAGMA synchronous answers a number: 1 NORMAL, 2 FULL (sqlite.org/pragma.html#pragma_synchronous).
FULL, NORMAL = 2, 1


class Syncs:
    """Every fdatasync of a write-ahead log, with what a fresh connection saw when it began (``seen``:
    the result of ``probe``) and the moment it ended (a shared counter, ``clock``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, database: Path, probe: str) -> None:
        self.log: list[tuple[str, object, int]] = []
        self.clock = count()
        self.lock = threading.Lock()
        real = os.fdatasync

        def fdatasync(handle: int) -> None:
            path = os.readlink(f"/proc/self/fd/{handle}")
            with sqlite3.connect(database) as look:  # (a plain connection: no sync of its own)
                seen = look.execute(probe).fetchall()
            real(handle)
            with self.lock:
                self.log.append((path, seen, next(self.clock)))

        monkeypatch.setattr(sqlite_commit.os, "fdatasync", fdatasync)

    def now(self) -> int:
        with self.lock:
            return next(self.clock)


def _environ(tmp_path: Path, **extra: str) -> dict[str, str]:
    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    upgrade(url)
    return {"DA_DATABASE_URL": url, "DA_SECRET_KEY": "test-secret-key", "DA_IMAGE_FOLDER": str(tmp_path / "images"),
            **extra}


def _serve_one_rating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **extra: str):
    """The app built from the environment serves one rating; what the served connection's pragmas say,
    its class, and the syncs of the log made while the rating was posted."""
    app = create_app(settings=Settings.from_environ(_environ(tmp_path, **extra)))
    env = WebEnv(app=app, sessions=app.config["SESSIONS"], storage=LocalImageStorage(tmp_path / "images"))
    made = env.campaign(slots=2)
    client = app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    slot, _ = current(client, base)
    syncs = Syncs(monkeypatch, tmp_path / "durable.sqlite", "SELECT score FROM rating")
    assert rate(client, base, slot, 57, "rating").status_code == 200
    answered = syncs.now()
    engine = app.extensions["da_autocommit_engine"]
    assert engine.pool.checkedin() == 1  # the one connection that served every request
    with engine.connect() as connection:
        pragmas = (connection.exec_driver_sql("PRAGMA synchronous").scalar_one(),
                   connection.exec_driver_sql("PRAGMA journal_mode").scalar_one())
        kind = type(connection.connection.dbapi_connection)
    return pragmas, kind, syncs.log, answered


def test_by_default_a_rating_is_on_disk_before_the_server_answers(tmp_path, monkeypatch) -> None:
    pragmas, kind, log, answered = _serve_one_rating(tmp_path, monkeypatch)
    assert pragmas == (NORMAL, "wal") and kind is GroupCommitConnection
    wal = str(tmp_path / "durable.sqlite-wal")
    # A sync of the log began when the rating could already be read (it was written) and ended before the answer.
    assert any(path == wal and seen == [(57,)] and ended < answered for path, seen, ended in log)


def test_full_is_sqlites_own_fsync_at_every_commit(tmp_path, monkeypatch) -> None:
    pragmas, kind, log, _ = _serve_one_rating(tmp_path, monkeypatch, DA_SQLITE_COMMIT="full")
    assert pragmas == (FULL, "wal") and kind is sqlite3.Connection and log == []  # SQLite syncs inside the commit


def test_normal_is_the_named_mode_that_does_not_wait(tmp_path, monkeypatch) -> None:
    pragmas, kind, log, _ = _serve_one_rating(tmp_path, monkeypatch, DA_SQLITE_COMMIT="normal")
    assert pragmas == (NORMAL, "wal") and kind is sqlite3.Connection and log == []


def test_concurrent_commits_each_wait_for_a_sync_that_covers_them(tmp_path, monkeypatch) -> None:
    """8 threads × 15 commits (transactions and autocommitted statements): every one returns only after
    a sync that began once its row was written, and one sync may cover several."""
    url = f"sqlite:///{tmp_path / 'group.sqlite'}"
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT)"))
    syncs = Syncs(monkeypatch, tmp_path / "group.sqlite", "SELECT id FROM t")
    returned: dict[int, int] = {}
    errors: list[BaseException] = []

    def commit_rows(thread: int) -> None:
        try:
            with engine.connect() as connection:
                autocommit = connection.execution_options(isolation_level="AUTOCOMMIT")
                for n in range(15):
                    row = thread * 100 + n
                    if n % 3:
                        connection.execute(text("INSERT INTO t (id, who) VALUES (:id, 'tx')"), {"id": row})
                        connection.commit()
                    else:
                        autocommit.execute(text("INSERT INTO t (id, who) VALUES (:id, 'auto')"), {"id": row})
                    returned[row] = syncs.now()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=commit_rows, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    engine.dispose()
    assert errors == [] and len(returned) == 120
    for row, moment in returned.items():
        assert any((row,) in seen and ended < moment for _, seen, ended in syncs.log), row
    assert 0 < len(syncs.log) <= 120


@pytest.mark.parametrize(("value", "mode", "pragma"), [(None, SqliteCommit.group, NORMAL),
                                                       ("FULL", SqliteCommit.full, FULL),
                                                       ("Normal", SqliteCommit.normal, NORMAL)])
def test_the_command_line_commits_as_the_setting_says(tmp_path: Path, value, mode, pragma) -> None:
    settings = Settings.from_environ(_environ(tmp_path, **({"DA_SQLITE_COMMIT": value} if value else {})))
    assert settings.sqlite_commit is mode
    engine = CliContext(settings=settings).engine
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar_one() == pragma
        assert isinstance(connection.connection.dbapi_connection, GroupCommitConnection) == (mode is SqliteCommit.group)
    engine.dispose()


def test_a_mode_the_platform_does_not_know_is_refused_naming_the_variable(tmp_path: Path) -> None:
    for value in ("off", "fast", "extra"):
        with pytest.raises(SettingsError, match=rf"DA_SQLITE_COMMIT='{value}' .*group, full, normal"):
            Settings.from_environ(_environ(tmp_path, DA_SQLITE_COMMIT=value))


def test_the_note_of_a_served_image_waits_for_no_sync_and_the_rating_after_it_covers_it(tmp_path, monkeypatch) -> None:
    """An image's first serving is noted on the assignment without a sync of its own (nobody is told it is
    saved); the rating that follows waits for a sync begun after both were written, so the note is as durable
    as the rating that carries it (da_platform.rating.flow.serve_current_image)."""
    app = create_app(settings=Settings.from_environ(_environ(tmp_path)))
    env = WebEnv(app=app, sessions=app.config["SESSIONS"], storage=LocalImageStorage(tmp_path / "images"))
    made = env.campaign(slots=2, show_reference=False)
    client = app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    slot, _ = current(client, base)
    syncs = Syncs(monkeypatch, tmp_path / "durable.sqlite",
                  "SELECT current_images_served, next_position FROM assignment")
    assert client.get(f"{base}image/{slot}/candidate").status_code == 200
    assert syncs.log == []  # noted without waiting
    assert rate(client, base, slot, 57, "rating").status_code == 200
    answered = syncs.now()
    # A sync began once the note and the rating were written (the claim cleared the note for the next slot),
    # and ended before the answer.
    assert any(seen == [(0, 1)] and ended < answered for _, seen, ended in syncs.log)
    with env.sessions() as session:
        assert session.execute(text("SELECT images_served FROM rating")).scalar_one() in (1, True)
