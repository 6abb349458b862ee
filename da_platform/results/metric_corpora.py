"""The systems' answers as metric corpora (``analysis.metrics.scoring.SystemCorpus``), aligned with the references
and annotations of their questions: a test set's from the database, or test set and answer files in the import
formats without one. ``metrics`` and ``validate-metrics`` score them.

Bad input raises :class:`da_core.errors.InputError` (a system the test set does not have, a file's error with its
line and field); an answer that cannot be aligned, ``ValueError`` (``system_corpus``). Notes about what is left out
go to ``note``; a warning that a system gives its questions' references word for word (scored against itself) to
``warn``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from analysis.metrics import QuestionInfo
from analysis.metrics.scoring import QuestionEntry, SystemCorpus, system_corpus
from da_core.errors import InputError
from da_core.files import input_stem
from da_platform.building.importers import REFERENCE_SHARE
from da_platform.db.models import Question, System, TestSet
from hit_builder.formats import notes_of, read_answers_input, read_test_set_input
from hit_builder.records import parse_predictions, parse_test_set


def _question_info(answer_type, yes_no_label, gold_entities, references):
    return QuestionInfo(answer_type=answer_type, yes_no_label=yes_no_label, gold_entities=tuple(gold_entities or ()),
                        reference_labels=tuple(references))


def corpora_from_database(session: Session, test_set: TestSet, systems: Sequence[str] | None,
                          guess_labels: bool = False, *, note: Callable[[str], None],
                          warn: Callable[[str], None]) -> list[SystemCorpus]:
    """The answers of the test set's systems, with the references and annotations of their questions (a human
    system's only of those it answers: :func:`_answered_by_human`)."""
    questions = session.scalars(select(Question).where(Question.test_set_id == test_set.id)
                                .options(selectinload(Question.references)).order_by(Question.id)).all()
    entries = [QuestionEntry(q.external_id, tuple(r.text for r in q.references), _question_info(
        q.answer_type.value if q.answer_type else None, q.yes_no_label, q.gold_entities,
        [r.yes_no_label for r in q.references])) for q in questions]
    query = (select(System).where(System.test_set_id == test_set.id)
             .options(selectinload(System.answers)).order_by(System.id))
    found = list(session.scalars(query).all())
    if systems is not None:
        names = {s.name for s in found}
        missing = [s for s in systems if s not in names]
        if missing:
            raise InputError(f"test set {test_set.name!r} has no system {', '.join(missing)} "
                             f"(it has: {', '.join(sorted(names)) or 'none'})")
        found = [s for s in found if s.name in systems]
    if not found:
        raise InputError(f"test set {test_set.name!r} has no systems to score")
    by_id = {q.id: q.external_id for q in questions}
    corpora = [system_corpus(s.name, {by_id[a.question_id]: a.text for a in s.answers},
                             _answered_by_human(s, entries, by_id, note) if s.is_human else entries,
                             is_human=s.is_human, guess_labels=guess_labels,
                             labels={by_id[a.question_id]: a.yes_no_label for a in s.answers})
               for s in found]
    _warn_if_references(corpora, warn, frozenset(s.name for s in found if s.is_human))
    return corpora


def _warn_if_references(corpora: Sequence[SystemCorpus], warn: Callable[[str], None],
                        human: frozenset[str] = frozenset()) -> None:
    """Say when a system (not ``human``) gives its questions' references word for word in at least
    ``importers.REFERENCE_SHARE`` of its answers: the metrics score those answers against themselves."""
    for corpus in corpora:
        if corpus.system in human or not corpus.hypotheses:
            continue
        same = sum(answer.strip() in {reference.strip() for reference in references}
                   for answer, references in zip(corpus.hypotheses, corpus.references))
        if same >= REFERENCE_SHARE * len(corpus.hypotheses):
            warn(f"system {corpus.system!r} gives a reference of its question word for word in {same} of its "
                 f"{len(corpus.hypotheses)} answers: it is scored against itself there (perfect on every metric); a "
                 "human baseline is `import human`'s, scored against the other references")


def _answered_by_human(system: System, entries: list[QuestionEntry], by_id: dict[int, str],
                       note: Callable[[str], None]) -> list[QuestionEntry]:
    """The questions a human system answers: ``import human`` leaves out those with one reference only (no
    second annotator), so it is scored on the others, and a note says so."""
    answered = {by_id[a.question_id] for a in system.answers}
    scored = [entry for entry in entries if entry.id in answered]
    if len(scored) < len(entries):
        note(f"{system.name} (human) is scored on the {len(scored)} of {len(entries)} questions it answers (the "
             f"other {len(entries) - len(scored)} have one reference only); the other systems on all of them")
    return scored


def corpora_from_files(references: Path, answers: Sequence[Path], systems: Sequence[str] | None,
                       guess_labels: bool = False, *, note: Callable[[str], None],
                       warn: Callable[[str], None]) -> list[SystemCorpus]:
    """Test set and answer files in the import formats (hit_builder readers), scored without a database.

    Scoring needs no question text, so reference files without one (the MRC2018 evaluation kit's) are read.
    """
    reference_table = read_test_set_input(references)
    for text in notes_of(reference_table):
        note(text)
    questions = parse_test_set(reference_table, need_questions=False)
    entries = [QuestionEntry(q.id, q.references, _question_info(
        q.answer_type.value if q.answer_type else None, q.yes_no, q.entities,
        q.reference_labels or ())) for q in questions]
    known = {q.id for q in questions}
    left_out: frozenset[str] = getattr(reference_table, "left_out", frozenset())
    unscored = no_answers = 0
    grouped: dict[str, dict[str, str]] = {}
    labels: dict[str, dict[str, str | None]] = {}
    for path in answers:
        table = read_answers_input(path)
        predictions = parse_predictions(table, left_out)
        unscored += len(predictions.left_out)
        no_answers += len(predictions.no_answer)
        for record in sorted(predictions.answers + predictions.no_answer, key=lambda r: r.line):
            if record.id not in known:
                raise table.error(f"no question with id {record.id!r} in {references}", line=record.line,
                                  field="id")
            name = record.system or input_stem(path)
            if record.system is None and name in grouped and record.id in grouped[name]:
                raise table.error(f"system {name!r} is given twice (file names must differ)", field="system")
            grouped.setdefault(name, {})[record.id] = record.answer
            labels.setdefault(name, {})[record.id] = record.yes_no
    if unscored:
        note(f"{unscored} answer(s) to questions left out of {references} (no reference answers) are not scored")
    if no_answers:
        note(f"{no_answers} prediction(s) give no answer (\"\") to a question with reference answers: each is "
             "scored as an empty answer, as SQuAD v2.0's evaluation script scores it")
    names = systems if systems is not None else list(grouped)
    missing = [s for s in names if s not in grouped]
    if missing:
        raise InputError(f"no answers for system {', '.join(missing)}")
    corpora = [system_corpus(name, grouped[name], entries, labels=labels[name], guess_labels=guess_labels)
               for name in names]
    _warn_if_references(corpora, warn)
    return corpora
