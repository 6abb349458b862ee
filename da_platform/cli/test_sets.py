"""CLI: ``test-set list|delete``, ``system list|delete|replace`` (``da_platform.campaigns`` does the work)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from sqlalchemy.orm import Session

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.lifecycle_steps import ACTOR, changing, deleting, force_option, print_rows, reason_option
from da_platform.cli.params import SYSTEM, TEST_SET, NamedSystem, NamedTestSet

if TYPE_CHECKING:
    from da_platform.campaigns.lifecycle import Deleted


@click.group("test-set")
def test_set_group() -> None:
    """List or delete test sets."""


@test_set_group.command("list")
@pass_context
def test_set_list(context: CliContext) -> None:
    """Every test set with its questions, systems and campaigns."""
    from da_platform.campaigns.listing import list_test_sets

    with context.sessions() as session:
        rows = [[t.name, t.questions, ", ".join(t.systems), ", ".join(t.campaigns)] for t in list_test_sets(session)]
    print_rows(["test set", "questions", "systems", "campaigns"], rows)


@test_set_group.command("delete")
@click.argument("name", type=TEST_SET)
@force_option
@reason_option
@pass_context
def test_set_delete(context: CliContext, name: NamedTestSet, force: bool, reason: str) -> None:
    """Delete test set NAME with its systems (refused if it has campaigns, unless --force)."""
    from da_platform.campaigns.lifecycle import delete_test_set

    deleting(context, lambda session: delete_test_set(session, name.find(session), force=force, actor=ACTOR,
                                                       reason=reason), _with_campaigns)


def _with_campaigns(deleted: Deleted) -> str:
    also = f", campaigns {', '.join(deleted.campaigns)}" if deleted.campaigns else ""
    return f"deleted {deleted.what}{also} ({deleted.ratings} ratings)"


@click.group("system")
def system_group() -> None:
    """List, delete or replace the answers of systems."""


@system_group.command("list")
@click.option("--test-set", "test_set", type=TEST_SET, help="Only this test set.")
@pass_context
def system_list(context: CliContext, test_set: NamedTestSet | None) -> None:
    """Every system with its test set and answer count."""
    from da_platform.campaigns.listing import list_systems

    with context.sessions() as session:
        rows = [[s.test_set, s.name, "yes" if s.is_human else "", s.answers]
                for s in list_systems(session, test_set.find(session) if test_set is not None else None)]
    print_rows(["test set", "system", "human", "answers"], rows)


@system_group.command("delete")
@click.option("--test-set", "test_set", type=TEST_SET, required=True, help="The system's test set.")
@click.argument("name", type=SYSTEM)
@force_option
@reason_option
@pass_context
def system_delete(context: CliContext, test_set: NamedTestSet, name: NamedSystem, force: bool, reason: str) -> None:
    """Delete system NAME and its answers (refused if a campaign rates it, unless --force)."""
    from da_platform.campaigns.lifecycle import delete_system

    deleting(context, lambda session: delete_system(session, name.find(session, test_set.find(session)), force=force,
                                                     actor=ACTOR, reason=reason), _with_campaigns)


@system_group.command("replace")
@click.option("--test-set", "test_set", type=TEST_SET, required=True, help="The system's test set.")
@click.argument("name", type=SYSTEM)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@reason_option
@pass_context
def system_replace(context: CliContext, test_set: NamedTestSet, name: NamedSystem, file: Path, reason: str) -> None:
    """Replace every answer of system NAME with FILE's (checked as `import answers` checks them).

    Refused once a built campaign shows the system's answers.
    """
    from da_platform.campaigns.lifecycle import replace_answers

    def work(session: Session) -> str:
        system = name.find(session, test_set.find(session))
        count = replace_answers(session, system, file, actor=ACTOR, reason=reason)
        return f"replaced the answers of system {system.name!r}: {count} answers from {file}"

    changing(context, work)
