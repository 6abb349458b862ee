"""CLI commands that set a campaign up: ``import`` (test sets, system answers, sample data).

Each command group appends itself to ``COMMANDS``.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from sqlalchemy import select
from sqlalchemy.orm import Session

from da_platform.cli import CliContext, pass_context
from da_platform.models import System, TestSet

COMMANDS: list[click.Command] = []


def find_test_set(session: Session, name: str) -> TestSet:
    """The test set called ``name``, or a ClickException listing the ones there are."""
    test_set = session.scalar(select(TestSet).where(TestSet.name == name))
    if test_set is None:
        known = ", ".join(session.scalars(select(TestSet.name).order_by(TestSet.name))) or "none yet"
        raise click.ClickException(f"no test set named {name!r} (test sets: {known})")
    return test_set


def _run_import(context: CliContext, work) -> None:
    """Run ``work(session)`` in one transaction; an InputError becomes a one-line CLI error."""
    from analysis.errors import InputError
    from da_platform.db import transaction

    try:
        with transaction(context.sessions) as session:
            work(session)
    except InputError as error:
        raise click.ClickException(f"{error}\nnothing was imported") from None


def _describe_test_set(test_set: TestSet) -> str:
    questions = test_set.questions
    types = Counter(q.answer_type.value if q.answer_type else "unset" for q in questions)
    references = Counter(len(q.references) for q in questions)
    with_context = sum(q.context is not None for q in questions)
    return (f"test set {test_set.name!r}: {len(questions)} questions; references per question: "
            + ", ".join(f"{n}×{count}" for n, count in sorted(references.items()))
            + f"; {with_context} with context; answer types: "
            + ", ".join(f"{t} {count}" for t, count in sorted(types.items())))


def _describe_system(system: System) -> str:
    human = " (human)" if system.is_human else ""
    return f"system {system.name!r}{human}: {len(system.answers)} answers"


@click.group("import")
def import_group() -> None:
    """Import test sets and system answers (JSONL, CSV or TSV; see docs/input-formats.md).

    Each command imports all of its input or, on any error, nothing.
    """


@import_group.command("test-set")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", help="Name of the test set [default: the file name without its ending].")
@pass_context
def import_test_set_command(context: CliContext, file: Path, name: str | None) -> None:
    """Import a test set: questions with references and optional context, answer type, labels, entities."""
    from hit_builder.importers import import_test_set

    def work(session: Session) -> None:
        test_set = import_test_set(session, file, name=name)
        click.echo(f"imported {_describe_test_set(test_set)}")

    _run_import(context, work)


@import_group.command("answers")
@click.option("--test-set", "test_set_name", required=True, help="Name of the test set answered.")
@click.option("--system", help="System name when importing ONE file without a system column "
                               "[default: the file name without its ending].")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@pass_context
def import_answers_command(context: CliContext, test_set_name: str, system: str | None,
                           files: tuple[Path, ...]) -> None:
    """Import system answers: one file per system, or long tables with a system column.

    All FILES are imported together or, if any has an error, none.
    """
    from hit_builder.importers import import_system_answers

    if system is not None and len(files) > 1:
        raise click.UsageError("--system names the system of a single file; give one file or leave it out")

    def work(session: Session) -> None:
        test_set = find_test_set(session, test_set_name)
        for file in files:
            for imported in import_system_answers(session, test_set, file, system=system):
                click.echo(f"imported {_describe_system(imported)} from {file}")

    _run_import(context, work)


@import_group.command("human")
@click.option("--test-set", "test_set_name", required=True, help="Name of the test set.")
@click.option("--name", default="HUMAN", show_default=True, help="Name of the human system.")
@pass_context
def import_human_command(context: CliContext, test_set_name: str, name: str) -> None:
    """Add each question's second reference as a human system (to estimate human performance).

    The first reference stays the one shown to workers as "Answer A".
    """
    from hit_builder.importers import import_second_reference_as_human

    def work(session: Session) -> None:
        human = import_second_reference_as_human(session, find_test_set(session, test_set_name), name=name)
        click.echo(f"imported {_describe_system(human)} into test set {test_set_name!r}")

    _run_import(context, work)


@import_group.command("sample")
@click.option("--name", default="sample", show_default=True, help="Name of the sample test set.")
@click.option("--human/--no-human", default=True, show_default=True,
              help="Also add the second references as the HUMAN system.")
@pass_context
def import_sample_command(context: CliContext, name: str, human: bool) -> None:
    """Import the bundled synthetic sample: a QA test set and systems of known quality."""
    from hit_builder.sample_data import import_sample, sample_data_dir

    def work(session: Session) -> None:
        test_set = import_sample(session, name=name, human=human)
        click.echo(f"imported {_describe_test_set(test_set)}")
        for system in test_set.systems:
            click.echo(f"imported {_describe_system(system)}")
        click.echo(f"known quality order: {sample_data_dir() / 'truth.json'}")

    _run_import(context, work)


COMMANDS.append(import_group)
