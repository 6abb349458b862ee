"""Import test sets and system answers into the database (docs/method.md §1).

Each function reads and checks a whole file first and adds nothing unless every record is good,
so a caller that runs it inside :func:`da_platform.db.engine.transaction` leaves the database exactly as
it was on any :class:`~da_core.errors.InputError`. Rows are inserted (bulk, flushed), not committed;
the returned objects load their questions and answers lazily.

File formats and field names: ``docs/input-formats.md``.
"""
from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from pathlib import Path

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from da_core.files import input_stem
from da_platform.db.models import Answer, Question, Reference, System, TestSet
from hit_builder.formats import notes_of, read_answers_input, read_test_set_input
from hit_builder.readers import Table
from hit_builder.records import AnswerRecord, check_name, parse_predictions, parse_test_set

#: How many ids an error message lists before saying "and N more".
_LISTED = 5


def import_test_set(session: Session, path: str | Path, *, name: str | None = None, format: str = "auto",
                    notes: list[str] | None = None) -> TestSet:
    """Add the test set in ``path`` named ``name`` (default: the file's name without its ending(s), ``.gz`` too).

    ``format``: the platform's JSONL/CSV/TSV or a standard QA format (``hit_builder.formats``; ``auto``
    guesses); what a converted file leaves out is appended to ``notes``.
    """
    table = read_test_set_input(path, format)
    if notes is not None:
        notes.extend(notes_of(table))
    records = parse_test_set(table)
    name = check_name(input_stem(path) if name is None else name, table, field="name", what="test set")
    if session.scalar(select(TestSet.id).where(TestSet.name == name)) is not None:
        raise table.error(f"a test set named {name!r} already exists; choose another name", field="name")
    left_out = sorted(getattr(table, "left_out", ()))
    test_set = TestSet(name=name, source_file=table.file, left_out_ids=left_out or None)
    session.add(test_set)
    session.flush()
    _insert(session, Question, ({"test_set_id": test_set.id, "external_id": r.id, "text": r.question,
                                 "context": r.context, "answer_type": r.answer_type, "yes_no_label": r.yes_no,
                                 "gold_entities": list(r.entities) if r.entities else None} for r in records))
    question_ids = _question_ids(session, test_set)
    _insert(session, Reference, (
        {"question_id": question_ids[r.id], "position": position, "text": text,
         "yes_no_label": r.reference_labels[position] if r.reference_labels else None,
         "entities": list(r.reference_entities[position]) if r.reference_entities else None}
        for r in records for position, text in enumerate(r.references)))
    return test_set


