"""Read an MTurk batch-results CSV (as downloaded from the requester site) of DA HITs.

One row per assignment: ``HITId``, ``WorkerId``, ``AssignmentId``, ``Input.*`` and ``Answer.*``
columns. The published DA HIT templates put all 100 ratings of an assignment into one answer
field, entries separated by ``|``, each ``<system>_<sid>_<type>_<position>__<score>``. Which
columns and separators mean what is a small :class:`ColumnSpec`, loadable from JSON (keys as the
dataclass fields; docs/ratings-format.md shows the default). Only the first entry field (the system)
may contain the field separator; slot type names that contain it (``BAD_REF``) are recognised.

Each rating becomes one row: group = the ``group`` columns joined by ``-`` (the language pair),
HIT = HITId, slot = ``<AssignmentId>:<position>``; a check links to the worker's SYSTEM rating of
the same system and item in the same HIT. Time on item is unknown (MTurk records the HIT only).
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from analysis.rating_columns import table_from_text_columns, wmt_links
from analysis.table import RatingsTable
from da_core.errors import InputError
from da_core.files import open_input


@dataclass(frozen=True)
class ColumnSpec:
    """Which columns of the batch CSV hold what (defaults: the published DA HIT templates)."""

    worker: str = "WorkerId"
    hit: str = "HITId"
    assignment: str = "AssignmentId"
    group: tuple[str, ...] = ("Input.src", "Input.trg")
    answer: str = "Answer.Q1"
    entry_separator: str = "|"
    field_separator: str = "_"
    entry_fields: tuple[str, ...] = ("system", "item", "type", "position", "", "score")
    types: dict[str, str] = field(default_factory=lambda: {
        "SYSTEM": "SYSTEM", "REPEAT": "REPEAT", "BAD_REF": "BAD_REF", "REF": "REF"})
    entries: int | None = 100  # ratings expected per assignment; None = any number

    @classmethod
    def from_json(cls, path: str | Path) -> ColumnSpec:
        """A spec from a JSON object whose keys are this class's fields (missing keys keep the default)."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise InputError(f"cannot open: {error.strerror}", file=str(path)) from None
        except json.JSONDecodeError as error:
            raise InputError(f"not valid JSON: {error.msg}", file=str(path), line=error.lineno) from None
        known = {f.name for f in fields(cls)}
        if not isinstance(data, dict):
            raise InputError("expected a JSON object", file=str(path), line=1)
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
                             file=str(path), field=unknown[0])
        for key in ("group", "entry_fields"):
            if key in data:
                data[key] = tuple(data[key])
        for key in ("system", "item", "type", "score"):
            if key not in data.get("entry_fields", cls.entry_fields):
                raise InputError(f"entry_fields must name {key!r}", file=str(path), field="entry_fields")
        return cls(**data)


def read_mturk_batch(path: str | Path, spec: ColumnSpec | None = None) -> RatingsTable:
    """Read a batch-results CSV through ``spec`` (see the module docstring)."""
    spec = spec or ColumnSpec()
    path = Path(path)
    opened = open_input(path, encoding="utf-8-sig")  # (gunzipped for .gz; errors name the file)
    out: dict[str, list[str]] = {k: [] for k in ("group", "worker", "hit", "system", "item", "slot_type", "slot",
                                                 "score")}
    lines: list[int] = []
    with opened as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, None)
            if header is None:
                raise InputError("empty file; expected the batch-results header", file=str(path), line=1)
            needed = [spec.worker, spec.hit, spec.assignment, spec.answer, *spec.group]
            missing = [c for c in needed if c not in header]
            if missing:
                raise InputError(f"missing column(s) {', '.join(missing)} (see --mturk-spec)", file=str(path),
                                 line=1, field=missing[0])
            at = {name: header.index(name) for name in needed}
            start = reader.line_num + 1
            for row in reader:
                line = start
                start = reader.line_num + 1
                if not any(cell.strip() for cell in row):
                    continue
                if len(row) != len(header):
                    raise InputError(f"expected {len(header)} fields, found {len(row)}", file=str(path), line=line)
                for name in (spec.worker, spec.hit, spec.assignment, spec.answer):
                    if not row[at[name]].strip():
                        raise InputError("empty (an assignment not submitted?)", file=str(path), line=line,
                                         field=name)
                group = "-".join(row[at[c]].strip().strip("'") for c in spec.group) or path.stem
                entries = row[at[spec.answer]].strip().split(spec.entry_separator)
                if spec.entries is not None and len(entries) != spec.entries:
                    raise InputError(f"{len(entries)} ratings where the HIT has {spec.entries}: an incomplete "
                                     "assignment (remove the row, or set \"entries\": null in the spec)",
                                     file=str(path), line=line, field=spec.answer)
                assignment = row[at[spec.assignment]].strip()
                for k, entry in enumerate(entries, start=1):
                    parsed = _entry(entry.strip().strip('"'), spec)
                    if isinstance(parsed, str):
                        raise InputError(f"rating {k} {entry!r}: {parsed}", file=str(path), line=line,
                                         field=spec.answer)
                    out["group"].append(group)
                    out["worker"].append(row[at[spec.worker]].strip())
                    out["hit"].append(row[at[spec.hit]].strip())
                    out["system"].append(parsed["system"])
                    out["item"].append(parsed["item"])
                    out["slot_type"].append(parsed["type"])
                    out["slot"].append(f"{assignment}:{parsed.get('position') or k}")
                    out["score"].append(parsed["score"])
                    lines.append(line)
        except csv.Error as error:
            raise InputError(f"not a readable CSV file: {error}", file=str(path), line=reader.line_num) from None
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 text: {error}", file=str(path)) from None
    out["original_slot"] = wmt_links(out["worker"], out["hit"], out["group"], out["system"], out["item"],
                                      out["slot_type"], out["slot"])
    return table_from_text_columns(out, str(path), first_line=2, lines=lines,
                                    field_names={k: spec.answer for k in ("score", "slot_type", "slot")})


def _entry(entry: str, spec: ColumnSpec) -> dict[str, str] | str:
    """One answer entry as {field: value}, or a message saying what is wrong with it."""
    sep = spec.field_separator
    masked = entry
    for name in spec.types:
        if sep in name:
            masked = masked.replace(f"{sep}{name}{sep}", f"{sep}{name.replace(sep, chr(0))}{sep}")
    parts = masked.split(sep)
    names = list(spec.entry_fields)
    if len(parts) == len(names) - 1 and "" in names:
        names.remove("")
    if len(parts) < len(names):
        return f"expected {len(names)} fields separated by {sep!r} ({', '.join(n or '(empty)' for n in names)})"
    extra = len(parts) - len(names)
    parts = [sep.join(parts[:extra + 1]), *parts[extra + 1:]]  # only the system may contain the separator
    values = {n: p.replace(chr(0), sep) for n, p in zip(names, parts) if n}
    kind = spec.types.get(values["type"])
    if kind is None:
        return f"unknown type {values['type']!r} (the spec knows {', '.join(spec.types)})"
    values["type"] = kind
    if not values["score"].strip():
        return "no score"
    return values
