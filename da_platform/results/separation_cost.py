"""The planning panel in the researcher's units: an adjacent pair's "items needed per system" as
whether the test set can reach it at all, the share of a pass over the test set, HITs and cost.

A system has at most one item per question, so a pair needing more items per system than the test set
has questions cannot be separated by rating more (more passes only average more ratings per item).
HITs assume the campaign keeps rating every system alike, at its current ratings per item, 70 ordinary
slots per HIT; cost is the campaign's own cost per assignment (MTurk / Prolific reward settings), when
it has any. Above the table the panel gives the command that rehearses the campaign on a copy before paying.
"""
from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from decimal import Decimal

from analysis.power import PairProgress

ORDINARY_PER_HIT = 70


@dataclass(frozen=True)
class PairPlan:
    reachable: bool
    questions: int
    share_of_pass: float | None  # more items per system / questions
    hits: int | None
    cost: str | None

    def describe(self) -> str:
        if not self.reachable:
            return f"not reachable: the test set has {self.questions} questions"
        if self.hits is None:
            return "–"
        parts = [f"{self.share_of_pass:.2f} of a pass", f"≈ {self.hits} HIT{'s' if self.hits != 1 else ''}"]
        if self.cost:
            parts.append(f"≈ {self.cost}")
        return ", ".join(parts)


def plan_pair(pair: PairProgress, *, questions: int, systems: int, cost_per_assignment: Decimal | None = None,
              currency: str = "") -> PairPlan:
    """What reaching ``pair.items_needed`` items per system means for this campaign."""
    if pair.items_needed is None or pair.separated:
        return PairPlan(True, questions, None, None, None)
    if pair.items_needed > questions:
        return PairPlan(False, questions, None, None, None)
    more = pair.more_items or 0
    ratings_per_item = (pair.more_ratings / (2 * more)) if more and pair.more_ratings else 1.0
    hits = math.ceil(more * systems * ratings_per_item / ORDINARY_PER_HIT)
    cost = None
    if cost_per_assignment is not None:
        cost = f"{(cost_per_assignment * hits).quantize(Decimal('0.01'))} {currency}".strip()
    return PairPlan(True, questions, more / questions if questions else None, hits, cost)


def rehearsal_command(campaign: str) -> str:
    """The command that rehearses the campaign before paying (``da-platform simulate``), its name quoted for a
    POSIX shell."""
    return f"da-platform simulate {shlex.quote(campaign)}"
