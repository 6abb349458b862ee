"""Text columns of ratings -> :class:`~analysis.table.RatingsTable`, shared by every ratings reader.

``table_from_text_columns`` builds the table and re-locates an error to the file's own line and field
names; ``wmt_links`` links each check of a WMT-style table to the SYSTEM rating it repeats. Used by
:mod:`analysis.readers`, :mod:`analysis.wmt_formats` and :mod:`analysis.mturk_batch`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from analysis.evidence import RatingEvidence
from analysis.table import RatingsTable
from da_core.errors import InputError


def wmt_links(worker: Sequence[str], hit: Sequence[str], group: Sequence[str], system: Sequence[str],
              sid: Sequence[str], types: Sequence[str], slot: Sequence[str]) -> list[str]:
    """Per row, the slot of the SYSTEM rating a check repeats (same worker, HIT, item and system; else the
    only SYSTEM rating of that item in the HIT), "" for SYSTEM rows and checks without one."""
    by_system: dict[tuple, str] = {}
    by_item: dict[tuple, list[str]] = {}
    for i, t in enumerate(types):
        if t == "SYSTEM":
            by_system.setdefault((group[i], worker[i], hit[i], sid[i], system[i]), slot[i])
            by_item.setdefault((group[i], worker[i], hit[i], sid[i]), []).append(slot[i])
    links = []
    for i, t in enumerate(types):
        if t == "SYSTEM":
            links.append("")
            continue
        link = by_system.get((group[i], worker[i], hit[i], sid[i], system[i]))
        if link is None:
            candidates = by_item.get((group[i], worker[i], hit[i], sid[i]), [])
            link = candidates[0] if len(candidates) == 1 else ""
        links.append(link)
    return links


def table_from_text_columns(columns: Mapping[str, Sequence[Any]], source: str, *, first_line: int,
                            lines: list[int] | None = None, field_names: dict[str, str] | None = None,
                            evidence: RatingEvidence | None = None) -> RatingsTable:
    """Build the table (with the ``evidence`` the file carries, if any); re-locate any error to the file's own
    line numbers and field names."""
    try:
        return RatingsTable.from_columns(
            group=columns["group"], worker=columns["worker"], hit=columns["hit"], system=columns["system"],
            item=columns["item"], slot_type=columns["slot_type"], slot=columns["slot"],
            original_slot=columns["original_slot"], score=columns["score"],
            seconds=columns.get("seconds"), source=source, first_line=0, evidence=evidence,
        )
    except InputError as error:
        row = error.line or 0
        line = lines[row] if lines is not None and row < len(lines) else first_line + row
        field = (field_names or {}).get(error.field or "", error.field)
        raise InputError(error.message, file=source, line=line, field=field) from None
