"""Where the database is: one rule for every command and for the web application.

In order, the first that applies:

1. ``$DA_DATABASE_URL`` (any SQLAlchemy URL);
2. ``$DA_INSTANCE_PATH``: the SQLite file ``da-platform.sqlite`` in that folder;
3. a project file ``da-platform.ini`` in the current folder or the nearest parent that has one (found
   upward, as git finds ``.git``): its ``database_url``, else ``instance`` (a folder, relative to the
   project file; default ``instance``) holding ``da-platform.sqlite``;
4. ``./instance/da-platform.sqlite``.

``da-platform init`` writes the project file, so that every later command run anywhere below that
folder uses the same database. Only commands that create data (``init``, ``import``, ``admin
create-user``) may create a database; every other command refuses, naming the URL it tried
(:func:`missing_database`).
"""
from __future__ import annotations

import configparser
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROJECT_FILE = "da-platform.ini"
SECTION = "da-platform"
DATABASE_FILE = "da-platform.sqlite"


class LocationError(ValueError):
    """The project file cannot be read (the message names it)."""


@dataclass(frozen=True)
class Location:
    """The database URL and instance folder in use, and which rule chose them."""

    database_url: str
    instance_path: Path
    chosen_by: str
    project_file: Path | None = None

    @property
    def from_environment(self) -> bool:
        """Chosen by $DA_DATABASE_URL or $DA_INSTANCE_PATH (not by a project file or the default)."""
        return self.chosen_by in ("$DA_DATABASE_URL", "$DA_INSTANCE_PATH")

    @property
    def shown_url(self) -> str:
        """The URL with any password hidden (for messages)."""
        return shown_url(self.database_url)


def shown_url(url: str) -> str:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:  # not a URL SQLAlchemy understands: show it as given
        return url


def find_project_file(start: Path | None = None) -> Path | None:
    """``da-platform.ini`` in ``start`` (default: the current folder) or the nearest parent."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / PROJECT_FILE
        if path.is_file():
            return path
    return None


def read_project_file(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as error:
        raise LocationError(f"{path}: not a readable project file: {error}") from None
    if not parser.has_section(SECTION):
        raise LocationError(f"{path}: no [{SECTION}] section")
    return dict(parser[SECTION])


def locate(env: Mapping[str, str], start: Path | None = None) -> Location:
    """The database and instance folder by the rule of the module docstring; ``env`` holds the
    variables (``da_platform.config.settings.Settings.from_environ`` passes them)."""
    url = env.get("DA_DATABASE_URL")
    instance_env = env.get("DA_INSTANCE_PATH")
    if instance_env:
        instance = Path(instance_env).resolve()
        if url:
            return Location(url, instance, "$DA_DATABASE_URL")
        return Location(_sqlite(instance), instance, "$DA_INSTANCE_PATH")
    project = find_project_file(start)
    if project is not None:
        values = read_project_file(project)
        instance = (project.parent / values.get("instance", "instance")).resolve()
        if url:
            return Location(url, instance, "$DA_DATABASE_URL", project)
        if values.get("database_url"):
            return Location(values["database_url"], instance, f"database_url in {project}", project)
        return Location(_sqlite(instance), instance, f"instance in {project}", project)
    instance = ((start or Path.cwd()) / "instance").resolve()
    if url:
        return Location(url, instance, "$DA_DATABASE_URL")
    return Location(_sqlite(instance), instance, "default ./instance (no $DA_DATABASE_URL, $DA_INSTANCE_PATH "
                                                 f"or {PROJECT_FILE} found)")


def _sqlite(instance: Path) -> str:
    return f"sqlite:///{instance / DATABASE_FILE}"


def write_project_file(folder: Path) -> Path:
    """Write ``da-platform.ini`` in ``folder`` pointing at ``folder/instance``."""
    path = folder / PROJECT_FILE
    path.write_text(f"# da-platform project: commands run in this folder or below use this database.\n"
                    f"[{SECTION}]\ninstance = instance\n"
                    "# database_url = postgresql+psycopg://user@host/dbname   (instead of SQLite)\n",
                    encoding="utf-8")
    return path


def missing_database(url: str) -> str | None:
    """Why the database at ``url`` cannot be used without creating it, or None when it exists
    with the platform's schema. Creates nothing."""
    from sqlalchemy import inspect
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError

    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        if not Path(url.removeprefix("sqlite:///")).is_file():
            return "no database file there"
    elif url.startswith("sqlite"):
        return None  # in memory: created per process anyway
    from da_platform.db.engine import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table("alembic_version"):
                return "the database has no da-platform tables"
    except SQLAlchemyError as error:
        cause = error.orig if isinstance(error, DBAPIError) else None  # the driver's own message, when there is one
        return f"cannot connect: {str(cause or error).strip().splitlines()[0]}"
    finally:
        engine.dispose()
    return None
