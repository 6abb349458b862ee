"""``da-platform import``: test sets, system answers, the second references as a human system,
and the bundled sample.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import TEST_SET, NamedTestSet
from da_platform.db.models import Answer, Question, Reference, System, TestSet


def _run_import(context: CliContext, work: Callable[[Session], list[str]]) -> None:
    """Run ``work(session)`` in one transaction and print its summary lines once committed.

    An InputError becomes a CLI error (file:line: field: message) and nothing is imported.
    """
    from da_core.errors import InputError
    from da_platform.db.engine import transaction

    context.may_create = True  # importing is how a project's data begins
    try:
        with transaction(context.sessions) as session:
            summary = work(session)
    except InputError as error:
        raise click.ClickException(f"{error}\nnothing was imported") from None
    for line in summary:
        click.echo(line)


def _describe_test_set(session: Session, test_set: TestSet) -> str:
    """One line: how many questions, references per question, contexts and answer types."""
    questions = select(Question).where(Question.test_set_id == test_set.id).subquery()
    types = session.execute(select(questions.c.answer_type, func.count()).group_by(questions.c.answer_type)).all()
    with_context = session.scalar(select(func.count()).where(questions.c.context.is_not(None)))
    per_question = (select(func.count(Reference.id).label("n")).join(questions, Reference.question_id == questions.c.id)
                    .group_by(Reference.question_id).subquery())
    references = session.execute(select(per_question.c.n, func.count()).group_by(per_question.c.n)).all()
    total = sum(count for _, count in types)
    type_counts = sorted((t.value if t else "unset", count) for t, count in types)
    return (f"test set {test_set.name!r}: {total} questions; references per question: "
            + ", ".join(f"{n}×{count}" for n, count in sorted(references))
            + f"; {with_context} with context; answer types: "
            + ", ".join(f"{t} {count}" for t, count in type_counts))


def _describe_system(session: Session, system: System) -> str:
    answers = session.scalar(select(func.count()).where(Answer.system_id == system.id))
    return f"system {system.name!r}{' (human)' if system.is_human else ''}: {answers} answers"


@click.group("import")
def import_group() -> None:
    """Import test sets and system answers (JSONL, CSV or TSV; see docs/input-formats.md).

    Each command imports all of its input or, on any error, nothing.
    """


_FORMAT_CHOICES = ["auto", "platform", "squad", "cmrc", "dureader", "msmarco"]


def _format_option(command):
    return click.option("--format", "file_format", type=click.Choice(_FORMAT_CHOICES), default="auto",
                        show_default=True,
                        help="File format: the platform's JSONL/CSV/TSV, SQuAD (v1.1/v2.0) or CMRC JSON, DuReader "
                             "or MS MARCO JSON lines; auto guesses from the file.")(command)


@import_group.command("test-set")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", help="Name of the test set [default: the file name without its ending].")
@_format_option
@pass_context
def import_test_set_command(context: CliContext, file: Path, name: str | None, file_format: str) -> None:
    """Import a test set: questions with references and optional context, answer type, labels, entities."""
    from da_platform.building.importers import import_test_set

    def work(session: Session) -> list[str]:
        notes: list[str] = []
        test_set = import_test_set(session, file, name=name, format=file_format, notes=notes)
        return [f"imported {_describe_test_set(session, test_set)}"] + [f"note: {note}" for note in notes]

    _run_import(context, work)


@import_group.command("answers")
@click.option("--test-set", "test_set_name", type=TEST_SET, required=True, help="Name of the test set answered.")
@click.option("--system", help="System name when importing ONE file without a system column "
                               "[default: the file name without its ending].")
@click.option("--allow-missing", is_flag=True, help="A system may abstain on some questions (no answer): "
                                                    "the abstentions are reported, and build leaves those items out.")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@_format_option
@pass_context
def import_answers_command(context: CliContext, test_set_name: NamedTestSet, system: str | None,
                           files: tuple[Path, ...], file_format: str, allow_missing: bool) -> None:
    """Import system answers: one file per system, or long tables with a system column.

    All FILES are imported together or, if any has an error, none.
    """
    from da_platform.building.importers import import_system_answers, reference_warning

    if system is not None and len(files) > 1:
        raise click.UsageError("--system names the system of a single file; give one file or leave it out")

    def work(session: Session) -> list[str]:
        from hit_builder.reading import long_answers

        test_set = test_set_name.find(session)
        notes: list[str] = []
        lines, systems = [], []
        for file in files:
            for imported in import_system_answers(session, test_set, file, system=system, format=file_format,
                                                  notes=notes, allow_missing=allow_missing):
                lines.append(f"imported {_describe_system(session, imported)} from {file}")
                systems.append(imported)
        session.flush()
        rows = session.execute(
            select(System.name, Question.external_id, Answer.text).join(Answer, Answer.system_id == System.id)
            .join(Question, Question.id == Answer.question_id).where(System.id.in_([s.id for s in systems])))
        warning = long_answers((f"{name}/{question}", text) for name, question, text in rows).warning()
        references = [found for imported in systems if (found := reference_warning(session, imported))]
        return lines + [f"note: {note}" for note in notes] + ([warning] if warning else []) + references

    _run_import(context, work)


@import_group.command("human")
@click.option("--test-set", "test_set_name", type=TEST_SET, required=True, help="Name of the test set.")
@click.option("--name", default="HUMAN", show_default=True, help="Name of the human system.")
@pass_context
def import_human_command(context: CliContext, test_set_name: NamedTestSet, name: str) -> None:
    """Add each question's second reference as a human system (to estimate human performance).

    The first reference stays the one shown to workers as "Answer A". Questions with one reference only
    are left out of the human system and counted (it abstains on them: build with --allow-missing).
    """
    from da_platform.building.importers import (
        identical_to_first_reference,
        import_second_reference_as_human,
    )

    def work(session: Session) -> list[str]:
        test_set = test_set_name.find(session)
        notes: list[str] = []
        human = import_second_reference_as_human(session, test_set, name=name, notes=notes)
        lines = [f"imported {_describe_system(session, human)} into test set {test_set.name!r}"]
        lines += [f"note: {note}" for note in notes]
        same = identical_to_first_reference(session, human)
        if same:
            shown = ", ".join(repr(q) for q in same[:5]) + (f" and {len(same) - 5} more" if len(same) > 5 else "")
            lines.append(f"warning: for {len(same)} question(s) the second reference equals the first "
                         f"({shown}); metrics score {name} as perfect there")
        return lines

    _run_import(context, work)


@import_group.command("sample")
@click.option("--name", default="sample", show_default=True, help="Name of the sample test set.")
@click.option("--human/--no-human", default=True, show_default=True,
              help="Also add the second references as the HUMAN system.")
@pass_context
def import_sample_command(context: CliContext, name: str, human: bool) -> None:
    """Import the bundled synthetic sample: a QA test set and systems of known quality."""
    from da_platform.simulation.sample import import_sample
    from da_platform.simulation.sample_data import sample_data_dir

    def work(session: Session) -> list[str]:
        test_set = import_sample(session, name=name, human=human)
        return ([f"imported {_describe_test_set(session, test_set)}"]
                + [f"imported {_describe_system(session, system)}" for system in test_set.systems]
                + [f"known quality of every answer: {sample_data_dir() / 'truth.json'}"])

    _run_import(context, work)


@import_group.command("judge-scores")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--test-set", "test_set_name", type=TEST_SET, required=True,
              help="Name of the test set whose answers were judged.")
@click.option("--judge", required=True, help="Name of the judge (e.g. the LLM and prompt you used).")
@click.option("--replace", is_flag=True, help="Replace this judge's scores if it has some in the test set already.")
@pass_context
def import_judge_scores_command(context: CliContext, file: Path, test_set_name: NamedTestSet, judge: str,
                                replace: bool) -> None:
    """Import an automatic judge's score of each answer (JSONL/CSV/TSV: system, id, score; any scale).

    Quality control then asks of every worker whether their ratings carry information beyond these scores
    and the text overlap (docs/quality-control.md): a worker whose ratings a judge like this one explains
    better than the crowd's is flagged for review. See docs/input-formats.md for the format.
    """
    from da_platform.building.judges import import_judge_scores

    def work(session: Session) -> list[str]:
        test_set = test_set_name.find(session)
        done = import_judge_scores(session, test_set, file, judge=judge, replace=replace)
        lines = [f"imported {done.scored} score(s) of judge {done.judge!r} into test set {test_set.name!r}"
                 + (f", replacing {done.replaced}" if done.replaced else "")]
        if done.unscored:
            lines.append(f"note: {done.unscored} answer(s) of the test set have no score of this judge: quality "
                         "control compares the workers' ratings with the judge on the scored answers only")
        return lines

    _run_import(context, work)
