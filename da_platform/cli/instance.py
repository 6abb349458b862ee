"""``da-platform init`` and ``where``: the database and instance folder the commands here use."""
from __future__ import annotations

import click

from da_platform.cli.context import CliContext, creates_database, pass_context


@click.command()
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


@click.command()
@pass_context
def where(context: CliContext) -> None:
    """Show which database and instance folder commands here use, and why (creates nothing)."""
    from da_platform.config.location import missing_database

    location = context.settings.location
    problem = missing_database(location.database_url)
    click.echo(f"database: {location.shown_url}" + (f"  ({problem})" if problem else ""))
    click.echo(f"instance folder: {location.instance_path}")
    click.echo(f"chosen by: {location.chosen_by}")
