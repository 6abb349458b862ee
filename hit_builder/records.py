"""What the fields of a test-set file and of a system-answers file mean, and checks on each value.

Turns a :class:`~hit_builder.readers.Table` into typed records, or raises
:class:`~da_core.errors.InputError` at the first bad value (file, line, field). The database is
not touched here; checks that need it (unknown question ids, names already taken) live in
:mod:`da_platform.building.importers`.

Text policy: every text value is Unicode-normalised to NFC (so that text composed in different
ways compares, scores and renders as the same text), surrounding whitespace is stripped, and
line breaks become ``\n``, and other control characters than tab and line break are rejected
(PostgreSQL cannot store NUL).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal, overload

from da_core.enums import AnswerType
from da_core.errors import InputError
from hit_builder.readers import Record, Table

#: Longest id and name the database stores.
MAX_NAME_LENGTH = 200
#: Accepted yes/no labels (DuReader's Yes / No / Depends), stored in lower case.
YES_NO_LABELS = ("yes", "no", "depends")
#: Separator of gold entities in a CSV/TSV cell.
ENTITY_SEPARATOR = ";"

TEST_SET_FIELDS_JSONL = ("id", "question", "references", "context", "answer_type", "yes_no", "entities")
TEST_SET_FIELDS_TABLE = ("id", "question", "reference", "context", "answer_type", "yes_no", "entities")
ANSWER_FIELDS = ("id", "answer", "system", "yes_no")

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_EXTRA_REFERENCE = re.compile(r"reference_(\d+)")
_HINTS = {
    ("jsonl", "reference"): "JSONL test sets give all references as a list: \"references\": [\"...\", \"...\"]",
    ("csv", "references"): "CSV/TSV test sets give references in columns reference, reference_2, ...",
}


@dataclass(frozen=True)
class QuestionRecord:
    """One question of a test set as read from its file."""

    line: int
    id: str
    question: str
    references: tuple[str, ...]
    context: str | None = None
    answer_type: AnswerType | None = None
    yes_no: str | None = None
    entities: tuple[str, ...] | None = None
    reference_labels: tuple[str | None, ...] | None = None
    """Each reference's own yes/no label, when the file gives one per reference."""
    reference_entities: tuple[tuple[str, ...], ...] | None = None
    """Each reference's gold entities, when the file gives a list per reference (``entities`` is the union)."""


@dataclass(frozen=True)
class AnswerRecord:
    """One system answer as read from its file; ``system`` is None in a one-system file."""

    line: int
    id: str
    answer: str
    system: str | None = None
    yes_no: str | None = None
    """The yes/no label the system gave with its answer (``yes``, ``no``, ``depends``)."""


def normalize_text(value: str) -> str:
    """The platform's form of a text value: NFC, line breaks as ``\\n``, no surrounding whitespace."""
    return unicodedata.normalize("NFC", value).replace("\r\n", "\n").replace("\r", "\n").strip()


def check_name(value: str, table: Table, *, field: str, what: str, line: int | None = None) -> str:
    """A normalised, non-empty name (test set, system) short enough for the database."""
    name = normalize_text(value)
    if not name:
        raise table.error(f"the {what} name is empty", line=line, field=field)
    if len(name) > MAX_NAME_LENGTH:
        raise table.error(f"the {what} name is longer than {MAX_NAME_LENGTH} characters", line=line, field=field)
    if _CONTROL.search(name) or "\n" in name or "\t" in name:
        raise table.error(f"the {what} name contains a control character", line=line, field=field)
    return name


