"""Reading an automatic judge's per-answer scores (``da-platform import judge-scores``).

One record per answer: ``system`` (the system's name), ``id`` (the question id) and ``score`` (a number on
any scale: the judge's own, for example 1-10 or 0-1; at most ``MAX_MAGNITUDE`` in size, written in decimal
digits). JSONL, CSV or TSV, read by :mod:`hit_builder.readers`, one record at a time from a
``TableStream`` (:func:`read_judge_scores`: a file of any size costs the memory of one record, and its
first bad line stops the reading); every problem names the file, the line and the field. Which judge gave
the scores is said on the command line (``--judge``), not in the file.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hit_builder.readers import Table
from hit_builder.records import check_name, normalize_text

FIELDS = ("system", "id", "score")  # of a judge-scores file

MAX_MAGNITUDE = 1e12
"""The largest score (in magnitude) a file may give. Every judge scale is far inside it (1-10, 0-1, 0-100,
log-probabilities, Elo ratings), so a number beyond it is a mistake (a column of ids or millisecond times
read as the scores); and the analysis regresses on a score's square and cube, which a score near the
largest float (1e308, finite) sends to infinity."""

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""How a number is written in a CSV or TSV cell: decimal digits, an optional point and exponent (what every
spreadsheet and statistics package reads alike; Python alone would also read ``1_000``, ``٣`` or ``１``)."""


@dataclass(frozen=True)
class JudgeScoreRecord:
    """One judge score as read: its line, the system, the question id and the score."""

    line: int
    system: str
    question: str
    score: float


def read_judge_scores(table: Table) -> Iterator[JudgeScoreRecord]:
    """The records of a judge-scores file one at a time (:func:`read_answer_values`): a second score of
    one answer is the caller's to find (it knows the answers)."""
    return read_answer_values(table)


def parse_answer_values(table: Table, *, value: str = "score", kind: str = "a judge-scores file",
                        bounds: tuple[float, float] | None = None) -> list[JudgeScoreRecord]:
    """The records of a file of one number per answer (:func:`read_answer_values`), each answer once."""
    records: list[JudgeScoreRecord] = []
    first: dict[tuple[str, str], int] = {}
    for record in read_answer_values(table, value=value, kind=kind, bounds=bounds):
        key = (record.system, record.question)
        if key in first:
            raise table.error(second_value(value, record, first[key]), line=record.line, field="id")
        first[key] = record.line
        records.append(record)
    return records


def second_value(value: str, record: JudgeScoreRecord, first: int) -> str:
    """What is wrong with ``record``, a second ``value`` of an answer whose first is on line ``first``."""
    return f"a second {value} of system {record.system!r}'s answer to {record.question!r} (first on line {first})"


def read_answer_values(table: Table, *, value: str = "score", kind: str = "a judge-scores file",
                       bounds: tuple[float, float] | None = None) -> Iterator[JudgeScoreRecord]:
    """The records of a file of one number per answer (``system``, ``id`` and the field ``value``), each
    checked as it is read, in file order (a :class:`~hit_builder.readers.TableStream` is read no further
    than its first bad line); ``bounds``: the range the numbers must lie in (inclusive). ``kind`` names the
    file in messages. Whether an answer comes twice is not checked here (:func:`parse_answer_values`)."""
    fields = ("system", "id", value)
    unknown = sorted(set(table.fields) - set(fields))
    if unknown and table.format != "jsonl":  # (JSON lines: named at the record that has it, below)
        raise table.error(f"unknown field(s) {', '.join(unknown)}: {kind} has the fields "
                          f"{', '.join(fields)}", line=table.header_line)
    missing = [f for f in fields if f not in table.fields]
    if missing and table.format != "jsonl":
        raise table.error(f"missing column(s) {', '.join(missing)}: {kind} has the fields "
                          f"{', '.join(fields)}", line=table.header_line)
    empty = True
    for record in table.records:
        values, line = record.values, record.line
        extra = sorted(set(values) - set(fields))
        if extra:
            raise table.error(f"unknown field {extra[0]!r} (the fields are {', '.join(fields)})", line=line,
                              field=extra[0])
        system = check_name(_text(table, values, "system", line), table, field="system", what="system", line=line)
        question = _text(table, values, "id", line)
        number = _score(table, values.get(value), line, value)
        if bounds is not None and not bounds[0] <= number <= bounds[1]:
            raise table.error(f"must lie between {bounds[0]:g} and {bounds[1]:g}, not {number:g}", line=line,
                              field=value)
        empty = False
        yield JudgeScoreRecord(line, system, question, number)
    if empty:
        raise table.error(f"the file has no {value}s", line=table.header_line)


def _text(table: Table, values: dict[str, Any], field: str, line: int) -> str:
    value = values.get(field)
    if isinstance(value, int) and not isinstance(value, bool) and field == "id":
        value = str(value)
    if not isinstance(value, str):
        raise table.error("missing (the field is required)" if value is None else
                          f"must be text, not {type(value).__name__}", line=line, field=field)
    text = normalize_text(value)
    if not text:
        raise table.error("is empty", line=line, field=field)
    return text


def _score(table: Table, value: object, line: int, field: str = "score") -> float:
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            raise table.error(f"must be a number, not {value!r}", line=line, field=field) from None
        if math.isfinite(number) and not _DECIMAL.fullmatch(text):
            raise table.error(f"must be a number in decimal digits (such as 7, -0.25 or 1e-3), not {value!r}",
                              line=line, field=field)
        value = number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise table.error("missing (the field is required)" if value is None else
                          f"must be a number, not {type(value).__name__}", line=line, field=field)
    if isinstance(value, float) and not math.isfinite(value):
        raise table.error(f"must be a finite number, not {value}", line=line, field=field)
    if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:  # (compared exactly: an int may be too big for a float)
        shown = f"{value:g}" if isinstance(value, float) else f"a whole number of {len(str(abs(value)))} digits"
        raise table.error(f"must lie between {-MAX_MAGNITUDE:g} and {MAX_MAGNITUDE:g}, not {shown}", line=line,
                          field=field)
    return float(value)
