"""What every command shares: the settings from the environment and the database (shared by all command modules)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import click
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from da_platform.config.settings import Settings


def _settings() -> Settings:
    """The settings, read from the environment once per command (here and only here in the CLI)."""
    import os

    from da_platform.config.location import LocationError
    from da_platform.config.settings import SettingsError

    try:
        return Settings.from_environ(os.environ)
    except (LocationError, SettingsError) as error:
        raise click.ClickException(str(error)) from None


@dataclass
class CliContext:
    """What every command shares: settings from the environment and a migrated database.

    Only commands that create data set ``may_create`` (:func:`creates_database`); for the others a
    missing database is an error naming the URL tried (``da_platform.config.location``), never a new one.
    """

    settings: Settings = field(default_factory=_settings)
    may_create: bool = False

    @cached_property
    def engine(self) -> Engine:
        from da_platform.config.location import missing_database, shown_url
        from da_platform.db.engine import make_engine, upgrade

        url = self.settings.database_url
        if not self.may_create:
            problem = missing_database(url)
            if problem is not None:
                chosen = self.settings.location.chosen_by
                raise click.ClickException(
                    f"no da-platform database at {shown_url(url)} ({problem}; chosen by {chosen}). Run "
                    "`da-platform init` to create one here, or set $DA_DATABASE_URL / $DA_INSTANCE_PATH "
                    "(see `da-platform where`).")
        upgrade(url)
        return make_engine(url, sqlite_commit=self.settings.sqlite_commit)

    @cached_property
    def sessions(self) -> sessionmaker[Session]:
        from da_platform.db.engine import session_factory

        return session_factory(self.engine)


pass_context = click.make_pass_decorator(CliContext, ensure=True)


def creates_database(command):
    """Mark a command function (under ``@pass_context``) as one that may create the database."""
    import functools

    @functools.wraps(command)
    def wrapper(context: CliContext, *args, **kwargs):
        context.may_create = True
        return command(context, *args, **kwargs)

    return wrapper
