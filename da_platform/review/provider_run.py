"""A provider review run (``da-platform mturk|prolific review``): what the review policy decides now
and its cost (:func:`propose_review`), then recording and sending it (:func:`carry_out_review`).

The command only shows the proposal, asks for the cost to be confirmed and reports the outcome.
Every decision is recorded by ``policy.store`` and takes effect through
``apply.apply_decision``, as the dashboard's and ``da-platform decide``'s do.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from da_platform.db.models import Campaign
from da_platform.db.rows import get_row
from da_platform.providers.base import Provider
from da_platform.providers.definition import SourceDefinition
from da_platform.providers.money import CostEstimate
from da_platform.review.apply import ExecutionReport, execute_pending
from da_platform.review.decisions import (
    PlannedDecision,
    ReviewPolicy,
    held_for_review,
    plan,
    planned_cost,
    quality_by_worker,
    record_decisions,
)

Pricing = Callable[[int, list[Decimal]], CostEstimate]
"""The cost of approving some assignments and paying some bonuses (the rewards, the bonuses, the fees)."""


def pricing_at(definition: SourceDefinition, settings: Any) -> Pricing:
    """The :data:`Pricing` of a provider (its definition) at its ``settings`` (a campaign's, as stored)."""
    def pricing(approvals: int, bonuses: list[Decimal]) -> CostEstimate:
        cost = definition.cost(settings, assignments=approvals, bonuses=bonuses)
        if cost is None:
            raise ValueError(f"{definition.name} is paid outside the platform: no review run prices it")
        return cost

    return pricing


@dataclass(frozen=True)
class ReviewProposal:
    """What the policy decides now: the decisions, the assignments held for the researcher, the cost."""

    planned: list[PlannedDecision]
    held: list[tuple[str, str]]  # (the provider's assignment id or ours, why it is held)
    cost: CostEstimate


def propose_review(sessions: sessionmaker[Session], campaign_id: int, source: str, policy: ReviewPolicy,
                   pricing: Pricing) -> ReviewProposal:
    """The policy's decisions on the campaign's ``source`` assignments awaiting review (nothing is written)."""
    with sessions() as session:
        campaign = get_row(session, Campaign, campaign_id)
        qc = quality_by_worker(session, campaign, policy)
        planned = plan(session, campaign, source, policy, qc)
        held = [(a.provider_assignment_id or a.public_id, v.reason)
                for a, v in held_for_review(session, campaign, source, policy, qc)]
    return ReviewProposal(planned, held, planned_cost(planned, pricing))


def carry_out_review(sessions: sessionmaker[Session], campaign_id: int, provider: Provider, policy: ReviewPolicy,
                     planned: list[PlannedDecision], *,
                     progress: Callable[[int], None] | None = None) -> ExecutionReport:
    """Commit the planned decisions with the policy, then send every pending decision of the campaign
    (the dashboard's too) to ``provider``."""
    record_decisions(sessions, campaign_id, provider.name, policy, planned)
    return execute_pending(sessions, campaign_id, provider, policy.messages(), progress=progress)
