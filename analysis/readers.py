"""Read ratings files into a ``RatingsTable`` and write the platform's long CSV.

Formats (documented in docs/ratings-format.md):

- ``csv``: the platform's long CSV, one rating per row, header ``LONG_CSV_COLUMNS``;
- ``jsonl``: the same fields, one JSON object per line;
- ``wmt``: the whitespace-separated WMT DA release table (docs/method.md §11);
- ``wmt15``, ``wmt-stnd``: the 2015 layout and good-stnd z tables (``analysis.wmt_formats``);
- ``mturk``: an MTurk batch-results CSV (``analysis.mturk_batch``).

Each may be gzipped (``ratings.csv.gz``: its format told by the ending before ``.gz``). Every error is an
``InputError`` naming the file, the line and the field.

A campaign's export (``da-platform export ratings``, the bundle's ``ratings.csv``) is a long CSV that also
carries what its analysis needs (:func:`write_long_csv`): each rating's evidence (``analysis.evidence_columns``),
the campaign's quality-control policy (``qc_method``, ``qc_alpha``, ``qc_scope``) and the workers a review
decision excluded (``excluded_by_decision``: the reason). :func:`read_ratings_file` reads them back into a
:class:`RatingsFile`, so that the file's analysis is the campaign's.
"""
from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from analysis import csv_safety
from analysis.evidence_columns import evidence_header, evidence_rows, has_evidence, read_evidence
from analysis.qc_policy import QCPolicy
from analysis.rating_columns import table_from_text_columns, wmt_links
from analysis.table import RatingRecord, RatingsTable, paused_gc
from da_core.errors import InputError
from da_core.files import content_suffix, open_input

LONG_CSV_COLUMNS: tuple[str, ...] = RatingRecord._fields
"""group, worker, hit, system, item, slot_type, slot, original_slot, score, seconds."""
OPTIONAL_COLUMNS = frozenset({"seconds"})
WMT_COLUMNS: tuple[str, ...] = ("HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "hit", "sys_id",
                                "rid", "type", "sid", "score", "time")
FORMATS = ("csv", "jsonl", "wmt", "wmt15", "wmt-stnd", "mturk")
QC_COLUMNS = ("qc_method", "qc_alpha", "qc_scope")
"""The quality-control policy a campaign's export carries (the same on every row)."""
EXCLUDED_COLUMN = "excluded_by_decision"
"""Per row of a campaign's export: why a review decision excluded the worker's data ("" if none did)."""


@dataclass(frozen=True)
class RatingsFile:
    """A ratings file as read: the table (with the evidence the file carries, if any) and what else the file
    says about its analysis."""

    table: RatingsTable
    worker_stats: dict[tuple[str, str], tuple[float, float]] | None = None  # wmt-stnd: published (mean, sd)
    qc: QCPolicy | None = None  # the quality-control policy the file carries (a campaign's export), else None
    excluded: Mapping[str, str] = field(default_factory=dict)  # workers a review decision excluded -> reason


def read_ratings(path: str | Path, format: str | None = None) -> RatingsTable:
    """Read a ratings file in one of ``FORMATS`` (guessed when None)."""
    return read_ratings_file(path, format).table


def read_ratings_with_stats(path: str | Path, format: str | None = None, *, mturk_spec: str | Path | None = None,
                            mean_sd: list[Path] | None = None
                            ) -> tuple[RatingsTable, dict[tuple[str, str], tuple[float, float]] | None]:
    """The table and, for ``wmt-stnd``, the published (mean, sd) per (group, worker) to standardise with."""
    ratings = read_ratings_file(path, format, mturk_spec=mturk_spec, mean_sd=mean_sd)
    return ratings.table, ratings.worker_stats


