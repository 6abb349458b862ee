"""Importing an automatic judge's per-answer scores into a test set (``da-platform import judge-scores``).

Every score must name a system of the test set and a question it answered; on any error nothing is
imported. A judge's scores are replaced only when asked (``replace``). Quality control uses them in
``analysis.behaviour_signals`` (``beyond_automatic``): a worker whose ratings add nothing the crowd sees beyond
them is flagged for review.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path

import numpy
from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from da_core.errors import InputError
from da_platform.db.models import Answer, JudgeScore, Question, System, TestSet
from hit_builder.judge_scores import JudgeScoreRecord, read_judge_scores, second_value
from hit_builder.readers import Table, stream_table
from hit_builder.records import check_name


@dataclass(frozen=True)
class JudgeImport:
    """What an import did: the judge, the answers scored, and how many of the test set's answers have none."""

    judge: str
    scored: int
    replaced: int
    unscored: int


BATCH = 5_000  # scores inserted at a time


def import_judge_scores(session: Session, test_set: TestSet, path: str | Path, *, judge: str,
                        replace: bool = False) -> JudgeImport:
    """Read ``path`` (JSONL, CSV or TSV: system, id, score) and store its scores as ``judge``'s.

    The file is read one record at a time and each score inserted as it is read (in batches), so a file
    of any size costs the memory of the test set's answer index, and the first bad line stops the import
    (the caller's transaction then stores nothing)."""
    table = stream_table(path)
    name = check_name(judge, table, field="judge", what="judge")
    existing = select(JudgeScore.id).join(Answer, Answer.id == JudgeScore.answer_id).join(
        System, System.id == Answer.system_id).where(System.test_set_id == test_set.id, JudgeScore.judge == name)
    replaced = session.scalar(select(func.count()).select_from(existing.subquery())) or 0
    if replaced and not replace:
        raise InputError(f"judge {name!r} has scores for {replaced} answers of test set {test_set.name!r} already: "
                         "import with --replace to replace them", file=table.file)
    if replaced:
        session.execute(delete(JudgeScore).where(JudgeScore.id.in_(existing.scalar_subquery())))
    answers = _AnswerIndex(session, test_set)
    batch: list[dict[str, object]] = []
    scored = 0
    for record in read_judge_scores(table):
        batch.append(dict(answer_id=answers.find(record, table), judge=name, score=record.score))
        if len(batch) == BATCH:
            scored += _insert(session, batch)
    scored += _insert(session, batch)
    return JudgeImport(name, scored, replaced, len(answers) - scored)


def _insert(session: Session, rows: list[dict[str, object]]) -> int:
    if rows:
        session.execute(insert(JudgeScore), rows)
    done = len(rows)
    rows.clear()
    return done


class _AnswerIndex:
    """The test set's answers by system name and question id, in arrays (24 bytes an answer, not a dict's
    hundreds), with the line that scored each."""

    def __init__(self, session: Session, test_set: TestSet) -> None:
        self.test_set = test_set.name
        self.systems = dict(session.execute(select(System.name, System.id)
                                            .where(System.test_set_id == test_set.id)).all())
        self.questions = dict(session.execute(select(Question.external_id, Question.id)
                                              .where(Question.test_set_id == test_set.id)).all())
        self.stride = max(self.questions.values(), default=0) + 1
        keys, ids = array("q"), array("q")
        rows = session.execute(select(Answer.system_id, Answer.question_id, Answer.id)
                               .join(System, System.id == Answer.system_id)
                               .where(System.test_set_id == test_set.id).execution_options(yield_per=BATCH))
        for system, question, answer in rows:
            keys.append(system * self.stride + question)
            ids.append(answer)
        order = numpy.argsort(numpy.frombuffer(keys, dtype=numpy.int64), kind="stable")
        self.keys = array("q", numpy.frombuffer(keys, dtype=numpy.int64)[order].tobytes())  # sorted, for bisect
        self.ids = array("q", numpy.frombuffer(ids, dtype=numpy.int64)[order].tobytes())
        self.lines = array("q", bytes(8 * len(self.ids)))  # the line that scored each answer (0: none yet)

    def __len__(self) -> int:
        return len(self.ids)

    def find(self, record: JudgeScoreRecord, table: Table) -> int:
        """The answer ``record`` scores; an error naming its line if there is none or it was scored before."""
        system = self.systems.get(record.system)
        if system is None:
            raise table.error(f"no system {record.system!r} in test set {self.test_set!r} (systems: "
                              f"{', '.join(sorted(self.systems)) or 'none'})", line=record.line, field="system")
        question = self.questions.get(record.question)
        if question is None:
            raise table.error(f"no question {record.question!r} in test set {self.test_set!r}", line=record.line,
                              field="id")
        key = system * self.stride + question
        position = bisect_left(self.keys, key)
        if position == len(self.keys) or self.keys[position] != key:
            raise table.error(f"system {record.system!r} has no answer to question {record.question!r}",
                              line=record.line, field="id")
        if self.lines[position]:
            raise table.error(second_value("score", record, self.lines[position]), line=record.line, field="id")
        self.lines[position] = record.line
        return self.ids[position]


def judges_of(session: Session, test_set_id: int) -> dict[str, int]:
    """The judges with scores in a test set, with how many answers each scored."""
    return dict(session.execute(
        select(JudgeScore.judge, func.count(JudgeScore.id)).join(Answer, Answer.id == JudgeScore.answer_id)
        .join(System, System.id == Answer.system_id).where(System.test_set_id == test_set_id)
        .group_by(JudgeScore.judge).order_by(JudgeScore.judge)).all())
