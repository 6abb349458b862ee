"""Importing an automatic judge's per-answer scores into a test set (``da-platform import judge-scores``).

Every score must name a system of the test set and a question it answered; on any error nothing is
imported. A judge's scores are replaced only when asked (``replace``). Quality control uses them in
``analysis.behaviour`` (``beyond_automatic``): a worker whose ratings add nothing the crowd sees beyond
them is flagged for review.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from da_core.errors import InputError
from da_platform.db.models import Answer, JudgeScore, Question, System, TestSet
from hit_builder.judge_scores import parse_judge_scores
from hit_builder.readers import read_table
from hit_builder.records import check_name


@dataclass(frozen=True)
class JudgeImport:
    """What an import did: the judge, the answers scored, and how many of the test set's answers have none."""

    judge: str
    scored: int
    replaced: int
    unscored: int


def import_judge_scores(session: Session, test_set: TestSet, path: str | Path, *, judge: str,
                        replace: bool = False) -> JudgeImport:
    """Read ``path`` (JSONL, CSV or TSV: system, id, score) and store its scores as ``judge``'s."""
    table = read_table(path)
    name = check_name(judge, table, field="judge", what="judge")
    records = parse_judge_scores(table)
    systems = dict(session.execute(select(System.name, System.id).where(System.test_set_id == test_set.id)).all())
    questions = dict(session.execute(select(Question.external_id, Question.id)
                                     .where(Question.test_set_id == test_set.id)).all())
    answers = {(system, question): answer for system, question, answer in session.execute(
        select(Answer.system_id, Answer.question_id, Answer.id).join(System, System.id == Answer.system_id)
        .where(System.test_set_id == test_set.id)).all()}
    rows = []
    for record in records:
        system = systems.get(record.system)
        if system is None:
            raise InputError(f"no system {record.system!r} in test set {test_set.name!r} (systems: "
                             f"{', '.join(sorted(systems)) or 'none'})", file=table.file, line=record.line,
                             field="system")
        question = questions.get(record.question)
        if question is None:
            raise InputError(f"no question {record.question!r} in test set {test_set.name!r}", file=table.file,
                             line=record.line, field="id")
        answer = answers.get((system, question))
        if answer is None:
            raise InputError(f"system {record.system!r} has no answer to question {record.question!r}",
                             file=table.file, line=record.line, field="id")
        rows.append(dict(answer_id=answer, judge=name, score=record.score))
    existing = select(JudgeScore.id).join(Answer, Answer.id == JudgeScore.answer_id).join(
        System, System.id == Answer.system_id).where(System.test_set_id == test_set.id, JudgeScore.judge == name)
    replaced = len(session.scalars(existing).all())
    if replaced and not replace:
        raise InputError(f"judge {name!r} has scores for {replaced} answers of test set {test_set.name!r} already: "
                         "import with --replace to replace them", file=table.file)
    if replaced:
        session.execute(delete(JudgeScore).where(JudgeScore.id.in_(existing.scalar_subquery())))
    session.add_all(JudgeScore(**row) for row in rows)
    session.flush()
    return JudgeImport(name, len(rows), replaced, len(answers) - len(rows))


def judges_of(session: Session, test_set_id: int) -> dict[str, int]:
    """The judges with scores in a test set, with how many answers each scored."""
    return dict(session.execute(
        select(JudgeScore.judge, func.count(JudgeScore.id)).join(Answer, Answer.id == JudgeScore.answer_id)
        .join(System, System.id == Answer.system_id).where(System.test_set_id == test_set_id)
        .group_by(JudgeScore.judge).order_by(JudgeScore.judge)).all())
