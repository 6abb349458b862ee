"""Read ratings files into a ``RatingsTable`` and write the platform's long CSV.

Formats (documented in docs/ratings-format.md):

- ``csv``: the platform's long CSV, one rating per row, header ``LONG_CSV_COLUMNS``;
- ``jsonl``: the same fields, one JSON object per line;
- ``wmt``: the whitespace-separated WMT DA release table (docs/method.md §11);
- ``wmt15``, ``wmt-stnd``: the 2015 layout and good-stnd z tables (``analysis.wmt_formats``);
- ``mturk``: an MTurk batch-results CSV (``analysis.mturk_batch``).

Each may be gzipped (``ratings.csv.gz``: its format told by the ending before ``.gz``). Every error is an
``InputError`` naming the file, the line and the field.
"""
from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, Any

from analysis import csv_safety
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


def read_ratings(path: str | Path, format: str | None = None) -> RatingsTable:
    """Read a ratings file in one of ``FORMATS`` (guessed when None)."""
    return read_ratings_with_stats(path, format)[0]


def read_ratings_with_stats(path: str | Path, format: str | None = None, *, mturk_spec: str | Path | None = None,
                            mean_sd: list[Path] | None = None
                            ) -> tuple[RatingsTable, dict[tuple[str, str], tuple[float, float]] | None]:
    """The table and, for ``wmt-stnd``, the published (mean, sd) per (group, worker) to standardise with."""
    path = Path(path)
    format = format or guess_format(path)
    if format == "wmt-stnd":
        from analysis.wmt_formats import read_wmt_stnd

        return read_wmt_stnd(path, mean_sd)
    if format == "mturk":
        from analysis.mturk_batch import ColumnSpec, read_mturk_batch

        return read_mturk_batch(path, ColumnSpec.from_json(mturk_spec) if mturk_spec else None), None
    if format == "wmt15":
        from analysis.wmt_formats import read_wmt15

        return read_wmt15(path), None
    readers = {"csv": read_long_csv, "jsonl": read_jsonl, "wmt": read_wmt}
    if format in readers:
        return readers[format](path), None
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


@_without_gc
def read_long_csv(path: str | Path) -> RatingsTable:
    """Read the platform's long CSV (comma separated, UTF-8, header line first)."""
    path = Path(path)
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
    return table_from_text_columns(columns, str(path), first_line=2)


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


def write_long_csv(table: RatingsTable, path: str | Path) -> Path:
    """Write the table as the platform's long CSV (readable by ``read_long_csv``)."""
    path = Path(path)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(LONG_CSV_COLUMNS)
        writer.writerows(_printable(table.records()))
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


__all__ = ["FORMATS", "LONG_CSV_COLUMNS", "WMT_COLUMNS", "read_ratings", "read_ratings_with_stats",
           "read_long_csv", "read_jsonl",
           "read_wmt", "write_long_csv", "write_jsonl", "guess_format"]
