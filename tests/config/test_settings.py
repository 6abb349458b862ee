"""One settings object read once from the environment, and one table documenting every variable."""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from da_platform.cli import main
from da_platform.config.settings import Environment, Settings, SettingsError
from da_platform.web import create_app

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "configuration.md"


class RecordingEnviron(Mapping[str, str]):
    """An environment that remembers every variable asked for."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        return self.values[name]

    def get(self, name, default=None):  # type: ignore[override]
        self.asked.add(name)
        return self.values.get(name, default)

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("Settings must ask for its variables by name, not scan the environment")

    def __len__(self) -> int:
        return len(self.values)


def documented() -> dict[str, str]:
    """Variable -> the table's 'who reads it' cell, from docs/configuration.md."""
    rows = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 4:
            rows[cells[0].strip("`")] = cells[3]
    return rows


def read_by_tests_and_benchmarks() -> set[str]:
    pattern = re.compile(r'os\.(?:environ\.get\(|getenv\(|environ\[)\s*"([A-Z][A-Z0-9_]*)"')
    names: set[str] = set()
    for folder in ("tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            names |= set(pattern.findall(path.read_text(encoding="utf-8")))
    return names


def test_every_variable_is_in_the_one_table_and_every_row_is_read(tmp_path: Path) -> None:
    environ = RecordingEnviron({})
    Settings.from_environ(environ, start=tmp_path)
    table = documented()
    by_settings = {name for name, reader in table.items() if reader.startswith("`Settings`")}
    assert environ.asked == by_settings
    assert set(table) - by_settings == read_by_tests_and_benchmarks()
    assert len(environ.asked) == 18


def test_the_readme_links_the_table_and_nothing_else_reads_the_environment() -> None:
    assert "(docs/configuration.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    readers = []
    for package in ("da_platform", "hit_builder", "analysis"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if re.search(r"os\.environ|getenv|envvar=", text):
                readers.append(path.relative_to(ROOT).as_posix())
    # The two entry points pass os.environ to Settings.from_environ; settings.py names it in a docstring.
    assert sorted(readers) == ["da_platform/cli/context.py", "da_platform/config/settings.py",
                               "da_platform/web/__init__.py"]


def test_values_and_defaults(tmp_path: Path) -> None:
    defaults = Settings.from_environ({}, start=tmp_path)
    assert defaults.database_url == f"sqlite:///{tmp_path.resolve() / 'instance' / 'da-platform.sqlite'}"
    assert defaults.images == tmp_path.resolve() / "instance" / "images"
    assert (defaults.environment, defaults.secret_key, defaults.public_url) == (None, None, "http://127.0.0.1:5000")
    assert (defaults.image_store, defaults.s3_prefix, defaults.font_paths) == ("folder", "images/", ())
    assert defaults.admin_ratelimit_storage_uri == "memory://"
    given = Settings.from_environ({
        "DA_DATABASE_URL": "postgresql+psycopg://ana:pw@db/da", "DA_ENV": "Development",
        "DA_PUBLIC_URL": "https://da.example.org/", "DA_IMAGE_STORE": " S3 ", "DA_S3_BUCKET": "b",
        "DA_FONT": "/a.ttf::/b.ttc#1", "DA_MTURK_ENDPOINT_URL": "http://127.0.0.1:9",
        "DA_INSTANCE_PATH": str(tmp_path / "inst"), "DA_IMAGE_FOLDER": "",  # empty = unset
    }, start=tmp_path)
    assert given.database_url == "postgresql+psycopg://ana:pw@db/da"
    assert given.images == tmp_path / "inst" / "images"
    assert given.environment is Environment.development
    assert (given.public_url, given.image_store, given.s3_bucket) == ("https://da.example.org", "s3", "b")
    assert given.font_paths == ("/a.ttf", "/b.ttc#1")
    assert given.mturk_endpoint_url == "http://127.0.0.1:9"
    with pytest.raises(AttributeError):
        given.public_url = "http://elsewhere"  # type: ignore[misc]  (frozen)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("DA_ENV", "prod", "DA_ENV='prod' is not an environment (choose one of: production, development, testing)"),
    ("DA_PUBLIC_URL", "da.example.org", "DA_PUBLIC_URL='da.example.org' is not an http(s) URL"),
    ("DA_IMAGE_STORE", "tape", "DA_IMAGE_STORE='tape' is not an image store (choose one of: folder, database, s3)"),
    ("DA_PROLIFIC_API_URL", "ftp://x", "DA_PROLIFIC_API_URL='ftp://x' is not an http(s) URL"),
    ("DA_ADMIN_RATELIMIT_STORAGE_URI", "redis", "DA_ADMIN_RATELIMIT_STORAGE_URI='redis' is not a storage URI"),
])
def test_a_bad_value_is_named(tmp_path: Path, name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError) as error:
        Settings.from_environ({name: value}, start=tmp_path)
    assert str(error.value).startswith(message)


def test_a_bad_value_stops_a_command_with_its_name_and_no_traceback(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["where"], env={"DA_ENV": "staging", "DA_DATABASE_URL": None,
                                                      "DA_INSTANCE_PATH": None})
    assert result.exit_code == 1
    assert "Error: DA_ENV='staging' is not an environment" in result.output and "Traceback" not in result.output


def test_secrets_never_reach_repr(tmp_path: Path) -> None:
    settings = Settings.from_environ({"DA_SECRET_KEY": "s3cr3t-key", "PROLIFIC_API_TOKEN": "t0ken-value"},
                                     start=tmp_path)
    assert settings.secret_key == "s3cr3t-key" and settings.prolific_api_token == "t0ken-value"
    assert "s3cr3t-key" not in repr(settings) and "t0ken-value" not in repr(settings)


def test_create_app_fills_its_config_from_the_settings_and_overrides_win(tmp_path: Path) -> None:
    settings = Settings.from_environ({
        "DA_DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}", "DA_SECRET_KEY": "k", "DA_ENV": "testing",
        "DA_PUBLIC_URL": "https://da.example.org", "DA_ADMIN_RATELIMIT_STORAGE_URI": "memory://",
    }, start=tmp_path)
    app = create_app({"PUBLIC_URL": "https://override.example.org"}, settings=settings)
    assert app.config["DATABASE_URL"] == settings.database_url
    assert app.config["SECRET_KEY"] == "k" and app.config["ENVIRONMENT"] == "testing"
    assert app.config["PUBLIC_URL"] == "https://override.example.org"
    assert app.config["IMAGE_FOLDER"] == str(tmp_path.resolve() / "instance" / "images")
