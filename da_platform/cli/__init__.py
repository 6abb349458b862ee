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
from da_platform.config import Settings


@dataclass
class CliContext:
    """What every command shares: settings from the environment and a migrated database."""

    settings: Settings = field(default_factory=Settings.from_env)

    @cached_property
    def engine(self) -> Engine:
        from da_platform.db import make_engine, upgrade

        upgrade(self.settings.database_url)
        return make_engine(self.settings.database_url)

    @cached_property
    def sessions(self) -> sessionmaker[Session]:
        from da_platform.db import session_factory

        return session_factory(self.engine)


pass_context = click.make_pass_decorator(CliContext, ensure=True)


def find_campaign(session: Session, name: str):
    """The campaign called ``name``, or a ClickException listing the campaigns there are."""
    from sqlalchemy import select

    from da_platform.models import Campaign

    campaign = session.scalar(select(Campaign).where(Campaign.name == name))
    if campaign is None:
        known = ", ".join(session.scalars(select(Campaign.name).order_by(Campaign.name))) or "none yet"
        raise click.ClickException(f"no campaign named {name!r} (campaigns: {known})")
    return campaign


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="da-platform")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Crowdsourced Direct Assessment (DA) of question-answering and other text systems.

    The database is $DA_DATABASE_URL, or a SQLite file in $DA_INSTANCE_PATH (default ./instance).
    """
    ctx.ensure_object(CliContext)


@main.command()
@pass_context
def init(context: CliContext) -> None:
    """Create (or upgrade) the database schema and the instance folder."""
    context.settings.instance_path.mkdir(parents=True, exist_ok=True)
    _ = context.engine
    click.echo(f"database ready: {context.settings.database_url}")


_COMMAND_MODULES = ("campaign_setup", "analyze", "metrics", "serve", "providers", "export", "demo", "reliability")

for _name in _COMMAND_MODULES:
    for _command in importlib.import_module(f"da_platform.cli.{_name}").COMMANDS:
        main.add_command(_command)
