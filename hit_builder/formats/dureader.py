"""DuReader (v1/v2, MRC2018): JSON lines, one question per line, whatever the file's ending.

Test set: ``question_id`` → id, ``question``, ``answers`` → references, ``question_type`` (YES_NO,
ENTITY, DESCRIPTION) → answer type, ``yesno_answers`` (one label per answer) → the references' own
yes/no labels (YES_NO questions), ``entity_answers`` (one list per answer) → the references' entity
lists (ENTITY questions), ``documents`` → the context: the paragraph that best covers the answers
(:mod:`hit_builder.formats.dureader_context`). A question whose ``answers`` list is empty (the official
dev files have some) has nothing to compare against: it is left out, and counted, like SQuAD's
unanswerable questions.
Answers (the prediction format): ``question_id``, ``answers`` (the first is the answer) and
``yesno_answers`` (its first label is the system's own label).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from da_core.errors import InputError
from hit_builder.formats.dureader_context import most_related_paragraph
from hit_builder.formats.source import SourceTable, question_id
from hit_builder.readers import Record, read_json_lines

_TYPES = {"YES_NO": "yes_no", "ENTITY": "entity", "DESCRIPTION": "description"}
_TEST_SET_FIELDS = {"id": "question_id", "question": "question", "references": "answers",
                    "answer_type": "question_type", "yes_no": "yesno_answers", "entities": "entity_answers",
                    "context": "documents"}
_ANSWER_FIELDS = {"id": "question_id", "answer": "answers", "yes_no": "yesno_answers"}
#: Labels DuReader files use for "no opinion"; read as no label.
_NO_LABEL = {"no_opinion", "none", ""}


def _label(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() in _NO_LABEL:
        return None
    return value


def read_test_set(path: str | Path) -> SourceTable:
    """The questions of a DuReader file, as platform records located by line."""
    table = read_json_lines(path)
    records = []
    with_documents = without_context = 0
    unanswered: list[str] = []
    for record in table.records:
        values = record.values
        answers = values.get("answers")
        if answers == []:
            unanswered.append(question_id(values.get("question_id")))
            continue
        kind = values.get("question_type")
        converted: dict[str, Any] = {"id": values.get("question_id"), "question": values.get("question"),
                                     "references": answers}
        if values.get("documents"):
            with_documents += 1
            texts = answers if isinstance(answers, list) else []
            converted["context"] = most_related_paragraph(values["documents"], texts, file=table.file,
                                                          line=record.line)
            without_context += converted["context"] is None
        if kind is not None:
            converted["answer_type"] = _TYPES.get(kind, kind) if isinstance(kind, str) else kind
        labels = values.get("yesno_answers")
        if kind == "YES_NO" and labels:
            converted["yes_no"] = [_label(v) for v in labels] if isinstance(labels, list) else labels
        entities = values.get("entity_answers")
        if kind == "ENTITY" and entities and any(entities):
            converted["entities"] = entities
        records.append(Record(record.line, converted))
    if not records:
        raise InputError("no question in the file has answers (every 'answers' list is empty)", file=table.file,
                         field="answers")
    notes = []
    if unanswered:
        notes.append(f"left out {len(unanswered)} question(s) with no answers (an empty 'answers' list)")
    if with_documents:
        notes.append(f"context: the paragraph of the documents that best covers the answers, for "
                     f"{with_documents - without_context} question(s)"
                     + (f"; {without_context} have no paragraph sharing a word with their answers, so no context"
                        if without_context else ""))
    return SourceTable(table.file, "jsonl", tuple(_TEST_SET_FIELDS), tuple(records), source_format="dureader",
                       field_names=_TEST_SET_FIELDS, notes=tuple(notes), left_out=frozenset(unanswered))


def read_answers(path: str | Path) -> SourceTable:
    """A DuReader prediction file as platform answer records (first answer, first yes/no label)."""
    table = read_json_lines(path)
    records = []
    notes = []
    several = 0
    for record in table.records:
        values = record.values
        answers = values.get("answers")
        answer = answers[0] if isinstance(answers, list) and answers else answers
        several += isinstance(answers, list) and len(answers) > 1
        labels = values.get("yesno_answers")
        label = _label(labels[0]) if isinstance(labels, list) and labels else None
        converted = {"id": values.get("question_id"), "answer": None if answer == [] else answer}
        if label is not None:
            converted["yes_no"] = label
        records.append(Record(record.line, converted))
    if several:
        notes.append(f"{several} prediction(s) hold several answers; the first of each was imported")
    return SourceTable(table.file, "jsonl", ("id", "answer", "yes_no"), tuple(records), source_format="dureader",
                       field_names=_ANSWER_FIELDS, notes=tuple(notes))