def import_system_answers(
    session: Session, test_set: TestSet, path: str | Path, *, system: str | None = None, format: str = "auto",
    notes: list[str] | None = None, allow_missing: bool = False,
) -> list[System]:
    """Add the systems whose answers are in ``path``: one system per file, or a long table.

    A file without a ``system`` field holds one system, named ``system`` (default: the file's stem).
    A file with one holds several; ``system`` must then be None. Every system must answer every
    question of the test set exactly once (``allow_missing``: a system may abstain on some questions,
    or give the format's "no answer", SQuAD v2.0's ``""``; each abstention is reported in ``notes``), and
    its name must be new in the test set. Predictions for questions the test set's import left out
    (``TestSet.left_out_ids``) are skipped and counted in ``notes``; any other unknown id is an error.
    ``format`` and ``notes`` as for ``import_test_set``.
    """
    table = read_answers_input(path, format)
    if notes is not None:
        notes.extend(notes_of(table))
    predictions = parse_predictions(table, frozenset(test_set.left_out_ids or ()))
    records = sorted(predictions.answers + predictions.no_answer, key=lambda r: r.line)
    if not records:
        raise table.error(f"every prediction in the file is for a question test set {test_set.name!r} left out "
                          "when it was imported (no reference answers): nothing to import", field="id")
    if predictions.left_out and notes is not None:
        skipped = list(dict.fromkeys(predictions.left_out))
        notes.append(f"skipped {_count(predictions.left_out, 'prediction')} for questions test set "
                     f"{test_set.name!r} left out when it was imported (no reference answers): {_listing(skipped)}")
    long_table = records[0].system is not None
    if long_table and system is not None:
        raise table.error("the file names the system of each answer, so no system name may be given",
                          line=table.header_line or records[0].line, field="system")
    default = check_name(input_stem(path) if system is None else system, table, field="system", what="system")
    groups: dict[str, list[AnswerRecord]] = {}
    for record in records:
        groups.setdefault(record.system or default, []).append(record)

    question_ids = _question_ids(session, test_set)
    _check_new_systems(session, test_set, table, groups, long_table)
    for record in records:
        if record.id not in question_ids:
            raise table.error(f"no question with id {record.id!r} in test set {test_set.name!r}",
                              line=record.line, field="id")
    for name, answers in groups.items():
        answered = {a.id for a in answers if a.answer}
        missing = [qid for qid in question_ids if qid not in answered]
        given_no_answer = len(answers) - len(answered)
        how = f" ({given_no_answer} of them with the file's no-answer, \"\")" if given_no_answer else ""
        if missing and not allow_missing:
            raise table.error(f"system {name!r} has no answer for {_count(missing, 'question')} of test set "
                              f"{test_set.name!r}{how}: {_listing(missing)} (--allow-missing if it abstains on "
                              "them)", field="id")
        if missing and notes is not None:
            notes.append(f"system {name!r} abstains on {_count(missing, 'question')}{how}: {_listing(missing)}")

    systems = [System(test_set=test_set, name=name, is_human=False, source_file=table.file) for name in groups]
    session.add_all(systems)
    session.flush()
    _insert(session, Answer, ({"system_id": new.id, "question_id": question_ids[a.id], "text": a.answer,
                               "yes_no_label": a.yes_no}
                              for new, answers in zip(systems, groups.values()) for a in answers if a.answer))
    return systems


def import_second_reference_as_human(session: Session, test_set: TestSet, *, name: str = "HUMAN",
                                     notes: list[str] | None = None) -> System:
    """Add a system ``name`` (is_human) whose answers are each question's second reference.

    The first reference stays the one shown to workers. A question with one reference only has no second
    annotator to stand for a human: the system abstains on it (``build --allow-missing`` leaves those items
    out), and the questions are counted in ``notes``; a test set where no question has a second reference is
    refused. Each answer carries its reference's yes/no label (or the question's), as a system's own label.
    """
    source = Table(test_set.source_file or f"test set {test_set.name}", "", (), ())
    name = check_name(name, source, field="system", what="system")
    _check_new_systems(session, test_set, source, {name: []}, long_table=False)
    rows = session.execute(
        select(Question.id, Question.external_id, Reference.text,
               func.coalesce(Reference.yes_no_label, Question.yes_no_label))
        .outerjoin(Reference, (Reference.question_id == Question.id) & (Reference.position == 1))
        .where(Question.test_set_id == test_set.id)
        .order_by(Question.id)
    ).all()
    lacking = [external_id for _, external_id, text, _ in rows if text is None]
    if len(lacking) == len(rows):
        raise source.error(f"no question of test set {test_set.name!r} has a second reference, which a {name} "
                           f"system needs (each of its {_count(lacking, 'question')} has one reference)",
                           field="references")
    if lacking and notes is not None:
        notes.append(f"left out of {name} {_count(lacking, 'question')} of {len(rows)} with one reference only "
                     f"(no second annotator): {_listing(lacking)}; {name} abstains on them, so build with "
                     "--allow-missing, which leaves those items out")
    human = System(test_set=test_set, name=name, is_human=True, source_file=test_set.source_file)
    session.add(human)
    session.flush()
    _insert(session, Answer, [{"system_id": human.id, "question_id": question_id, "text": text, "yes_no_label": label}
                              for question_id, _, text, label in rows if text is not None])
    return human


