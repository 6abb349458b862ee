"""A ratings table's evidence (``analysis.evidence.RatingEvidence``) as text columns of the long CSV, and back.

A campaign's ratings export carries, beside each rating, everything its behaviour and content signals read: the
behaviour record's status and fields, the reading units of the text shown, the text-overlap measures and each
imported judge's score, and the automation traces. Read back, the columns give the same evidence, value for
value (floats are written with ``repr``, which reads back exactly; an empty cell is NaN), so that the analysis
of the file gives the campaign's verdicts (docs/ratings-format.md, "What an export carries").

Columns, in order: ``behaviour_record`` (a name of ``RECORD_STATUSES``), the record's fields, ``words``,
``characters``, one ``overlap_<measure>`` per ``OVERLAP_MEASURES``, one ``judge:<name>`` per judge (none when no
judge's scores were imported), one ``trace_<name>`` per ``AUTOMATION_TRACES``, and ``images_served`` (the server's
record, 1/0/empty; a file without the column reads as unknown).
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from analysis.evidence import AUTOMATION_TRACES, OVERLAP_MEASURES, RECORD_STATUSES, RatingEvidence
from da_core.errors import InputError

RECORD_COLUMN = "behaviour_record"
RECORD_FIELDS = ("first_input_ms", "interactions", "hidden_ms", "blur_ms", "paste", "copy", "shown_ms")
UNIT_COLUMNS = ("words", "characters")
JUDGE_PREFIX = "judge:"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


OVERLAP_COLUMNS = tuple(f"overlap_{_slug(m)}" for m in OVERLAP_MEASURES)
TRACE_COLUMNS = tuple(f"trace_{t}" for t in AUTOMATION_TRACES)
FIXED_COLUMNS = (RECORD_COLUMN, *RECORD_FIELDS, *UNIT_COLUMNS, *OVERLAP_COLUMNS, *TRACE_COLUMNS)
"""Every evidence column a file must carry but the judges' (``judge:<name>``, between the overlap and the trace
columns)."""
SERVED_COLUMN = "images_served"
"""The last evidence column, optional when read (files written before it: unknown)."""


def evidence_header(judges: Sequence[str]) -> tuple[str, ...]:
    """The evidence columns of a table whose evidence has one judge column per name in ``judges``."""
    return (RECORD_COLUMN, *RECORD_FIELDS, *UNIT_COLUMNS, *OVERLAP_COLUMNS,
            *(JUDGE_PREFIX + name for name in judges), *TRACE_COLUMNS, SERVED_COLUMN)


def _number(value: float) -> str:
    return "" if math.isnan(value) else repr(value)


def evidence_rows(evidence: RatingEvidence) -> list[tuple[str, ...]]:
    """Per rating, the cells of :func:`evidence_header` (judges in the evidence's column order)."""
    floats = np.column_stack([*(getattr(evidence, name) for name in RECORD_FIELDS), evidence.overlap, evidence.judge,
                              evidence.traces, evidence.images_served]).astype(np.float64)
    n_record = len(RECORD_FIELDS)
    rows = []
    for status, words, characters, values in zip(evidence.record.tolist(), evidence.words.tolist(),
                                                 evidence.characters.tolist(), floats.tolist()):
        cells = [_number(v) for v in values]
        rows.append((RECORD_STATUSES[status], *cells[:n_record], str(words), str(characters), *cells[n_record:]))
    return rows


def judges_in(header: Sequence[str]) -> tuple[str, ...]:
    """The judges named by a header's ``judge:<name>`` columns, in order."""
    return tuple(h[len(JUDGE_PREFIX):] for h in header if h.startswith(JUDGE_PREFIX))


def has_evidence(header: Sequence[str]) -> bool:
    """Whether a header carries evidence columns (any of them: :func:`read_evidence` asks for all)."""
    return any(h in FIXED_COLUMNS or h.startswith(JUDGE_PREFIX) for h in header)


def read_evidence(columns: Mapping[str, Sequence[str]], header: Sequence[str], source: str,
                  lines: Sequence[int]) -> RatingEvidence:
    """The evidence of the rows whose text ``columns`` (by header name) were read from ``source``; ``lines``:
    each row's line in the file. A missing column or a value that cannot be read is an ``InputError`` naming
    the file, the line and the column."""
    missing = [c for c in FIXED_COLUMNS if c not in header]
    if missing:
        raise InputError(f"missing evidence column(s) {', '.join(missing)}: a ratings file carries all of "
                         f"{', '.join(FIXED_COLUMNS)} (and judge:<name> columns) or none", file=source, line=1,
                         field=missing[0])
    code = {name: i for i, name in enumerate(RECORD_STATUSES)}
    record = np.empty(len(lines), dtype=np.int8)
    for row, status in enumerate(columns[RECORD_COLUMN]):
        if status not in code:
            raise InputError(f"unknown behaviour record status {status!r} (expected one of "
                             f"{', '.join(RECORD_STATUSES)})", file=source, line=lines[row], field=RECORD_COLUMN)
        record[row] = code[status]

    def floats(name: str) -> np.ndarray:
        out = np.empty(len(lines))
        for row, text in enumerate(columns[name]):
            try:
                out[row] = float(text) if text != "" else math.nan
            except ValueError:
                raise InputError(f"{text!r} is not a number", file=source, line=lines[row], field=name) from None
        return out

    def whole(name: str) -> np.ndarray:
        out = np.empty(len(lines), dtype=np.int64)
        for row, text in enumerate(columns[name]):
            if not text.isdigit():
                raise InputError(f"{text!r} is not a whole number", file=source, line=lines[row], field=name)
            out[row] = int(text)
        return out

    judges = [JUDGE_PREFIX + name for name in judges_in(header)]
    fields = {name: floats(name) for name in RECORD_FIELDS}
    return RatingEvidence(
        record, fields["first_input_ms"], fields["interactions"], fields["hidden_ms"], fields["blur_ms"],
        fields["paste"], fields["copy"], fields["shown_ms"], words=whole("words"), characters=whole("characters"),
        overlap=np.column_stack([floats(c) for c in OVERLAP_COLUMNS]).reshape(len(lines), len(OVERLAP_COLUMNS)),
        judge=np.column_stack([floats(c) for c in judges]).reshape(len(lines), len(judges)) if judges
        else np.zeros((len(lines), 0)),
        traces=np.column_stack([floats(c) for c in TRACE_COLUMNS]).reshape(len(lines), len(TRACE_COLUMNS)),
        images_served=floats(SERVED_COLUMN) if SERVED_COLUMN in header else np.full(len(lines), math.nan))
