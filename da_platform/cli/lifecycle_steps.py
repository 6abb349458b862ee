"""What the lifecycle commands (``campaign ...``, ``test-set ...``, ``system ...``) share: ``--reason`` and
``--force``, a change made in one transaction (a refusal changes nothing), a deletion and its prepared exports,
a list printed as a table."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click
from sqlalchemy.orm import Session

from da_platform.cli.context import CliContext

if TYPE_CHECKING:
    from da_platform.campaigns.lifecycle import Deleted

ACTOR = "cli"
"""Who the audit log says made a change from the command line."""
reason_option = click.option("--reason", default="", help="Why (stored in the audit log).")
force_option = click.option("--force", is_flag=True, help="Delete even what holds ratings (an audit record stays).")


def changing(context: CliContext, work) -> None:
    """Run ``work(session)`` in one transaction; a LifecycleError or InputError becomes a CLI error."""
    from da_core.errors import InputError
    from da_platform.campaigns.lifecycle import LifecycleError
    from da_platform.db.engine import transaction

    try:
        with transaction(context.sessions) as session:
            message = work(session)
    except (LifecycleError, InputError) as error:
        raise click.ClickException(f"{error}\nnothing was changed") from None
    click.echo(message)


def deleting(context: CliContext, work: Callable[[Session], Deleted], describe: Callable[[Deleted], str]) -> None:
    """``_changing`` for a deletion; once it is committed, delete its campaigns' prepared export files
    (``<instance>/exports``; a server on another machine never offers them to another campaign)."""
    from da_platform.exports.prepared import remove_campaign_files

    done: list[Deleted] = []

    def run(session: Session) -> str:
        done.append(work(session))
        return describe(done[0])

    changing(context, run)
    for problem in remove_campaign_files(context.settings.instance_path / "exports", done[0].prepared):
        click.echo(f"warning: could not delete the prepared exports {problem}", err=True)


def print_rows(headers: list[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a list as a plain table (none: "none")."""
    from da_platform.cli.tables import plain_table

    click.echo(plain_table(headers, rows) if rows else "none")
