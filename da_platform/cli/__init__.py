"""The ``da-platform`` command line: import → build → serve → collect → analyse → export.

Each area registers its commands from its own module (listed in ``_COMMAND_MODULES``). Heavy
libraries are imported inside the commands so that ``--help`` stays instant.
"""
from __future__ import annotations

import importlib

import click
from sqlalchemy.orm import Session

from da_platform import __version__
from da_platform.cli.context import CliContext, creates_database, pass_context
from da_platform.cli.params import NamedCampaign, NamedWorker
from da_platform.db.rows import database_name as database_name


def find_campaign(session: Session, name: str):
    """The campaign ``name`` names (its name, else its id), or a ClickException listing the campaigns there are."""
    return NamedCampaign(name).find(session)


def find_worker(session: Session, campaign, name: str):
    """The campaign's worker called ``name``: ``source:id`` as the exports, `campaign assignments` and the
    dashboard print it, or the id alone if unique; else a ClickException saying why."""
    return NamedWorker(name).find(session, campaign)


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
                    "admin", "demo", "simulate", "lifecycle", "results", "reliability", "decide")

for _name in _COMMAND_MODULES:
    for _command in importlib.import_module(f"da_platform.cli.{_name}").COMMANDS:
        main.add_command(_command)
