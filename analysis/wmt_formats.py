"""Readers for WMT DA release files other than ``ad-latest.csv`` (docs/ratings-format.md).

- ``wmt15``: the 2015 pipeline's ``ad-latest.csv``: 11 whitespace-separated columns
  ``HITId WorkerId src trg item sys_id rid type sid score time`` (without a header, in that order;
  with one, columns are found by name: ``HITId WorkerId src trg sys_id type sid score`` required,
  ``Input.`` prefixes allowed, others ignored), slot types in lower case: ``system``, ``repeat``,
  ``ref`` and ``cal`` (the degraded "calibration" check, i.e. ``BAD_REF``).
- ``wmt-stnd``: a ``ad-<src><trg>-good-stnd[-redup].csv`` table: the ``ad-latest.csv`` columns with
  the score replaced by the worker's z-score (QC already applied, raters with sd 0 removed).
  With the release's ``ad-<src><trg>-trk-mean-sd.txt`` (each worker's mean and sd as R printed
  them) every raw score is recovered exactly as z·sd + mean, and the analysis standardises with
  those published means and sds. Without any such file the given z-scores are analysed as they
  are (``RatingsTable.given_z``): z-scores and ranking, no raw scores, no quality control.

Every error names the file, the line and the field; nothing is returned half-read.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from analysis.rating_columns import table_from_text_columns, wmt_links
from analysis.table import RatingsTable
from da_core.errors import InputError
from da_core.files import open_input

WMT15_COLUMNS = ("HITId", "WorkerId", "src", "trg", "item", "sys_id", "rid", "type", "sid", "score", "time")
WMT15_REQUIRED = ("HITId", "WorkerId", "src", "trg", "sys_id", "type", "sid", "score")
WMT15_TYPES = {"system": "SYSTEM", "repeat": "REPEAT", "ref": "REF", "cal": "BAD_REF", "bad_ref": "BAD_REF",
               "bad-ref": "BAD_REF"}
STND_COLUMNS = ("HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "hit", "sys_id", "rid", "type", "sid",
                "score", "time")
INTEGER_TOLERANCE = 1e-6
"""How far z·sd + mean may be from an integer (z printed at 15 digits recovers it to ~1e-12)."""


def _lines(path: Path) -> list[str]:
    try:
        with open_input(path) as f:  # (gunzipped for .gz)
            return f.read().splitlines()
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text: {error}", file=str(path)) from None


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


def read_wmt15(path: str | Path) -> RatingsTable:
    """Read the 2015 WMT DA layout (see the module docstring)."""
    path = Path(path)
    lines = _lines(path)
    if not lines:
        raise InputError("empty file", file=str(path), line=1)
    first = [c.removeprefix("Input.") for c in lines[0].split()]
    has_header = first[:2] == ["HITId", "WorkerId"]
    names = first if has_header else list(WMT15_COLUMNS)
    missing = [c for c in WMT15_REQUIRED if c not in names]
    if missing or len(set(names)) != len(names):
        raise InputError(f"the header must name {' '.join(WMT15_REQUIRED)} once each ('Input.' prefixes allowed; "
                         f"the 2015 layout is {' '.join(WMT15_COLUMNS)})", file=str(path), line=1,
                         field=missing[0] if missing else None)
    at = {name: i for i, name in enumerate(names)}
    rows, numbers = [], []
    for number, line in enumerate(lines[1:] if has_header else lines, start=2 if has_header else 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(names):
            raise InputError(f"expected {len(names)} whitespace-separated fields ({' '.join(names)}), "
                             f"found {len(fields)}", file=str(path), line=number)
        kind = WMT15_TYPES.get(fields[at["type"]].lower())
        if kind is None:
            raise InputError(f"unknown type {fields[at['type']]!r} (expected one of "
                             f"{', '.join(sorted(set(WMT15_TYPES)))})", file=str(path), line=number, field="type")
        fields[at["type"]] = kind
        rows.append(fields)
        numbers.append(number)
    by_position = list(zip(*rows)) if rows else [() for _ in names]
    columns = {name: by_position[i] for name, i in at.items()}
    columns.setdefault("time", ("NA",) * len(rows))
    group = [f"{s}-{t}" for s, t in zip(columns["src"], columns["trg"])]
    system = [_unquote(s) for s in columns["sys_id"]]
    slot = [str(n) for n in numbers]
    original = wmt_links(columns["WorkerId"], columns["HITId"], group, system, columns["sid"], columns["type"], slot)
    text = {"group": group, "worker": columns["WorkerId"], "hit": columns["HITId"], "system": system,
            "item": columns["sid"], "slot_type": columns["type"], "slot": slot, "original_slot": original,
            "score": columns["score"], "seconds": columns["time"]}
    return table_from_text_columns(text, str(path), first_line=numbers[0] if numbers else 2, lines=numbers,
                                    field_names={"slot_type": "type", "item": "sid", "seconds": "time"})


def read_mean_sd(path: str | Path) -> dict[str, tuple[float, float]]:
    """Each worker's (mean, sd) from an R-printed ``ad-<lp>-trk-mean-sd.txt`` (sd NaN when NA)."""
    path = Path(path)
    lines = [(n, line.strip()) for n, line in enumerate(_lines(path), start=1) if line.strip()]
    if len(lines) % 3:
        raise InputError(f"expected blocks of 3 lines ([1] \"worker\", [1] mean, [1] sd), found {len(lines)} "
                         "lines", file=str(path), line=lines[-1][0] if lines else 1)
    stats: dict[str, tuple[float, float]] = {}
    for i in range(0, len(lines), 3):
        (n_w, worker), (n_m, mean), (n_s, sd) = lines[i:i + 3]
        match = re.fullmatch(r'\[1\] "(.*)"', worker)
        if match is None:
            raise InputError(f'expected [1] "<worker id>", found {worker!r}', file=str(path), line=n_w,
                             field="worker")
        values = []
        for number, text, name in ((n_m, mean, "mean"), (n_s, sd, "sd")):
            value = text.removeprefix("[1] ").strip()
            try:
                values.append(math.nan if value == "NA" else float(value))
            except ValueError:
                raise InputError(f"expected [1] <number>, found {text!r}", file=str(path), line=number,
                                 field=name) from None
        stats[match.group(1)] = (values[0], values[1])
    return stats


