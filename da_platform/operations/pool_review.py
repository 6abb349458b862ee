"""The review policy applied to every own-pool worker of a campaign at once (``da-platform pool
review``), as ``mturk review`` does for MTurk: the same plan (``review.plan``), stored the same way
(pending, with audit rows), then carried out at once as the dashboard does for own-pool workers
(nobody to send anything to; payments happen outside the platform)."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from da_platform.models import Campaign, ReviewDecision
from da_platform.operations.decisions import PENDING
from da_platform.operations.review import (
    PlannedDecision,
    ReviewPolicy,
    plan,
    quality_by_worker,
    record_decisions,
)

SOURCE = "pool"


def plan_pool(session: Session, campaign: Campaign, policy: ReviewPolicy) -> list[PlannedDecision]:
    """Every decision the policy takes now on the campaign's finished own-pool assignments."""
    return plan(session, campaign, SOURCE, policy, quality_by_worker(session, campaign, policy))


def review_pool(sessions: sessionmaker[Session], campaign_id: int, policy: ReviewPolicy,
                planned: list[PlannedDecision]) -> int:
    """Store the planned decisions and carry them out; returns how many were carried out."""
    from da_platform.web.admin.decisions import (
        _carry_out,  # the dashboard's own-pool execution
    )

    record_decisions(sessions, campaign_id, SOURCE, policy, planned)
    tokens = [p.request_token for p in planned]
    with sessions.begin() as session:
        pending = list(session.scalars(select(ReviewDecision).where(
            ReviewDecision.campaign_id == campaign_id, ReviewDecision.request_token.in_(tokens),
            ReviewDecision.status == PENDING).order_by(ReviewDecision.id)))
        for decision in pending:
            _carry_out(session, decision)
    return len(pending)