def read_ratings_file(path: str | Path, format: str | None = None, *, mturk_spec: str | Path | None = None,
                      mean_sd: list[Path] | None = None) -> RatingsFile:
    """Read a ratings file in one of ``FORMATS`` (guessed when None), with what it says about its analysis: the
    published (mean, sd) of a ``wmt-stnd`` table; the evidence, policy and decisions of a campaign's export."""
    path = Path(path)
    format = format or guess_format(path)
    if format == "wmt-stnd":
        from analysis.wmt_formats import read_wmt_stnd

        table, stats = read_wmt_stnd(path, mean_sd)
        return RatingsFile(table, stats)
    if format == "mturk":
        from analysis.mturk_batch import ColumnSpec, read_mturk_batch

        return RatingsFile(read_mturk_batch(path, ColumnSpec.from_json(mturk_spec) if mturk_spec else None))
    if format == "wmt15":
        from analysis.wmt_formats import read_wmt15

        return RatingsFile(read_wmt15(path))
    if format == "csv":
        return _read_long_csv_file(path)
    readers = {"jsonl": read_jsonl, "wmt": read_wmt}
    if format in readers:
        return RatingsFile(readers[format](path))
    raise ValueError(f"unknown ratings format {format!r}; expected one of {', '.join(FORMATS)}")


def _without_gc(reader: Callable[[str | Path], RatingsTable]) -> Callable[[str | Path], RatingsTable]:
    """Run a reader with the cyclic garbage collector paused (see ``analysis.table.paused_gc``)."""
    import functools

    @functools.wraps(reader)
    def wrapper(path: str | Path) -> RatingsTable:
        with paused_gc():
            return reader(path)

    return wrapper


def guess_format(path: Path) -> str:
    """``jsonl`` by extension (under a ``.gz``); ``wmt-stnd`` by a good-stnd name; ``wmt`` / ``wmt15`` by a WMT header
    (12 / 11 columns); ``mturk`` by an MTurk header (HITId,…,AssignmentId,…); else ``csv``."""
    if content_suffix(path) in (".jsonl", ".ndjson"):
        return "jsonl"
    if "-good-stnd" in path.name:
        return "wmt-stnd"
    with _open(path) as f:
        first = f.readline()
    if first.split()[:2] == ["HITId", "WorkerId"]:
        return "wmt15" if len(first.split()) == 11 else "wmt"
    header = [h.strip().strip('"') for h in first.split(",")]
    return "mturk" if {"HITId", "WorkerId", "AssignmentId"} <= set(header) else "csv"


def _open(path: Path) -> AbstractContextManager[IO[Any]]:
    """The file's UTF-8 text (gunzipped for ``.gz``), for a ``with`` block (``da_core.files.open_input``)."""
    return open_input(path)


def read_long_csv(path: str | Path) -> RatingsTable:
    """Read the platform's long CSV (comma separated, UTF-8, header line first), with the evidence it carries."""
    return _read_long_csv_file(path).table


def _read_long_csv_file(path: str | Path) -> RatingsFile:
    """The long CSV with the evidence, policy and decisions a campaign's export carries (module docstring)."""
    with paused_gc():
        return _read_long_csv(Path(path))


def _read_long_csv(path: Path) -> RatingsFile:
    with _open(path) as f:
        try:
            rows = list(csv.reader(f))
        except (csv.Error, UnicodeDecodeError) as error:
            raise InputError(f"not a readable CSV file: {error}", file=str(path)) from None
    if not rows:
        raise InputError("empty file; expected a header line", file=str(path), line=1)
    header = [h.strip() for h in rows[0]]
    missing = [c for c in LONG_CSV_COLUMNS if c not in header and c not in OPTIONAL_COLUMNS]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}; the header must name "
                         f"{', '.join(LONG_CSV_COLUMNS)}", file=str(path), line=1, field=missing[0])
    width = len(header)
    if set(map(len, rows)) - {width}:
        i, row = next((i, row) for i, row in enumerate(rows) if len(row) != width)
        raise InputError(f"expected {width} fields, found {len(row)}", file=str(path), line=i + 1)
    columns = dict(zip(header, zip(*rows[1:]))) if len(rows) > 1 else {h: () for h in header}
    del rows  # the row lists are no longer needed; the columns hold the strings
    lines = list(range(2, 2 + len(columns["score"])))
    evidence = read_evidence(columns, header, str(path), lines) if has_evidence(header) else None
    table = table_from_text_columns(columns, str(path), first_line=2, evidence=evidence)
    return RatingsFile(table, qc=_qc_policy(columns, header, str(path)),
                       excluded=_excluded(columns, header, str(path)))


