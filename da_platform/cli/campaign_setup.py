"""CLI commands that set a campaign up: ``import`` (test sets, system answers, sample data).

Each command group appends itself to ``COMMANDS``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_platform.cli import CliContext, database_name, find_campaign, pass_context
from da_platform.models import Answer, Question, Reference, System, TestSet

COMMANDS: list[click.Command] = []


def find_test_set(session: Session, name: str) -> TestSet:
    """The test set called ``name``, or a ClickException listing the ones there are."""
    test_set = session.scalar(select(TestSet).where(TestSet.name == name))
    if test_set is None:
        known = ", ".join(session.scalars(select(TestSet.name).order_by(TestSet.name))) or "none yet"
        raise click.ClickException(f"no test set named {name!r} (test sets: {known}) "
                                   f"in database {database_name(session)}")
    return test_set


def _run_import(context: CliContext, work: Callable[[Session], list[str]]) -> None:
    """Run ``work(session)`` in one transaction and print its summary lines once committed.

    An InputError becomes a CLI error (file:line: field: message) and nothing is imported.
    """
    from da_core.errors import InputError
    from da_platform.db import transaction

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
@click.option("--test-set", "test_set_name", required=True, help="Name of the test set answered.")
@click.option("--system", help="System name when importing ONE file without a system column "
                               "[default: the file name without its ending].")
@click.option("--allow-missing", is_flag=True, help="A system may abstain on some questions (no answer): "
                                                    "the abstentions are reported, and build leaves those items out.")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@_format_option
@pass_context
def import_answers_command(context: CliContext, test_set_name: str, system: str | None,
                           files: tuple[Path, ...], file_format: str, allow_missing: bool) -> None:
    """Import system answers: one file per system, or long tables with a system column.

    All FILES are imported together or, if any has an error, none.
    """
    from da_platform.building.importers import import_system_answers

    if system is not None and len(files) > 1:
        raise click.UsageError("--system names the system of a single file; give one file or leave it out")

    def work(session: Session) -> list[str]:
        from hit_builder.reading import long_answers

        test_set = find_test_set(session, test_set_name)
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
        return lines + [f"note: {note}" for note in notes] + ([warning] if warning else [])

    _run_import(context, work)


@import_group.command("human")
@click.option("--test-set", "test_set_name", required=True, help="Name of the test set.")
@click.option("--name", default="HUMAN", show_default=True, help="Name of the human system.")
@pass_context
def import_human_command(context: CliContext, test_set_name: str, name: str) -> None:
    """Add each question's second reference as a human system (to estimate human performance).

    The first reference stays the one shown to workers as "Answer A".
    """
    from da_platform.building.importers import (
        identical_to_first_reference,
        import_second_reference_as_human,
    )

    def work(session: Session) -> list[str]:
        human = import_second_reference_as_human(session, find_test_set(session, test_set_name), name=name)
        lines = [f"imported {_describe_system(session, human)} into test set {test_set_name!r}"]
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
    from da_platform.building.sample import import_sample
    from hit_builder.sample_data import sample_data_dir

    def work(session: Session) -> list[str]:
        test_set = import_sample(session, name=name, human=human)
        return ([f"imported {_describe_test_set(session, test_set)}"]
                + [f"imported {_describe_system(session, system)}" for system in test_set.systems]
                + [f"known quality of every answer: {sample_data_dir() / 'truth.json'}"])

    _run_import(context, work)


COMMANDS.append(import_group)


# -- build and inspect ------------------------------------------------------------------------------

@click.command("build")
@click.option("--test-set", "test_set_name", required=True, help="Name of the imported test set.")
@click.option("--name", required=True, help="Name of the new campaign.")
@click.option("--criterion", type=click.Choice(["adequacy", "fluency", "custom"]), default="adequacy",
              show_default=True, help="What workers judge (custom: give --statement and a reference flag).")
@click.option("--statement", help="The statement workers rate, for --criterion custom.")
@click.option("--show-reference/--hide-reference", default=None,
              help="Whether a custom criterion shows the reference as Answer A.")
@click.option("--systems", help="Comma-separated system names [default: every system of the test set].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the HIT assembly and degradation.")
@click.option("--passes", type=click.IntRange(min=1), default=1, show_default=True,
              help="Passes over the items (more ratings per item).")
@click.option("--max-hits-per-worker", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many HITs of this campaign one worker may take.")
@click.option("--font", "fonts", multiple=True,
              help="Font file (path, or path#face for a .ttc); repeat for a fallback chain "
                   "[default: $DA_FONT, else Noto Sans CJK SC then DejaVu Sans].")
@click.option("--images", "image_folder", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the answer images when $DA_IMAGE_STORE is folder (the default) "
                   "[default: $DA_IMAGE_FOLDER or INSTANCE/images]; $DA_IMAGE_STORE=database or s3 "
                   "writes them to the database or the object store instead.")
@click.option("--id-salt", help="Salt of the public ids, to reproduce an earlier build exactly "
                                "[default: random, stored with the campaign].")
@click.option("--processes", type=click.IntRange(min=1), help="Rendering processes [default: all cores "
                                                               "for large campaigns].")
@click.option("--merge-identical/--no-merge-identical", default=True, show_default=True,
              help="Rate an answer that several systems gave to the same question once, and count the rating "
                   "for each of them (as WMT did).")
@click.option("--lang", default="en", show_default=True,
              help="Language of the worker pages: en or zh-Hans (shipped), or any tag with --messages.")
@click.option("--messages", "messages_file", type=click.Path(dir_okay=False, path_type=Path),
              help="PO catalogue of the worker pages for a language not shipped (start from "
                   "da_platform/web/translations/worker.pot).")
@click.option("--instructions", "instructions_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Your own instruction text (Markdown, shown escaped) above the standard instructions.")
@click.option("--contact", help="Contact line shown in the instructions (e.g. an e-mail address).")
@click.option("--pay", help="Pay shown in the instructions, e.g. '2.00 USD' [default: from the campaign's "
                            "MTurk or Prolific settings when known].")
@click.option("--minutes", type=click.IntRange(min=1), help="Expected time in minutes shown in the instructions.")
@click.option("--example", "example_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Example item (JSON: question, reference, good, bad, good_note, bad_note) "
                   "[default: the shipped one for en and zh-Hans, adequacy and fluency].")
@click.option("--practice/--no-practice", default=False, show_default=True,
              help="Let workers rate the example's answers for practice before the HIT (never stored).")
@click.option("--show-context/--hide-context", default=False, show_default=True,
              help="Let workers open each question's context passage (collapsed by default).")
@click.option("--allow-missing", is_flag=True, help="Leave out the items of systems that abstain on a question "
                                                    "(imported with --allow-missing) instead of refusing to build.")
@click.option("--layout", type=click.Choice(["classic", "hardened"]), default="classic", show_default=True,
              help="HIT layout: classic = the published 70/10/10/10 (reproduces WMT); hardened = 60 SYSTEM "
                   "+ 10 each of BAD_REF, REPEAT, REF and MEANING (meaning-change checks against text-overlap "
                   "raters).")
@click.option("--render", "render_name", type=click.Choice(["plain", "hardened"]), default="plain",
              show_default=True, help="Answer images: plain, or hardened = drawn to resist OCR bots (jittered "
                                      "glyphs, mixed fonts, light texture; same size and AA contrast).")
@pass_context
def build_command(context: CliContext, test_set_name: str, name: str, criterion: str,
                  statement: str | None, show_reference: bool | None, systems: str | None, seed: int,
                  passes: int, max_hits_per_worker: int, fonts: tuple[str, ...], image_folder: Path | None,
                  id_salt: str | None, processes: int | None, merge_identical: bool, lang: str,
                  messages_file: Path | None, instructions_file: Path | None, contact: str | None,
                  pay: str | None, minutes: int | None, example_file: Path | None, practice: bool,
                  show_context: bool, layout: str, render_name: str, allow_missing: bool) -> None:
    """Build a campaign: HITs of 100 slots with hidden checks, degraded answers and answer images.

    Everything is checked before anything is stored: on any error nothing is built.
    """
    from da_core.errors import BuildError, InputError
    from da_platform.building.build import build_campaign
    from da_platform.db import transaction
    from da_platform.image_store import ImageStoreError, open_image_storage, settings_config
    from hit_builder.ocr_resistant import render_style
    from hit_builder.storage import StoreUnavailable
    from hit_builder.worker_settings import WorkerPageOptions, read_example

    if image_folder is not None and context.settings.image_store != "folder":
        raise click.UsageError(f"--images is for DA_IMAGE_STORE=folder (it is {context.settings.image_store!r})")
    try:
        storage = open_image_storage(settings_config(context.settings, image_folder))
    except ImageStoreError as error:
        raise click.ClickException(str(error)) from None
    bar = None

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label=f"{stage} images", show_pos=True)
            bar.__enter__()
        bar.update(done - bar.pos)

    warnings: list[str] = []
    try:
        worker = WorkerPageOptions(
            lang=lang, instructions=_read_text(instructions_file) if instructions_file else None,
            contact=contact, pay=pay, minutes=minutes,
            example=read_example(example_file) if example_file else None, practice=practice,
            show_context=show_context, messages=_read_messages(messages_file) if messages_file else None)
        with transaction(context.sessions) as session:
            campaign = build_campaign(
                session, name=name, test_set=find_test_set(session, test_set_name),
                systems=[s.strip() for s in systems.split(",") if s.strip()] if systems else None,
                criterion=criterion, statement=statement, show_reference=show_reference, seed=seed,
                passes=passes, max_hits_per_worker=max_hits_per_worker,
                storage=storage, font_paths=list(fonts or context.settings.font_paths),
                progress=progress, id_salt=id_salt, processes=processes, merge_identical=merge_identical,
                worker=worker, warn=warnings.append, layout=layout, allow_missing=allow_missing,
                style=render_style(render_name))
            settings = campaign.settings
            hits = settings["assembly"]["hits"]
    except (BuildError, InputError, StoreUnavailable) as error:
        raise click.ClickException(f"{error}\nnothing was built") from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    click.echo(f"built campaign {name!r}: {hits} HITs of 100 slots over {settings['assembly']['items']} items, "
               f"{settings['render']['images']} images in {_where(storage)}")
    merged = settings.get("identical_answers")
    if merged and not merged["saved"]:
        click.echo("no identical answers to merge")
    elif merged:
        click.echo(f"identical answers merged: {merged['saved']} of {merged['items_before']} items are rated once "
                   f"for several systems ({len(merged['groups'])} groups; --no-merge-identical rates each)")
    for system_name, skipped in settings.get("abstentions", {}).items():
        click.echo(f"{system_name} abstains on {len(skipped)} question(s): those items are not rated "
                   f"({', '.join(skipped[:5])}{', ...' if len(skipped) > 5 else ''})")
    for warning in warnings:
        click.echo(warning, err=True)
    click.echo(f"see its composition with: da-platform inspect {name!r} --hit 0")


def _read_text(path: Path) -> str:
    from da_core.errors import BuildError

    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise BuildError(f"{path}: cannot read it ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise BuildError(f"{path}: not UTF-8 text (byte {error.start})") from None


def _read_messages(path: Path) -> dict[str, str]:
    from da_platform.web.i18n import load_catalogue

    return load_catalogue(path)


def _where(storage: object) -> str:
    """Where a storage keeps its images, for a message (the folder, or the store's description)."""
    folder = getattr(storage, "folder", None)
    return str(folder) if folder is not None else repr(storage)


def _table(headers: list[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[("" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


@click.command("inspect")
@click.argument("campaign_name")
@click.option("--hit", "hit_index", type=click.IntRange(min=0),
              help="Show the composition of HIT N (numbered from 0).")
@pass_context
def inspect_command(context: CliContext, campaign_name: str, hit_index: int | None) -> None:
    """Summarise a built campaign, verify its HITs, and show one HIT's composition as a table."""
    from da_core.errors import BuildError
    from da_platform.building.inspection import campaign_summary, hit_composition, verify_campaign
    from hit_builder.layouts import layout_named

    with context.sessions() as session:
        campaign = find_campaign(session, campaign_name)
        summary = campaign_summary(session, campaign)
        click.echo(f"campaign {summary.name!r} ({summary.status}) on test set {summary.test_set!r}")
        click.echo(f"criterion: {summary.criterion}: {summary.statement!r}; reference "
                   + ("shown" if summary.show_reference else "not shown"))
        click.echo(f"systems ({len(summary.systems)}): {', '.join(summary.systems)}")
        click.echo(f"seed {summary.seed}, {summary.passes} pass(es): {summary.hits} HITs, {summary.items} items; "
                   "ordinary ratings per item: "
                   + ", ".join(f"{n}×{count}" for n, count in summary.ratings_per_item.items()))
        click.echo(f"layout: {summary.layout}")
        click.echo("slots: " + ", ".join(f"{n} {t}" for t, n in summary.slots_by_type.items() if n or t != "MEANING")
                   + f"; {summary.images} distinct images; degradation: {summary.degradation}")
        try:
            checked = verify_campaign(session, campaign)
            click.echo(f"verified: all {checked} HITs hold {layout_named(summary.layout).composition()}, "
                       "each check in the partner half")
        except BuildError as error:
            raise click.ClickException(f"verification failed: {error}") from None
        if hit_index is not None:
            try:
                rows = hit_composition(session, campaign, hit_index)
            except BuildError as error:
                raise click.ClickException(str(error)) from None
            click.echo(f"\nHIT {hit_index}:")
            click.echo(_table(["position", "set", "type", "system", "question", "original"],
                              [[r.position, r.set_index, r.slot_type, r.system, r.question, r.original_position]
                               for r in rows]))


COMMANDS += [build_command, inspect_command]
