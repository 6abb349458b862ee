"""Bring the provider's view of a campaign's assignments into the database, then reconcile.

For every launched HIT (MTurk) or study (Prolific): list every assignment (all pages), update the
matching ``Assignment`` (by provider assignment id, for the worker and HIT / study the provider names) —
status and provider data — and record assignments the platform never saw in the audit log. Only this
confirms an MTurk or Prolific assignment (submitted, approved, rejected): until then its ratings count
nowhere (:mod:`da_platform.rating.campaign_ratings`). A row under a listed id but of another worker or HIT
was written by hand and is abandoned. An assignment in progress or completed here that
the provider does not list and that started longer ago than its time limit
(:mod:`da_platform.config.time_limits`) is abandoned, its place freed and its ratings left out: the
provider has none under that id that it can still receive (MTurk lists only submitted, approved and
rejected assignments, so one that is not listed by the end of its time limit was returned, expired,
never submitted, or never existed — an arrival with a made-up id). Workers of a provider with an exclusion
(MTurk's qualification: ``SourceDefinition.excludes_finished``) who finished as many HITs as the campaign
allows get an ``exclude`` decision. Finally every ``sent`` decision is reconciled with the provider (see
:mod:`.decisions`) and every ``pending`` one (stored by a review that stopped before sending it) is sent.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from da_platform.config import time_limits
from da_platform.config.review_policy import WorkerMessages
from da_platform.db.audit import audit
from da_platform.db.models import (
    CONFIRMED,
    Assignment,
    AssignmentTransition,
    Campaign,
    Hit,
    ReviewDecision,
    Worker,
    make,
    may_make,
    status_after,
    utcnow,
)
from da_platform.db.rows import get_row
from da_platform.db.states import DecisionAction, WorkerSource
from da_platform.providers.base import Provider, ProviderAssignment, ProviderStatus
from da_platform.providers.idempotency import request_token
from da_platform.providers.registry import source
from da_platform.review.apply import PENDING, ExecutionReport, execute_pending, reconcile

_TO_OURS = {
    ProviderStatus.submitted: AssignmentTransition.sync_submitted,
    ProviderStatus.approved: AssignmentTransition.sync_approved,
    ProviderStatus.rejected: AssignmentTransition.sync_rejected,
    ProviderStatus.abandoned: AssignmentTransition.sync_abandoned,
}


@dataclass
class SyncResult:
    """What a sync saw and changed."""

    seen: int = 0
    updated: int = 0
    unknown: list[str] = field(default_factory=list)  # provider assignment ids we have no row for
    by_status: dict[str, int] = field(default_factory=dict)
    excluded: int = 0
    released: list[str] = field(default_factory=list)  # ours past their limit, not listed: abandoned
    forged: list[str] = field(default_factory=list)  # listed ids we hold for another worker or HIT: abandoned
    reconciled: ExecutionReport = field(default_factory=ExecutionReport)


def work_ids(session: Session, campaign: Campaign, provider: WorkerSource) -> list[str]:
    """The provider's HIT / study ids of the campaign."""
    return list(session.scalars(
        select(Hit.provider_hit_id).where(Hit.campaign_id == campaign.id, Hit.provider == provider,
                                          Hit.provider_hit_id.is_not(None)).distinct().order_by(Hit.provider_hit_id)))


def apply_assignment(session: Session, campaign: Campaign, item: ProviderAssignment, provider: WorkerSource,
                     result: SyncResult) -> None:
    """Update our row for one provider assignment (or note that we have none).

    Our row is the provider's assignment only if it is of the worker and on the HIT / study the provider
    names: the arrival URL's ids are not authenticated, so another worker id (or HIT) under a real
    assignment id is a forgery; such a row is abandoned (its ratings never count) and audited.
    """
    result.seen += 1
    result.by_status[item.raw_status] = result.by_status.get(item.raw_status, 0) + 1
    rows = session.execute(
        select(Assignment, Worker.external_id, Hit.provider_hit_id).join(Hit, Hit.id == Assignment.hit_id)
        .join(Worker, Worker.id == Assignment.worker_id)
        .where(Hit.campaign_id == campaign.id, Assignment.source == provider,
               Assignment.provider_assignment_id == item.assignment_id)
        .order_by(Assignment.id)
    ).all()
    row = None
    for candidate, worker, work in rows:
        if (worker, work) == (item.worker_id, item.work_id):
            row = candidate
        else:
            _abandon_forgery(session, campaign, provider, candidate, item, worker, work, result)
    if row is None:
        if item.status is not ProviderStatus.in_progress:
            result.unknown.append(item.assignment_id)
            audit(session, f"{provider}.sync.unknown", campaign_id=campaign.id, target=item.assignment_id,
                  reason="the provider has this assignment but the platform never saw the worker arrive",
                  details={"worker": item.worker_id, "work": item.work_id, "status": item.raw_status})
        return
    transition = _TO_OURS.get(item.status)
    data = {**(row.provider_data or {}), "status": item.raw_status}
    if item.submitted_at is not None:
        data["submitted_at"] = item.submitted_at.isoformat()
    changed = False
    if transition is not None and row.status != status_after(transition):
        changed = True
        audit(session, f"{provider}.sync.status", campaign_id=campaign.id, target=item.assignment_id,
              outcome=f"{row.status.value} -> {status_after(transition).value}")
        make(row, transition)
    if data != row.provider_data:
        row.provider_data = data
        changed = True
    result.updated += changed