def _qc_policy(columns: Mapping[str, Sequence[str]], header: Sequence[str], source: str) -> QCPolicy | None:
    """The policy the ``QC_COLUMNS`` carry (None without them or without rows); one policy for every row."""
    present = [c for c in QC_COLUMNS if c in header]
    if not present or not columns[present[0]]:
        return None
    if len(present) < len(QC_COLUMNS):
        missing = [c for c in QC_COLUMNS if c not in header]
        raise InputError(f"missing column(s) {', '.join(missing)}: the quality-control policy is "
                         f"{', '.join(QC_COLUMNS)} together", file=source, line=1, field=missing[0])
    for name in QC_COLUMNS:
        values = columns[name]
        other = next((row for row, value in enumerate(values) if value != values[0]), None)
        if other is not None:
            raise InputError(f"{values[other]!r} differs from the first row's {values[0]!r}: one quality-control "
                             "policy per file", file=source, line=2 + other, field=name)
    method, alpha, scope = (columns[name][0] for name in QC_COLUMNS)
    try:
        level = float(alpha)
    except ValueError:
        raise InputError(f"{alpha!r} is not a number", file=source, line=2, field="qc_alpha") from None
    parts = {"method": method, "alpha": level, "scope": scope}
    for (part, value), name in zip(parts.items(), QC_COLUMNS):
        try:
            QCPolicy.from_dict({part: value})
        except ValueError as error:
            raise InputError(str(error), file=source, line=2, field=name) from None
    return QCPolicy.from_dict(parts)


def _excluded(columns: Mapping[str, Sequence[str]], header: Sequence[str], source: str) -> dict[str, str]:
    """Worker -> the reason a review decision excluded their data (``EXCLUDED_COLUMN``; the same on every row
    of the worker)."""
    if EXCLUDED_COLUMN not in header:
        return {}
    excluded: dict[str, str] = {}
    seen: dict[str, str] = {}
    for row, (worker, reason) in enumerate(zip(columns["worker"], columns[EXCLUDED_COLUMN])):
        if seen.setdefault(worker, reason) != reason:
            raise InputError(f"{reason!r} differs from the worker's first row ({seen[worker]!r}): a decision "
                             "excludes all of a worker's ratings or none", file=source, line=2 + row,
                             field=EXCLUDED_COLUMN)
        if reason:
            excluded[worker] = reason
    return excluded


@_without_gc
def read_jsonl(path: str | Path) -> RatingsTable:
    """Read one JSON object per line with the long CSV's fields (``seconds`` optional)."""
    path = Path(path)
    columns: dict[str, list] = {c: [] for c in LONG_CSV_COLUMNS}
    required = [c for c in LONG_CSV_COLUMNS if c not in OPTIONAL_COLUMNS]
    lines: list[int] = []
    with _open(path) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"not valid JSON: {error.msg}", file=str(path), line=number) from None
            if not isinstance(obj, dict):
                raise InputError("expected a JSON object", file=str(path), line=number)
            for name in required:
                if name not in obj:
                    raise InputError("missing field", file=str(path), line=number, field=name)
            for name in LONG_CSV_COLUMNS:
                value = obj.get(name)
                if name == "score":
                    if isinstance(value, bool) or not isinstance(value, (int, float)):
                        raise InputError(f"score {value!r} is not an integer", file=str(path),
                                         line=number, field=name)
                elif name == "seconds":
                    value = math.nan if value is None else value
                    if isinstance(value, bool) or not isinstance(value, (int, float)):
                        raise InputError(f"{value!r} is not a number", file=str(path), line=number,
                                         field=name)
                else:
                    value = "" if value is None and name == "original_slot" else value
                    if not isinstance(value, (str, int)) or isinstance(value, bool):
                        raise InputError(f"{value!r} is not a text value", file=str(path), line=number,
                                         field=name)
                    value = str(value)
                columns[name].append(value)
            lines.append(number)
    return table_from_text_columns(columns, str(path), first_line=1, lines=lines)


