"""The ``da-platform`` command line: import → build → serve → collect → analyse → export.

Each area registers its commands from its own module (listed in ``_COMMAND_MODULES``). Heavy
libraries are imported inside the commands so that ``--help`` stays instant.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cached_property

import click
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from da_platform import __version__
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


def database_name(session: Session) -> str:
    """The URL of the session's database (password hidden), for messages."""
    return session.get_bind().engine.url.render_as_string(hide_password=True)


def find_campaign(session: Session, name: str):
    """The campaign called ``name``, or a ClickException listing the campaigns there are."""
    from sqlalchemy import select

    from da_platform.db.models import Campaign

    campaign = session.scalar(select(Campaign).where(Campaign.name == name))
    if campaign is None:
        known = ", ".join(session.scalars(select(Campaign.name).order_by(Campaign.name))) or "none yet"
        raise click.ClickException(f"no campaign named {name!r} (campaigns: {known}) "
                                   f"in database {database_name(session)}")
    return campaign


def find_worker(session: Session, campaign, name: str):
    """The campaign's worker called ``name``: ``source:id`` as the exports, `campaign assignments` and the
    dashboard print it, or the id alone if unique; else a ClickException saying why."""
    from sqlalchemy import select

    from da_platform.db.models import Assignment, Hit, Worker
    from da_platform.rating.campaign_ratings import worker_label

    workers = list(session.scalars(
        select(Worker).join(Assignment, Assignment.worker_id == Worker.id).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id).distinct().order_by(Worker.id)))
    matches = [w for w in workers if name in (worker_label(w.source, w.external_id), w.external_id)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(worker_label(w.source, w.external_id) for w in matches)
        raise click.ClickException(f"{name!r} names several workers of campaign {campaign.name!r} ({names}): "
                                   "give it as source:id")
    raise click.ClickException(f"no worker {name!r} in campaign {campaign.name!r} (name one as source:id, "
                               "as in the exports)")


class _Commands(click.Group):
    """The command group: a campaign's stored settings that cannot be read end a command with an error
    naming the setting, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        from da_platform.config.stored_json import CampaignSettingsError

        try:
            return super().invoke(ctx)
        except CampaignSettingsError as error:
            raise click.ClickException(str(error)) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="da-platform")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Crowdsourced Direct Assessment (DA) of question-answering and other text systems.

    The database is $DA_DATABASE_URL, else a SQLite file in $DA_INSTANCE_PATH, else the one named by
    the nearest da-platform.ini in this folder or above (written by `init`), else ./instance.
    Only init, import and admin create-user create a database. `da-platform where` shows which.
    """
    ctx.ensure_object(CliContext)


@main.command()
@pass_context
@creates_database
def init(context: CliContext) -> None:
    """Create (or upgrade) the database schema and the instance folder.

    Without $DA_DATABASE_URL, $DA_INSTANCE_PATH or a da-platform.ini above, also writes
    da-platform.ini here, so that commands run in this folder or below find this database.
    """
    from pathlib import Path

    from da_platform.config.location import find_project_file, shown_url, write_project_file

    if not context.settings.location.from_environment and find_project_file() is None:
        click.echo(f"wrote {write_project_file(Path.cwd())}")
    context.settings.instance_path.mkdir(parents=True, exist_ok=True)
    _ = context.engine
    click.echo(f"database ready: {shown_url(context.settings.database_url)}")


@main.command()
@pass_context
def where(context: CliContext) -> None:
    """Show which database and instance folder commands here use, and why (creates nothing)."""
    from da_platform.config.location import missing_database

    location = context.settings.location
    problem = missing_database(location.database_url)
    click.echo(f"database: {location.shown_url}" + (f"  ({problem})" if problem else ""))
    click.echo(f"instance folder: {location.instance_path}")
    click.echo(f"chosen by: {location.chosen_by}")


_COMMAND_MODULES = ("imports", "build", "inspect", "analyze", "metrics", "serve", "pool", "providers", "export",
                    "admin", "demo", "simulate", "lifecycle", "results", "reliability", "decide", "waves")

for _name in _COMMAND_MODULES:
    for _command in importlib.import_module(f"da_platform.cli.{_name}").COMMANDS:
        main.add_command(_command)