def identical_to_first_reference(session: Session, system: System) -> list[str]:
    """Ids of the questions whose answer by ``system`` is exactly their first reference.

    For a ``HUMAN`` system (second references) these are questions whose two references agree: the
    metrics score such an answer as perfect, and a rating of it measures nothing about humans.
    """
    query = (select(Question.external_id)
             .join(Answer, Answer.question_id == Question.id)
             .join(Reference, (Reference.question_id == Question.id) & (Reference.position == 0))
             .where(Answer.system_id == system.id, Answer.text == Reference.text)
             .order_by(Question.id))
    return list(session.scalars(query))


#: The share of a system's answers that, given word for word as a reference of their question, makes it look like
#: a reference itself (scored against itself by the metrics): ``import answers`` warns.
REFERENCE_SHARE = 0.5


def given_as_references(session: Session, system: System) -> dict[int, list[str]]:
    """The ids of the questions ``system`` answers with one of their references word for word (ignoring space at
    either end), by that reference's position (0: the first), positions in order."""
    rows = session.execute(
        select(Reference.position, Question.external_id)
        .join(Question, Question.id == Reference.question_id)
        .join(Answer, (Answer.question_id == Question.id) & (Answer.system_id == system.id))
        .where(func.trim(Answer.text) == func.trim(Reference.text))
        .order_by(Reference.position, Question.id)).all()
    found: dict[int, list[str]] = {}
    for position, external_id in rows:
        found.setdefault(position, []).append(external_id)
    return found


def reference_warning(session: Session, system: System) -> str | None:
    """A warning when at least :data:`REFERENCE_SHARE` of ``system``'s answers are a reference of their question
    word for word (a reference imported as a system), else None; a human system (``import human``) is scored
    against the other references, so it gets none."""
    if system.is_human:
        return None
    answers = session.scalar(select(func.count()).where(Answer.system_id == system.id)) or 0
    by_position = given_as_references(session, system)
    same = len({question for questions in by_position.values() for question in questions})
    if not answers or same < REFERENCE_SHARE * answers:
        return None
    which = ", ".join(f"{_ordinal(position)} reference {len(q)}" for position, q in by_position.items())
    return (f"warning: system {system.name!r} gives a reference of its question word for word in {same} of its "
            f"{answers} answers ({which}): the metrics score those answers against themselves, as perfect. If it "
            "stands for human performance, import the references with `da-platform import human` (scored against "
            "the other references) instead")


def _ordinal(position: int) -> str:
    return ("first", "second", "third")[position] if position < 3 else f"{position + 1}th"


def _question_ids(session: Session, test_set: TestSet) -> dict[str, int]:
    """Database id of each question by its id in the file, in file order."""
    query = select(Question.external_id, Question.id).where(Question.test_set_id == test_set.id)
    return {external_id: question_id for external_id, question_id in session.execute(query.order_by(Question.id))}


_BATCH = 5_000


def _insert(session: Session, model: type, rows: Iterable[dict]) -> None:
    """Bulk INSERT (one statement per batch of ``_BATCH`` rows, no ORM objects): imports of 100,000
    answers stay fast, and only one batch of parameters is held at a time."""
    rows = iter(rows)
    while batch := list(islice(rows, _BATCH)):
        session.execute(insert(model), batch)


def _check_new_systems(session: Session, test_set: TestSet, table: Table, groups: dict[str, list[AnswerRecord]],
                       long_table: bool) -> None:
    taken = set(session.scalars(select(System.name).where(System.test_set_id == test_set.id)))
    for name, answers in groups.items():
        if name in taken:
            how = "" if long_table else " (give another name)"
            raise table.error(f"test set {test_set.name!r} already has a system named {name!r}{how}",
                              line=answers[0].line if long_table and answers else None, field="system")


def _count(items: list[str], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _listing(ids: list[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_LISTED])
    return shown + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")
