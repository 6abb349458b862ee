"""What the readers of standard QA formats share: a table that remembers where each record came from.

A converted file becomes a :class:`SourceTable` of records in the platform's own field names (with
JSON values, so its ``format`` is ``jsonl``), so :mod:`hit_builder.records` checks it like any import file; its errors
name the source's own fields:
``file:line: field 'yesno_answers'`` for JSON lines, and the JSON path (``data[0].paragraphs[2].qas[1].answers``)
for a whole-JSON file, which has no line per record.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from da_core.errors import InputError
from hit_builder.readers import LONE_SURROGATE, Table, lone_surrogate, parse_json, read_text
from hit_builder.records import normalize_text


@dataclass(frozen=True)
class SourceTable(Table):
    """A :class:`Table` converted from a standard format; ``notes`` says what was left out and why."""

    source_format: str = ""
    paths: Mapping[int, str] = field(default_factory=dict)
    """Whole-JSON files: record line (a running number) → JSON path of the record."""
    field_names: Mapping[str, str] = field(default_factory=dict)
    """Platform field → the source's field ("" = the record's path itself)."""
    notes: tuple[str, ...] = ()
    whole_json: bool = False
    """A whole-JSON file: errors give the record's JSON path instead of a line."""
    left_out: frozenset[str] = frozenset()
    """Ids of the questions the reader left out (no answers), so that answers to them can be told apart."""
    empty_is_no_answer: bool = False
    """A prediction file whose empty answer means "no answer" (SQuAD v2.0's ``""``), not a mistake."""

    def error(self, message: str, *, line: int | None = None, field: str | None = None) -> InputError:
        source_field = self.field_names.get(field, field) if field else None
        if self.whole_json:
            path = self.paths.get(line) if line is not None else None
            where = ".".join(part for part in (path, source_field) if part) or None
            return InputError(message, file=self.file, field=where)
        return InputError(message, file=self.file, line=line, field=source_field)

    def where(self, line: int) -> str:
        """A whole-JSON file's record by its JSON path (``at data[0].paragraphs[0].qas[1]``), else by line."""
        if self.whole_json and line in self.paths:
            return f"at {self.paths[line]}"
        return super().where(line)


def load_json(path: str | Path) -> Any:
    """A whole JSON file, with errors that name the file and line (never a traceback)."""
    file = str(path)
    document = parse_json(read_text(path), file)
    found = lone_surrogate(document)
    if found is not None:
        raise InputError(LONE_SURROGATE, file=file, field=found[0] or None)
    return document


def json_type(value: Any) -> str:
    """A JSON value's kind in words, for messages."""
    names = {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list",
             dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def question_id(value: Any) -> str:
    """A question id as the records hold it (a JSON number as its digits, text normalised), for ``left_out``."""
    return normalize_text(str(value))


def distinct(texts: list[str]) -> list[str]:
    """The texts without repeats (compared after stripping), in their first order."""
    seen: dict[str, str] = {}
    for text in texts:
        seen.setdefault(text.strip(), text)
    return list(seen.values())