def mean_sd_files_beside(table_path: Path) -> list[Path]:
    """The ``ad-*-trk-mean-sd.txt`` files in the table's folder."""
    return sorted(table_path.parent.glob("ad-*-trk-mean-sd.txt"))


def read_wmt_stnd(path: str | Path, mean_sd: list[Path] | None = None
                  ) -> tuple[RatingsTable, dict[tuple[str, str], tuple[float, float]] | None]:
    """Read a good-stnd table and recover raw scores with the trk-mean-sd files (see the module docstring).

    Returns the table (integer raw scores) and (mean, sd) per (language pair, worker) as published.
    Without any trk-mean-sd file the table carries the given z-scores (``given_z``; raw scores
    unknown) and no stats: item and system z-scores and the ranking can be computed, raw means cannot.
    """
    path = Path(path)
    files = mean_sd if mean_sd is not None else mean_sd_files_beside(path)
    z_only = not files  # no trk-mean-sd file at all: analyse the given z-scores (raw scores unknown)
    by_pair: dict[str, tuple[Path, dict[str, tuple[float, float]]]] = {}
    for file in files:
        match = re.fullmatch(r"ad-(.+)-trk-mean-sd\.txt", Path(file).name)
        key = match.group(1) if match else Path(file).stem
        by_pair[key] = (Path(file), read_mean_sd(file))
    lines = _lines(path)
    if not lines or [c for c in lines[0].split()] != list(STND_COLUMNS):
        raise InputError(f"expected the WMT header {' '.join(STND_COLUMNS)}", file=str(path), line=1)
    rows, numbers, raw_scores, given_z = [], [], [], []
    stats: dict[tuple[str, str], tuple[float, float]] = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(STND_COLUMNS):
            raise InputError(f"expected {len(STND_COLUMNS)} whitespace-separated fields, found {len(fields)}",
                             file=str(path), line=number)
        src, trg, worker = fields[2], fields[3], fields[1]
        if z_only:
            try:
                z = float(fields[10])
            except ValueError:
                raise InputError(f"score {fields[10]!r} is not a number", file=str(path), line=number,
                                 field="score") from None
            if not math.isfinite(z):
                raise InputError(f"score {fields[10]!r} is not a finite z-score", file=str(path), line=number,
                                 field="score")
            given_z.append(z)
            raw_scores.append("0")
            rows.append(fields)
            numbers.append(number)
            continue
        pair = by_pair.get(src + trg)
        if pair is None:
            raise InputError(f"no ad-{src}{trg}-trk-mean-sd.txt for language pair {src}-{trg} (there are for "
                             f"{', '.join(sorted(by_pair))}): put the release's file beside the table or name it "
                             "with --mean-sd", file=str(path), line=number, field="Input.src")
        stats_file, workers = pair
        if worker not in workers:
            raise InputError(f"worker {worker!r} is not in {stats_file}", file=str(path), line=number,
                             field="WorkerId")
        mean, sd = workers[worker]
        try:
            z = float(fields[10])
        except ValueError:
            raise InputError(f"score {fields[10]!r} is not a number", file=str(path), line=number,
                             field="score") from None
        raw = z * sd + mean
        if not math.isfinite(raw) or abs(raw - round(raw)) > INTEGER_TOLERANCE or not 0 <= round(raw) <= 100:
            raise InputError(f"z {fields[10]} with {worker}'s mean {mean} and sd {sd} ({stats_file.name}) gives "
                             f"{raw!r}, not an integer rating 0-100: wrong trk-mean-sd file?", file=str(path),
                             line=number, field="score")
        stats[(f"{src}-{trg}", worker)] = (mean, sd)
        raw_scores.append(str(round(raw)))
        rows.append(fields)
        numbers.append(number)
    columns = dict(zip(STND_COLUMNS, zip(*rows))) if rows else {c: () for c in STND_COLUMNS}
    group = [f"{s}-{t}" for s, t in zip(columns["Input.src"], columns["Input.trg"])]
    hit = [h if h != "NA" else k for h, k in zip(columns["HITId"], columns["hit"])]
    system = [_unquote(s) for s in columns["sys_id"]]
    slot = [str(n) for n in numbers]
    original = wmt_links(columns["WorkerId"], hit, group, system, columns["sid"], columns["type"], slot)
    text = {"group": group, "worker": columns["WorkerId"], "hit": hit, "system": system, "item": columns["sid"],
            "slot_type": columns["type"], "slot": slot, "original_slot": original, "score": raw_scores,
            "seconds": columns["time"]}
    table = table_from_text_columns(text, str(path), first_line=2, lines=numbers,
                                     field_names={"slot_type": "type", "item": "sid", "seconds": "time"})
    if z_only:
        return replace(table, given_z=np.array(given_z, dtype=np.float64)), None
    return table, stats
