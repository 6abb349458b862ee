"""Where a campaign stands on a provider, from the database (``sync`` brings the provider's view into it):
HITs launched there, its assignments by status, the review decisions, and those that need the researcher."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_platform.db.models import Assignment, AssignmentStatus, Hit, ReviewDecision
from da_platform.db.states import DecisionAction, DecisionStatus, WorkerSource


@dataclass(frozen=True)
class ProviderProgress:
    """A campaign on one provider: its HITs launched there out of all, its assignments there by status, every
    review decision of the campaign by action and status, and the decisions sent but unconfirmed or failed."""

    launched: int
    hits: int
    assignments: list[tuple[AssignmentStatus, int]]  # by status
    decisions: list[tuple[DecisionAction, DecisionStatus, int]]  # sorted
    attention: list[ReviewDecision]


def provider_progress(session: Session, campaign_id: int, provider: WorkerSource) -> ProviderProgress:
    """Where the campaign ``campaign_id`` stands on ``provider`` (see :class:`ProviderProgress`)."""
    launched = session.scalar(select(func.count(Hit.id)).where(Hit.campaign_id == campaign_id,
                                                                Hit.provider == provider))
    hits = session.scalar(select(func.count(Hit.id)).where(Hit.campaign_id == campaign_id))
    statuses = session.execute(
        select(Assignment.status, func.count(Assignment.id)).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign_id, Assignment.source == provider).group_by(Assignment.status)
    ).all()
    decisions = session.execute(
        select(ReviewDecision.action, ReviewDecision.status, func.count(ReviewDecision.id))
        .where(ReviewDecision.campaign_id == campaign_id)
        .group_by(ReviewDecision.action, ReviewDecision.status)
    ).all()
    attention = list(session.scalars(select(ReviewDecision).where(
        ReviewDecision.campaign_id == campaign_id,
        ReviewDecision.status.in_((DecisionStatus.sent, DecisionStatus.failed)))))
    return ProviderProgress(launched or 0, hits or 0,
                            [(s, n) for s, n in sorted(statuses, key=lambda r: r[0].value)],
                            [(a, s, n) for a, s, n in sorted(decisions)], attention)