def _abandon_forgery(session: Session, campaign: Campaign, provider: WorkerSource, row: Assignment,
                     item: ProviderAssignment, worker: str, work: str | None, result: SyncResult) -> None:
    """Our row under a real provider assignment id but with another worker or HIT than the provider's."""
    before = row.status
    if not make(row, AssignmentTransition.forged):
        return
    result.forged.append(item.assignment_id)
    audit(session, f"{provider}.sync.forged", campaign_id=campaign.id, target=item.assignment_id,
          outcome=f"{before.value} -> abandoned",
          reason="the provider has this assignment id for another worker or HIT: the arrival was written by hand; "
                 "its place is free again and its ratings are left out of the analysis",
          details={"ours": {"worker": worker, "work": work}, "provider": {"worker": item.worker_id,
                                                                           "work": item.work_id}})



def release_unlisted(session: Session, campaign: Campaign, provider: WorkerSource, work_id: str, listed: set[str],
                     now: datetime, result: SyncResult) -> None:
    """Abandon our in-progress and completed assignments on this HIT / study that started longer ago than
    their time limit at ``now`` and that the provider does not list (``listed``: its assignment ids): it
    can no longer receive a submission for them, so they are not finished HITs (an arrival with a made-up
    id, or a worker who never submitted). Their places are free again and their ratings, kept, are left
    out of the analysis as every abandoned assignment's are."""
    rows = session.scalars(
        select(Assignment).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Hit.provider == provider, Hit.provider_hit_id == work_id,
               Assignment.source == provider, may_make(AssignmentTransition.release_unlisted, Assignment.status),
               time_limits.started_too_long_ago(campaign, now))
        .order_by(Assignment.id)
    ).all()
    for row in rows:
        if row.provider_assignment_id in listed:
            continue
        before = row.status
        make(row, AssignmentTransition.release_unlisted)
        target = row.provider_assignment_id or row.public_id
        result.released.append(target)
        audit(session, f"{provider}.sync.release", campaign_id=campaign.id, target=target,
              outcome=f"{before.value} -> abandoned",
              reason="past its time limit and not listed by the provider (never submitted there): its place on "
                     "the HIT is free again and its ratings are left out of the analysis",
              details={"work": work_id, "started_at": row.started_at.isoformat()})


def plan_exclusions(session: Session, campaign: Campaign, provider: WorkerSource) -> int:
    """``exclude`` decisions for workers who finished ``max_hits_per_worker`` HITs (not yet excluded): HITs the
    provider confirmed, so that made-up arrivals under a worker's id cannot get him excluded."""
    finished = (
        select(Assignment.worker_id, func.count(Assignment.id).label("n"))
        .join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.source == provider, Assignment.status.in_(CONFIRMED))
        .group_by(Assignment.worker_id).subquery()
    )
    already = select(ReviewDecision.worker_id).where(
        ReviewDecision.campaign_id == campaign.id,
        ReviewDecision.action.in_((DecisionAction.exclude, DecisionAction.block)))
    workers = session.execute(
        select(Worker.id, Worker.external_id).join(finished, finished.c.worker_id == Worker.id)
        .where(finished.c.n >= campaign.max_hits_per_worker, Worker.id.not_in(already))
    ).all()
    for worker_id, external in workers:
        reason = f"finished {campaign.max_hits_per_worker} HIT(s) of the campaign: exclusion qualification"
        session.add(ReviewDecision(campaign_id=campaign.id, worker_id=worker_id, action=DecisionAction.exclude,
                                   use_data=True, reason=reason, status=PENDING,
                                   request_token=request_token(f"{provider}-exclude", campaign.id, worker_id)))
        audit(session, f"{provider}.decide.exclude", campaign_id=campaign.id, target=external, reason=reason)
    return len(workers)


def sync_campaign(sessions: sessionmaker[Session], campaign_id: int, provider: Provider,
                  messages: WorkerMessages, *, exclude_finished: bool = True,
                  resend_unverified_bonuses: bool = False) -> SyncResult:
    """Sync every HIT / study of the campaign, grant exclusions, reconcile sent decisions."""
    result = SyncResult()
    with sessions() as session:
        ids = work_ids(session, get_row(session, Campaign, campaign_id), provider.name)
    for work_id in ids:
        listed_at = utcnow()  # what was past its limit before the listing began and is not in it
        items = list(provider.list_assignments(work_id))
        with sessions.begin() as session:
            campaign = get_row(session, Campaign, campaign_id)
            for item in items:
                apply_assignment(session, campaign, item, provider.name, result)
            release_unlisted(session, campaign, provider.name, work_id, {item.assignment_id for item in items},
                             listed_at, result)
            audit(session, f"{provider.name}.sync", campaign_id=campaign_id, target=work_id,
                  outcome=f"{len(items)} assignment(s)")
    if exclude_finished and source(provider.name).excludes_finished:
        with sessions.begin() as session:
            result.excluded = plan_exclusions(session, get_row(session, Campaign, campaign_id), provider.name)
        result.reconciled.add(execute_pending(sessions, campaign_id, provider, messages,
                                              only=(DecisionAction.exclude,)))
    result.reconciled.add(reconcile(sessions, campaign_id, provider, messages,
                                    resend_unverified_bonuses=resend_unverified_bonuses))
    # Decisions stored by an interrupted review (decided, never sent) are carried out now.
    result.reconciled.add(execute_pending(sessions, campaign_id, provider, messages))
    return result
