"""Texts for exports: ratings joined with what was rated, and the test set and answers for the bundle.

Every text cell that a spreadsheet could take for a formula (``=``, ``+``, ``-``, ``@``, tab, CR at the
start) is written with a leading apostrophe, so opening an export never runs anything.
"""
from __future__ import annotations

import csv
import io
import json

from sqlalchemy import select
from sqlalchemy.orm import Session

from analysis import csv_safety
from analysis.table import COPY_MARK
from da_platform.db.models import Answer, Campaign, Hit, Question, Reference, Slot, System
from da_platform.providers.pool.labels import csv_cell

TEXT_COLUMNS = ("question", "reference", "candidate", "check_type")
CHECK_TYPES = {"SYSTEM": "", "REPEAT": "repeat of an ordinary item", "BAD_REF": "degraded copy of an answer",
               "REF": "the reference shown as the answer"}


def with_texts(session: Session, campaign: Campaign, ratings_csv: bytes) -> bytes:
    """The long ratings CSV plus question, reference (Answer A), candidate (what was shown) and the
    check type of every row. Copies of merged identical answers (slot ``<slot>/<system>``) get the
    texts of the slot rated."""
    slots = {str(sid): (q, r, c) for sid, q, r, c in session.execute(
        select(Slot.id, Question.text, Slot.reference_text, Slot.candidate_text)
        .join(Hit, Hit.id == Slot.hit_id).join(Question, Question.id == Slot.question_id)
        .where(Hit.campaign_id == campaign.id))}
    rows = list(csv.reader(io.StringIO(ratings_csv.decode("utf-8"))))
    header = rows[0]
    slot_at, type_at = header.index("slot"), header.index("slot_type")
    out = io.StringIO()
    writer = csv_safety.writer(out)
    writer.writerow([*header, *TEXT_COLUMNS])
    for row in rows[1:]:
        question, reference, candidate = slots[row[slot_at].split(COPY_MARK)[0]]
        writer.writerow([*row, csv_cell(question), csv_cell(reference or ""), csv_cell(candidate),
                         CHECK_TYPES.get(row[type_at], row[type_at])])
    return out.getvalue().encode("utf-8")


def test_set_files(session: Session, campaign: Campaign) -> dict[str, bytes]:
    """``test-set.jsonl`` (questions with references and metadata, importable with ``import test-set``)
    and ``answers.jsonl`` (one line per answer of every system of the campaign, with ``system``)."""
    references: dict[int, list[str]] = {}
    for question_id, text in session.execute(
            select(Reference.question_id, Reference.text).join(Question, Question.id == Reference.question_id)
            .where(Question.test_set_id == campaign.test_set_id).order_by(Reference.question_id, Reference.position)):
        references.setdefault(question_id, []).append(text)
    lines = []
    for q in session.scalars(select(Question).where(Question.test_set_id == campaign.test_set_id)
                             .order_by(Question.external_id)):
        record = {"id": q.external_id, "question": q.text, "references": references.get(q.id, [])}
        if q.context:
            record["context"] = q.context
        if q.answer_type is not None:
            record["answer_type"] = q.answer_type.value
        if q.yes_no_label:
            record["yes_no"] = q.yes_no_label
        if q.gold_entities:
            record["entities"] = q.gold_entities
        lines.append(json.dumps(record, ensure_ascii=False))
    answers = [json.dumps({"system": system, "id": qid, "answer": text}, ensure_ascii=False)
               for system, qid, text in session.execute(
                   select(System.name, Question.external_id, Answer.text)
                   .join(Answer, Answer.system_id == System.id).join(Question, Question.id == Answer.question_id)
                   .where(System.id.in_([s.id for s in campaign.systems])).order_by(System.name, Question.external_id))]
    return {"test-set.jsonl": ("\n".join(lines) + "\n").encode(), "answers.jsonl": ("\n".join(answers) + "\n").encode()}