class _Fields:
    """Typed access to one record's values, raising errors located at that record."""

    def __init__(self, table: Table, record: Record) -> None:
        self.table = table
        self.record = record

    def error(self, message: str, field: str) -> InputError:
        return self.table.error(message, line=self.record.line, field=field)

    def raw(self, field: str) -> Any:
        return self.record.values.get(field)

    @overload
    def text(self, field: str, *, required: Literal[True]) -> str: ...
    @overload
    def text(self, field: str, *, required: bool) -> str | None: ...
    def text(self, field: str, *, required: bool) -> str | None:
        value = self.raw(field)
        if value is None:
            if required:
                raise self.error("missing (the field is required)", field)
            return None
        if not isinstance(value, str):
            raise self.error(f"must be text, not {_json_type(value)}", field)
        return self._clean(value, field, required=required)

    def identifier(self, field: str) -> str:
        value = self.raw(field)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        elif value is not None and not isinstance(value, str):
            raise self.error(f"must be text or a whole number, not {_json_type(value)}", field)
        if value is None:
            raise self.error("missing (every record needs an id)", field)
        text = self._clean(value, field, required=True)
        if len(text) > MAX_NAME_LENGTH:
            raise self.error(f"longer than {MAX_NAME_LENGTH} characters", field)
        if "\n" in text or "\t" in text:
            raise self.error("an id cannot contain a tab or a line break", field)
        return text

    def text_list(self, field: str) -> tuple[str, ...] | None:
        """A JSON list of non-empty texts (None when absent or null)."""
        value = self.raw(field)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.error(f"must be a list of texts, not {_json_type(value)}", field)
        items = tuple(self._clean(item, field, required=False) for item in value)
        for position, item in enumerate(items, start=1):
            if not item:
                raise self.error(f"item {position} of the list is empty", field)
        return tuple(item for item in items if item)  # all non-empty (checked above): the filter types them str

    @overload
    def _clean(self, value: str, field: str, *, required: Literal[True]) -> str: ...
    @overload
    def _clean(self, value: str, field: str, *, required: bool) -> str | None: ...
    def _clean(self, value: str, field: str, *, required: bool) -> str | None:
        text = normalize_text(value)
        match = _CONTROL.search(text)
        if match:
            raise self.error(f"contains the control character U+{ord(match.group()):04X}", field)
        if not text:
            if required:
                raise self.error("is empty", field)
            return None
        return text


