"""Ratings of merged identical answers counted for every system that gave the answer, and how to say so.

A campaign built with merging (``hit_builder.merging``) rates an answer shared by several systems
once, as the first system's. :func:`expand` adds, for every other system of the group, a copy of
each ``SYSTEM`` and ``REPEAT`` rating of that item (the ratings that count in scores), so that the
analysis sees one rating row per system. Checks (``BAD_REF``, ``REF``) are not copied: quality
control sees each worker's real checks once.

A copy's HIT is ``<HIT>/<system>`` and its slot ``<slot>/<system>``: quality control looks for runs of
identical scores within a HIT in rating order, so copies must not sit among the worker's real
ratings. Copies carry no time on item (NaN): the worker spent no time on them. Quality control's
counts of a worker's ratings, HITs and HIT times leave them out (``RatingsTable.copies``).

:func:`merged_systems` and :func:`copies_by_system` tell one story of a system whose answers
were rated as another's everywhere they are shown (the rehearsal's report, the dashboard): it is ranked with
copies of those ratings, not left out nor shown with none.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from analysis.table import COPY_MARK, RatingsTable
from da_platform.config.build_record import MergeRecord
from da_platform.db.models import Campaign, Hit, Slot, System

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


@dataclass(frozen=True)
class MergedSystem:
    """A system some of whose answers were identical to another system's and rated once, as that one's."""

    name: str
    rated: dict[str, int]  # the system whose identical answer was rated for it -> how many of its answers
    whole: bool  # none of its answers was rated as its own: all its ratings are copies

    @property
    def same_as(self) -> str | None:
        """The one system whose answers it gives word for word (whole, from one system), else None."""
        return next(iter(self.rated)) if self.whole and len(self.rated) == 1 else None

    def describe(self) -> str:
        """One line saying how its answers were rated."""
        answers = sum(self.rated.values())
        if self.same_as is not None:
            return (f"{self.name}: its {answers} answers are {self.same_as}'s word for word, rated once as "
                    f"{self.same_as}'s; each rating counts for both (merged identical answers)")
        others = sorted(self.rated, key=lambda name: (-self.rated[name], name))
        which = ", ".join(f"{name}'s ({self.rated[name]})" for name in others)
        return (f"{self.name}: {'all ' if self.whole else ''}{answers} of its answers are identical to {which}, "
                "rated once as theirs; each rating counts for each (merged identical answers)")


def merged_systems(session: Session, campaign: Campaign) -> dict[str, MergedSystem]:
    """The campaign's systems some of whose answers were merged with another's (``CampaignSettings.identical_
    answers``), by name, in the campaign's order of systems."""
    from da_platform.config.campaign_settings import CampaignSettings

    rated: dict[str, dict[str, int]] = {}
    for group in (record.groups if (record := CampaignSettings.of(campaign).identical_answers) else ()):
        for system in group.also:
            counts = rated.setdefault(system, {})
            counts[group.rated_as] = counts.get(group.rated_as, 0) + 1
    if not rated:
        return {}
    own = set(session.scalars(select(System.name).join(Slot, Slot.system_id == System.id)
                              .join(Hit, Hit.id == Slot.hit_id)
                              .where(Hit.campaign_id == campaign.id, System.name.in_(rated)).distinct()))
    return {s.name: MergedSystem(s.name, rated[s.name], s.name not in own) for s in campaign.systems
            if s.name in rated}


def copies_by_system(table: RatingsTable) -> dict[str, int]:
    """How many rows of ``table`` copy a rating of a merged identical answer for each system (none: left out)."""
    mask = table.copies()
    counts = np.bincount(table.system.codes[mask], minlength=len(table.system.labels))
    return {str(label): int(count) for label, count in zip(table.system.labels, counts) if count}
