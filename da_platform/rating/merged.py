"""Ratings of merged identical answers counted for every system that gave the answer.

A campaign built with merging (``hit_builder.merging``) rates an answer shared by several systems
once, as the first system's. :func:`expand` adds, for every other system of the group, a copy of
each ``SYSTEM`` and ``REPEAT`` rating of that item (the ratings that count in scores), so that the
analysis sees one rating row per system. Checks (``BAD_REF``, ``REF``) are not copied: quality
control sees each worker's real checks once.

A copy's HIT is ``<HIT>/<system>`` and its slot ``<slot>/<system>``: quality control looks for runs of
identical scores within a HIT in rating order, so copies must not sit among the worker's real
ratings. Copies carry no time on item (NaN): the worker spent no time on them. Quality control's
counts of a worker's ratings, HITs and HIT times leave them out (``RatingsTable.copies``).
"""
from __future__ import annotations

import math
from typing import Any

from analysis.table import COPY_MARK
from da_platform.config.build_record import MergeRecord

COPIED = ("SYSTEM", "REPEAT")


def also_rated(merged: MergeRecord | None) -> dict[tuple[str, str], list[str]]:
    """(question id, system rated) -> the other systems that gave the same answer."""
    return {(g.question, g.rated_as): list(g.also) for g in (merged.groups if merged is not None else ())}


def expand(columns: dict[str, Any], merged: MergeRecord | None) -> dict[str, Any]:
    """The ratings columns (lists, by ``RatingsTable.from_columns``' parameter names) plus the copies
    for the systems of the campaign's merged answers (``CampaignSettings.identical_answers``; unchanged
    without merging)."""
    groups = also_rated(merged)
    if not groups:
        return columns
    out = {name: list(values) for name, values in columns.items()}
    n = len(columns["score"])
    for i in range(n):
        if columns["slot_type"][i] not in COPIED:
            continue
        for system in groups.get((columns["item"][i], columns["system"][i]), ()):
            for name, values in out.items():
                values.append(columns[name][i])
            out["system"][-1] = system
            out["hit"][-1] = f"{columns['hit'][i]}{COPY_MARK}{system}"
            out["slot"][-1] = f"{columns['slot'][i]}{COPY_MARK}{system}"
            original = columns["original_slot"][i]
            out["original_slot"][-1] = f"{original}{COPY_MARK}{system}" if original else ""
            out["seconds"][-1] = math.nan
    return out