def _json_type(value: Any) -> str:
    names = {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _check_fields(table: Table, allowed: set[str], required: tuple[str, ...], accepted: tuple[str, ...]) -> None:
    """Unknown or missing fields: for CSV/TSV at the header, for JSONL at the first record concerned."""
    hint_format = "jsonl" if table.format == "jsonl" else "csv"
    listing = ", ".join(accepted).replace("reference,", "reference, reference_2, ...,")
    if table.format != "jsonl":
        for name in table.fields:
            if name not in allowed:
                hint = _HINTS.get((hint_format, name), f"the accepted columns are {listing}")
                raise table.error(f"unknown column: {hint}", line=table.header_line, field=name)
        for name in required:
            if name not in table.fields:
                raise table.error(f"the required column is missing (columns: {listing})",
                                  line=table.header_line, field=name)
        return
    for record in table.records:
        for name in record.values:
            if name not in allowed:
                hint = _HINTS.get((hint_format, name), f"the accepted fields are {listing}")
                raise table.error(f"unknown field: {hint}", line=record.line, field=name)


def _reference_columns(table: Table) -> list[str]:
    """``reference``, ``reference_2``, ... in order; gaps in the numbering are an error."""
    numbers = sorted(int(m.group(1)) for name in table.fields if (m := _EXTRA_REFERENCE.fullmatch(name)))
    for expected, number in enumerate(numbers, start=2):
        if number != expected:
            raise table.error(f"reference columns must be numbered reference, reference_2, reference_3, ... "
                              f"without gaps; reference_{expected} is missing",
                              line=table.header_line, field=f"reference_{number}")
    return ["reference"] + [f"reference_{n}" for n in numbers]


def _references(fields: _Fields, columns: list[str] | None) -> tuple[str, ...]:
    if columns is None:  # JSONL
        if fields.raw("references") is None:
            raise fields.error("missing (every question needs at least one reference answer)", "references")
        references = fields.text_list("references") or ()
        if not references:
            raise fields.error("the list is empty (every question needs at least one reference)", "references")
        return references
    filled: list[str] = []
    empty_column: str | None = None
    for column in columns:
        text = fields.text(column, required=column == "reference")
        if text is None:
            empty_column = empty_column or column
        elif empty_column is not None:
            raise fields.error(f"{empty_column} is empty but {column} is not; fill the references in order",
                               column)
        else:
            filled.append(text)
    return tuple(filled)


def _answer_type(fields: _Fields) -> AnswerType | None:
    value = fields.text("answer_type", required=False)
    if value is None:
        return None
    try:
        return AnswerType(value.lower())
    except ValueError:
        choices = ", ".join(t.value for t in AnswerType)
        raise fields.error(f"unknown answer type {value!r}: use one of {choices} (or leave it empty)",
                           "answer_type") from None


def _label(fields: _Fields, value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise fields.error(f"a yes/no label must be text, not {_json_type(value)}", field)
    label = normalize_text(value).lower()
    if not label:
        return None
    if label not in YES_NO_LABELS:
        raise fields.error(f"unknown yes/no label {value!r}: use one of {', '.join(YES_NO_LABELS)}", field)
    return label


def _yes_no(fields: _Fields, answer_type: AnswerType | None,
            references: int) -> tuple[str | None, tuple[str | None, ...] | None]:
    """The question's label and the references' own labels (one label, or one per reference)."""
    value = fields.raw("yes_no")
    if isinstance(value, str) and ENTITY_SEPARATOR in value and fields.table.format != "jsonl":
        value = value.split(ENTITY_SEPARATOR)
    if isinstance(value, list):
        if len(value) != references:
            raise fields.error(f"{len(value)} yes/no labels for {references} references: give one label per "
                               f"reference (empty for none) or a single label for all", "yes_no")
        labels = tuple(_label(fields, item, "yes_no") for item in value)
        question, per_reference = (labels[0] if len(set(labels)) == 1 else None), labels
    else:
        question, per_reference = _label(fields, value, "yes_no"), None
    if (question is not None or any(per_reference or ())) and answer_type is not AnswerType.yes_no:
        given = answer_type.value if answer_type else "empty"
        raise fields.error(f"a yes/no label needs answer_type 'yes_no' (answer_type is {given})", "yes_no")
    return question, per_reference


def _entities(fields: _Fields, jsonl: bool,
              references: int) -> tuple[tuple[str, ...] | None, tuple[tuple[str, ...], ...] | None]:
    """The gold entities (the union, without duplicates) and, when given, each reference's list."""
    if jsonl:
        value = fields.raw("entities")
        if isinstance(value, list) and value and all(isinstance(item, list) for item in value):
            if len(value) != references:
                raise fields.error(f"{len(value)} entity lists for {references} references: give one list per "
                                   f"reference or one list for the question", "entities")
            per_reference = []
            for position, item in enumerate(value, start=1):
                if not all(isinstance(entity, str) for entity in item):
                    raise fields.error(f"list {position} must hold texts only", "entities")
                cleaned = tuple(normalize_text(entity) for entity in item)
                if _CONTROL.search("".join(cleaned)):
                    raise fields.error(f"list {position} contains a control character", "entities")
                per_reference.append(tuple(entity for entity in cleaned if entity))
            union = tuple(dict.fromkeys(entity for item in per_reference for entity in item))
            return union or None, tuple(per_reference)
        return fields.text_list("entities") or None, None
    cell = fields.text("entities", required=False)
    if cell is None:
        return None, None
    pieces = tuple(normalize_text(piece) for piece in cell.split(ENTITY_SEPARATOR))
    return tuple(dict.fromkeys(piece for piece in pieces if piece)) or None, None


def parse_test_set(table: Table, *, need_questions: bool = True) -> list[QuestionRecord]:
    """The questions of a test-set table, checked field by field; ids must be unique.

    ``need_questions=False`` (scoring references, e.g. the MRC2018 evaluation kit's reference files,
    which have no question text): a missing question is read as empty text.
    """
    jsonl = table.format == "jsonl"
    required = ("id", "question") if need_questions else ("id",)
    if jsonl:
        reference_columns = None
        allowed = set(TEST_SET_FIELDS_JSONL)
        _check_fields(table, allowed, (*required, "references"), TEST_SET_FIELDS_JSONL)
    else:
        reference_columns = _reference_columns(table) if "reference" in table.fields else []
        allowed = set(TEST_SET_FIELDS_TABLE) | set(reference_columns)
        _check_fields(table, allowed, (*required, "reference"), TEST_SET_FIELDS_TABLE)
    questions: list[QuestionRecord] = []
    first_line: dict[str, int] = {}
    for record in table.records:
        fields = _Fields(table, record)
        question_id = fields.identifier("id")
        if question_id in first_line:
            raise fields.error(f"duplicate id {question_id!r} (first {table.where(first_line[question_id])})", "id")
        first_line[question_id] = record.line
        answer_type = _answer_type(fields)
        question = fields.text("question", required=need_questions) or ""
        references = _references(fields, reference_columns)
        yes_no, reference_labels = _yes_no(fields, answer_type, len(references))
        entities, reference_entities = _entities(fields, jsonl, len(references))
        questions.append(QuestionRecord(
            line=record.line,
            id=question_id,
            question=question,
            references=references,
            context=fields.text("context", required=False),
            answer_type=answer_type,
            yes_no=yes_no,
            entities=entities,
            reference_labels=reference_labels,
            reference_entities=reference_entities,
        ))
    if not questions:
        raise table.error("the file has a header but no questions", line=table.header_line)
    return questions


def parse_answers(table: Table, *, may_be_empty: Callable[[str], bool] | None = None) -> list[AnswerRecord]:
    """The answers of one system's file or of a long table with a ``system`` field.

    Either every record names its system or none does; an id may appear once per system. An answer must
    not be empty, except where ``may_be_empty(id)`` says it may: it is then read as ``""``.
    """
    _check_fields(table, set(ANSWER_FIELDS), ("id", "answer"), ANSWER_FIELDS)
    if not table.records:
        raise table.error("the file has a header but no answers", line=table.header_line)
    long_table = "system" in table.records[0].values if table.format == "jsonl" else "system" in table.fields
    answers: list[AnswerRecord] = []
    first_line: dict[tuple[str | None, str], int] = {}
    for record in table.records:
        fields = _Fields(table, record)
        question_id = fields.identifier("id")
        system = None
        if long_table:
            name = fields.text("system", required=False)
            if name is None:
                raise fields.error("missing: this file names the system of each answer, so every "
                                   "record needs one", "system")
            system = check_name(name, table, field="system", what="system", line=record.line)
        elif "system" in record.values:
            raise fields.error(f"the first record (line {table.records[0].line}) has no system, so no "
                               f"record may have one: use one file per system or a system on every "
                               f"record", "system")
        key = (system, question_id)
        if key in first_line:
            whose = f" for system {system!r}" if system else ""
            raise fields.error(f"duplicate answer to {question_id!r}{whose} (first {table.where(first_line[key])})",
                               "id")
        first_line[key] = record.line
        empty_allowed = may_be_empty is not None and may_be_empty(question_id)
        answer = fields.text("answer", required=not empty_allowed) or ""
        answers.append(AnswerRecord(record.line, question_id, answer, system,
                                    _label(fields, fields.raw("yes_no"), "yes_no")))
    return answers


@dataclass(frozen=True)
class Predictions:
    """A system answers (prediction) file read against its test set (:func:`parse_predictions`)."""

    answers: list[AnswerRecord]
    """Answers to questions the test set did not leave out (ids not checked against it here)."""
    no_answer: list[AnswerRecord]
    """Predictions that are the format's "no answer" (SQuAD v2.0's ``""``), with ``answer`` ``""``."""
    left_out: list[str]
    """Ids of the predictions skipped because the test set's import left their question out."""


def parse_predictions(table: Table, left_out: Collection[str] = frozenset()) -> Predictions:
    """The answers of ``table``, less the predictions for ``left_out`` questions (the ids a standard format's
    test set left out at import: SQuAD v2.0's unanswerable questions, DuReader's without answers), whatever
    their answer. An empty answer is an error, except in a format whose empty prediction means "no answer"
    (the reader's ``empty_is_no_answer``, :class:`hit_builder.formats.source.SourceTable`)."""
    no_answer_format = bool(getattr(table, "empty_is_no_answer", False))
    records = parse_answers(table, may_be_empty=lambda question_id: no_answer_format or question_id in left_out)
    kept = [r for r in records if r.id not in left_out]
    return Predictions(answers=[r for r in kept if r.answer], no_answer=[r for r in kept if not r.answer],
                       left_out=[r.id for r in records if r.id in left_out])
