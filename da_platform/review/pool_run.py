"""The review policy applied to every own-pool worker of a campaign at once (``da-platform pool
review``), as ``mturk review`` does for MTurk: the same plan (``policy.plan``), stored the same way
(``policy.store``, with audit rows), and carried out there at once as for every own-pool decision
(``apply.apply_decision``: nobody to send anything to; payments happen outside the platform)."""
from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from da_platform.config.review_policy import ReviewPolicy
from da_platform.db.models import Campaign
from da_platform.db.states import WorkerSource
from da_platform.review.decisions import PlannedDecision, plan, quality_by_worker, record_decisions

SOURCE = WorkerSource.pool


def plan_pool(session: Session, campaign: Campaign, policy: ReviewPolicy) -> list[PlannedDecision]:
    """Every decision the policy takes now on the campaign's finished own-pool assignments."""
    return plan(session, campaign, SOURCE, policy, quality_by_worker(session, campaign, policy))


def review_pool(sessions: sessionmaker[Session], campaign_id: int, policy: ReviewPolicy,
                planned: list[PlannedDecision]) -> int:
    """Store the planned decisions, carried out at once; returns how many were carried out."""
    record_decisions(sessions, campaign_id, SOURCE, policy, planned)
    return len(planned)
