"""Read human system scores from a file, for validating metrics without a campaign in the database.

Two formats: a CSV with a header naming (at least) the columns ``system`` and ``z``, or the WMT
``ad-sys-scores`` table (whitespace-separated, header ``RAW.SCR Z.SCR N SYS N.ALL``), whose ``Z.SCR``
is taken. Errors are ``InputError`` naming file, line and field.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

from da_core.errors import InputError

_WMT_COLUMNS = ("SYS", "Z.SCR")


def read_human_scores(path: str | Path) -> dict[str, float]:
    """System → human z-score, in file order."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read human scores: {error}", file=str(path)) from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise InputError("empty file; expected a header 'system,z' or the WMT 'RAW.SCR Z.SCR N SYS N.ALL'",
                         file=str(path), line=1)
    if "," in lines[0]:
        rows = list(csv.reader(lines))
        header = [h.strip().lower() for h in rows[0]]
        system_key, score_key = "system", "z"
    else:
        rows = [line.split() for line in lines]
        header = rows[0]
        system_key, score_key = _WMT_COLUMNS
    for key in (system_key, score_key):
        if key not in header:
            raise InputError(f"header has no column '{key}' (found: {', '.join(header)})",
                             file=str(path), line=1, field=key)
    system_at, score_at = header.index(system_key), header.index(score_key)
    scores: dict[str, float] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(f"{len(row)} fields, the header has {len(header)}", file=str(path), line=number)
        system = row[system_at].strip()
        if not system:
            raise InputError("empty system name", file=str(path), line=number, field=system_key)
        if system in scores:
            raise InputError(f"system {system!r} appears twice", file=str(path), line=number, field=system_key)
        try:
            score = float(row[score_at])
        except ValueError:
            raise InputError(f"not a number: {row[score_at]!r}", file=str(path), line=number,
                             field=score_key) from None
        if not math.isfinite(score):
            raise InputError(f"not a finite number: {row[score_at]!r}", file=str(path), line=number,
                             field=score_key)
        scores[system] = score
    if not scores:
        raise InputError("no systems after the header", file=str(path), line=2)
    return scores
