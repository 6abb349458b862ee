"""MS MARCO (v2.1 QA): JSON lines, one query per line.

Test set: ``query_id`` → id, ``query`` → question, ``answers`` → references (MS MARCO's
"No Answer Present." is no reference; a query with no other answer is left out, and counted), the
passages marked ``is_selected`` → context. Answers (the evaluation format): ``query_id`` and
``answers`` (the first is the answer).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from hit_builder.formats.source import SourceTable, distinct, question_id
from hit_builder.readers import Record, read_json_lines

NO_ANSWER = "No Answer Present."
_TEST_SET_FIELDS = {"id": "query_id", "question": "query", "references": "answers", "context": "passages"}
_ANSWER_FIELDS = {"id": "query_id", "answer": "answers"}


def _context(passages: Any) -> str | None:
    if not isinstance(passages, list):
        return None
    selected = [p["passage_text"] for p in passages
                if isinstance(p, dict) and p.get("is_selected") in (1, True) and isinstance(p.get("passage_text"), str)]
    return "\n\n".join(selected) or None


def read_test_set(path: str | Path) -> SourceTable:
    """The queries of an MS MARCO file that have an answer, as platform records located by line."""
    table = read_json_lines(path)
    records = []
    unanswered: list[str] = []
    for record in table.records:
        values = record.values
        answers = values.get("answers")
        if isinstance(answers, list) and all(isinstance(a, str) for a in answers):
            answers = distinct([a for a in answers if a.strip() != NO_ANSWER])
            if not answers:
                unanswered.append(question_id(values.get("query_id")))
                continue
        records.append(Record(record.line, {"id": values.get("query_id"), "question": values.get("query"),
                                            "references": answers, "context": _context(values.get("passages"))}))
    notes = (f"left out {len(unanswered)} quer(y/ies) with no answer ('{NO_ANSWER}')",) if unanswered else ()
    return SourceTable(table.file, "jsonl", tuple(_TEST_SET_FIELDS), tuple(records), source_format="msmarco",
                       field_names=_TEST_SET_FIELDS, notes=notes, left_out=frozenset(unanswered))


def read_answers(path: str | Path) -> SourceTable:
    """An MS MARCO prediction file (``query_id``, ``answers``) as platform answer records."""
    table = read_json_lines(path)
    records = []
    for record in table.records:
        answers = record.values.get("answers")
        answer = answers[0] if isinstance(answers, list) and answers else answers
        records.append(Record(record.line, {"id": record.values.get("query_id"),
                                            "answer": None if answer == [] else answer}))
    return SourceTable(table.file, "jsonl", ("id", "answer"), tuple(records), source_format="msmarco",
                       field_names=_ANSWER_FIELDS)
