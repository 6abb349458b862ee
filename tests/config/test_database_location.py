"""One rule for where the database is; read-only commands never create one and name the URL tried."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from da_platform.cli import main
from da_platform.config.location import PROJECT_FILE, locate

READ_ONLY = [
    ["export", "ratings", "c", "--out", "out.csv"],
    ["export", "ranking", "c", "--out", "out.csv"],
    ["analyze", "--campaign", "c"],
    ["inspect", "c"],
    ["admin", "list-users"],
    ["import", "answers", "--test-set", "t", "x.jsonl"],
]


@pytest.fixture
def empty(tmp_path: Path, monkeypatch) -> Path:
    """An empty current folder, no database chosen by the environment."""
    folder = tmp_path / "empty"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("DA_DATABASE_URL", raising=False)
    monkeypatch.delenv("DA_INSTANCE_PATH", raising=False)
    return folder


@pytest.mark.parametrize("args", READ_ONLY[:-1], ids=lambda a: " ".join(a[:2]))
def test_a_read_in_an_empty_folder_creates_nothing_and_names_the_url(empty: Path, args: list[str]) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    expected = f"sqlite:///{empty.resolve() / 'instance' / 'da-platform.sqlite'}"
    assert f"no da-platform database at {expected} (no database file there; chosen by default ./instance" \
        in result.output
    assert "da-platform init" in result.output
    assert list(empty.iterdir()) == []


def test_an_import_that_needs_a_test_set_names_the_database(empty: Path) -> None:
    (empty / "x.jsonl").write_text('{"id": "q1", "answer": "a"}\n')
    assert CliRunner().invoke(main, ["init"]).exit_code == 0
    result = CliRunner().invoke(main, READ_ONLY[-1])
    assert result.exit_code == 1
    assert ("no test set named 't' (test sets: none yet) in database "
            f"sqlite:///{empty.resolve()}/instance/da-platform.sqlite") in result.output


def test_init_writes_a_project_file_found_from_subfolders(empty: Path, monkeypatch) -> None:
    result = CliRunner().invoke(main, ["init"])
    assert result.exit_code == 0, result.output
    assert (empty / PROJECT_FILE).is_file() and (empty / "instance" / "da-platform.sqlite").is_file()
    deep = empty / "analysis" / "round-2"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    where = CliRunner().invoke(main, ["where"])
    assert where.exit_code == 0
    assert f"database: sqlite:///{empty.resolve()}/instance/da-platform.sqlite\n" in where.output
    assert f"chosen by: instance in {empty.resolve() / PROJECT_FILE}" in where.output
    missing = CliRunner().invoke(main, ["export", "ratings", "nope", "--out", "x.csv"])
    assert missing.exit_code == 1
    assert (f"no campaign named 'nope' (campaigns: none yet) in database "
            f"sqlite:///{empty.resolve()}/instance/da-platform.sqlite" in missing.output)
    assert list(deep.iterdir()) == []  # nothing created in the subfolder
    assert "wrote" not in CliRunner().invoke(main, ["init"]).output  # a project above: no second project file


def test_the_environment_wins_over_the_project_file(empty: Path, monkeypatch, tmp_path: Path) -> None:
    (empty / PROJECT_FILE).write_text("[da-platform]\ndatabase_url = sqlite:///elsewhere.sqlite\n")
    env: dict[str, str] = {}
    assert locate(env).database_url == "sqlite:///elsewhere.sqlite"
    env["DA_INSTANCE_PATH"] = str(tmp_path / "inst")
    assert locate(env).database_url == f"sqlite:///{tmp_path / 'inst' / 'da-platform.sqlite'}"
    assert locate(env).chosen_by == "$DA_INSTANCE_PATH"
    env["DA_DATABASE_URL"] = "postgresql+psycopg://ana:secret@db.example.org/da"
    assert locate(env).database_url == "postgresql+psycopg://ana:secret@db.example.org/da"
    assert locate(env).shown_url == "postgresql+psycopg://ana:***@db.example.org/da"


def test_a_broken_project_file_is_named(empty: Path) -> None:
    (empty / PROJECT_FILE).write_text("instance = x\n")
    result = CliRunner().invoke(main, ["where"])
    assert result.exit_code == 1 and f"{empty.resolve() / PROJECT_FILE}: not a readable project file" in result.output


@pytest.mark.postgres
def test_a_postgres_database_without_the_schema_is_refused_and_left_alone(monkeypatch, empty: Path,
                                                                         postgres_admin_url: str) -> None:
    import os

    from sqlalchemy import create_engine, inspect, text

    admin = postgres_admin_url
    name = f"da_location_{os.getpid()}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.rsplit("/", 1)[0] + f"/{name}"
    try:
        monkeypatch.setenv("DA_DATABASE_URL", url)
        result = CliRunner().invoke(main, ["export", "ratings", "c", "--out", "x.csv"])
        assert result.exit_code == 1
        assert f"no da-platform database at {url} (the database has no da-platform tables" in result.output
        check = create_engine(url)
        with check.connect() as connection:
            assert inspect(connection).get_table_names() == []
        check.dispose()
    finally:
        with engine.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()