@_without_gc
def read_wmt(path: str | Path) -> RatingsTable:
    """Read a WMT DA release table (whitespace separated, header ``WMT_COLUMNS``).

    Mapping: group = ``<Input.src>-<Input.trg>``; worker = WorkerId; HIT = HITId (or the ``hit``
    column when HITId is NA); system = sys_id without its quotes; item = sid; slot type = type;
    time on item = time (NA → unknown). Rows have no slot ids, so each row gets its line number;
    a check links to the worker's SYSTEM rating of the same sid and system in the same HIT (of the
    same sid alone when the check's sys_id differs), and stays unlinked when there is none.
    """
    path = Path(path)
    with _open(path) as f:
        try:
            lines = f.read().splitlines()
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 text: {error}", file=str(path)) from None
    if not lines or lines[0].split() != list(WMT_COLUMNS):
        raise InputError(f"expected the WMT header {' '.join(WMT_COLUMNS)}", file=str(path), line=1)
    rows, numbers = [], []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(WMT_COLUMNS):
            raise InputError(f"expected {len(WMT_COLUMNS)} whitespace-separated fields, found {len(fields)}",
                             file=str(path), line=number)
        rows.append(fields)
        numbers.append(number)
    if not rows:
        columns: dict[str, tuple] = {c: () for c in WMT_COLUMNS}
    else:
        columns = dict(zip(WMT_COLUMNS, zip(*rows)))
    group = [f"{s}-{t}" for s, t in zip(columns["Input.src"], columns["Input.trg"])]
    hit = [h if h != "NA" else k for h, k in zip(columns["HITId"], columns["hit"])]
    system = [s[1:-1] if len(s) >= 2 and s[0] == s[-1] == '"' else s for s in columns["sys_id"]]
    slot = [str(n) for n in numbers]
    original = wmt_links(columns["WorkerId"], hit, group, system, columns["sid"], columns["type"], slot)
    text = {"group": group, "worker": columns["WorkerId"], "hit": hit, "system": system,
            "item": columns["sid"], "slot_type": columns["type"], "slot": slot, "original_slot": original,
            "score": columns["score"], "seconds": columns["time"]}
    return table_from_text_columns(text, str(path), first_line=2, lines=numbers,
                                    field_names={"slot_type": "type", "item": "sid", "seconds": "time"})


def write_long_csv(table: RatingsTable, path: str | Path, *, judges: Sequence[str] | None = None,
                   qc: QCPolicy | None = None, excluded: Mapping[str, str] | None = None) -> Path:
    """Write the table as the platform's long CSV (readable by ``read_long_csv``). A table with evidence (a
    campaign's) gets its evidence columns (``judges``: the names of its judge columns, in order; default
    ``1``, ``2``, ...); ``qc`` adds the policy's columns, ``excluded`` (worker -> reason) the decisions' column:
    what a campaign's export carries for its analysis (module docstring)."""
    path = Path(path)
    header: tuple[str, ...] = LONG_CSV_COLUMNS
    rows: Iterable[tuple] = _printable(table.records())
    if table.evidence is not None:
        names = tuple(judges) if judges is not None else tuple(str(k + 1) for k in range(table.evidence.judge.shape[1]))
        if len(names) != table.evidence.judge.shape[1]:
            raise ValueError(f"{len(names)} judge name(s) for {table.evidence.judge.shape[1]} judge column(s)")
        header += evidence_header(names)
        rows = (row + cells for row, cells in zip(rows, evidence_rows(table.evidence)))
    if qc is not None:
        header += QC_COLUMNS
        policy = (qc.method.value, repr(qc.alpha), qc.scope.value)
        rows = (row + policy for row in rows)
    if excluded is not None:
        header += (EXCLUDED_COLUMN,)
        rows = (row + (excluded.get(worker, ""),) for row, worker in zip(rows, table.worker.values()))
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_jsonl(table: RatingsTable, path: str | Path) -> Path:
    """Write the table as JSON lines (readable by ``read_jsonl``)."""
    path = Path(path)
    with open(path, "w", encoding="utf-8") as f:
        for record in table.records():
            obj = record._asdict()
            obj["seconds"] = None if math.isnan(record.seconds) else record.seconds
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return path


def _printable(records: Iterable[RatingRecord]) -> Iterable[tuple]:
    for r in records:
        yield (*r[:-1], "" if math.isnan(r.seconds) else repr(r.seconds))


__all__ = ["EXCLUDED_COLUMN", "FORMATS", "LONG_CSV_COLUMNS", "QC_COLUMNS", "WMT_COLUMNS", "RatingsFile",
           "read_ratings", "read_ratings_file", "read_ratings_with_stats", "read_long_csv", "read_jsonl",
           "read_wmt", "write_long_csv", "write_jsonl", "guess_format"]
