"""Hand HITs to arriving workers atomically, whatever the number of concurrent arrivals.

Rules: a blocked worker gets nothing; a worker never gets the same HIT twice, never more HITs of a
campaign than ``Campaign.max_hits_per_worker`` (abandoned ones count too: letting HITs time out does
not buy more); a completed assignment is final (its provider assignment id is never replaced); a HIT never gets more
live assignments than
``Hit.max_assignments`` (abandoned and rejected assignments free their place; own-pool assignments
past the campaign's time limit are marked abandoned at the next arrival).

Concurrency: on SQLite the transaction starts with ``BEGIN IMMEDIATE`` (one writer at a time, so
the checks and the insert see one consistent state). On PostgreSQL the worker's row is locked
(``FOR UPDATE``) to serialise one worker's arrivals, candidate HITs are locked with
``FOR UPDATE SKIP LOCKED`` (concurrent workers take different HITs instead of queueing; when only
locked HITs are left, it waits for them), and the HIT's count is re-checked by a fresh statement
once its row is locked.
"""
from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session

from da_platform.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Hit,
    Worker,
    utcnow,
)
from da_platform.sources.base import Arrival, ArrivalRefused
from da_platform.sources.pool import release_overdue

# Assignments that no longer hold a place on their HIT.
FREED = (AssignmentStatus.abandoned, AssignmentStatus.rejected)
# Provider states after which the worker can no longer change anything.
FINAL = (AssignmentStatus.submitted, AssignmentStatus.approved, AssignmentStatus.rejected)


def begin_write(target: Session | Connection) -> None:
    """Start the transaction of a session or connection as a writer (SQLite: ``BEGIN IMMEDIATE``;
    no-op elsewhere).

    Call it first in a transaction, before anything is read or written.
    """
    connection = target.connection() if isinstance(target, Session) else target
    if connection.dialect.name == "sqlite":
        driver = connection.connection.dbapi_connection
        assert driver is not None  # None only once the connection is closed or invalidated, not while in use
        if not driver.in_transaction:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def new_public_id() -> str:
    """A random opaque identifier for URLs (128 bits)."""
    return secrets.token_urlsafe(16)


def take_assignment(session: Session, arrival: Arrival) -> Assignment:
    """The arriving worker's assignment: the one they are already working on, or a newly handed-out HIT.

    Runs in the caller's transaction (the caller commits); raises :class:`ArrivalRefused`.
    """
    if arrival.preview or arrival.worker_external_id is None:
        raise ArrivalRefused("Preview: nothing can be rated until the task is accepted.", status=409)
    begin_write(session)
    campaign = session.get(Campaign, arrival.campaign_id)
    if campaign is None:
        raise ArrivalRefused("This task does not exist.", status=404)
    worker = _worker(session, arrival.source, arrival.worker_external_id)  # locked: one arrival at a time
    if worker.blocked:
        raise ArrivalRefused("You cannot take part in this task.")
    release_overdue(session, campaign, utcnow())  # pool HITs past their time limit go back to others
    existing = _existing(session, campaign, worker, arrival)
    if existing is not None:
        return existing
    if campaign.status == CampaignStatus.paused:
        raise ArrivalRefused("This task is paused at the moment: please come back later.", status=409)
    if campaign.status != CampaignStatus.running:
        raise ArrivalRefused("This task is not open at the moment.", status=409)
    return hand_out(
        session,
        campaign,
        worker,
        hit_id=arrival.hit_id,
        source=arrival.source,
        provider_assignment_id=arrival.provider_assignment_id,
        provider_data=arrival.provider_data,
    )


def hand_out(
    session: Session,
    campaign: Campaign,
    worker: Worker,
    *,
    hit_id: int | None = None,
    source: str,
    provider_assignment_id: str | None = None,
    provider_data: dict[str, Any] | None = None,
) -> Assignment:
    """Give ``worker`` a new HIT of ``campaign`` (``hit_id`` when the provider names it).

    The caller holds the worker's row lock (:func:`_worker` takes it), so one worker's concurrent
    arrivals are handled one after the other.
    """
    begin_write(session)
    postgres = session.get_bind().dialect.name == "postgresql"
    taken = session.execute(
        select(func.count(Assignment.id))
        .join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == worker.id)
    ).scalar_one()  # every status, abandoned included: timing HITs out must not lift the cap
    if taken >= campaign.max_hits_per_worker:
        raise ArrivalRefused("You have already done as many of these tasks as one person may.", status=409)

    rejected: list[int] = []
    skip_locked = hit_id is None  # first try HITs nobody is being given right now
    while True:
        candidate = _candidates(campaign.id, worker.id, hit_id, rejected)
        if postgres:
            candidate = candidate.with_for_update(of=Hit, skip_locked=skip_locked)
        chosen = session.scalar(candidate)
        if chosen is None:
            if postgres and skip_locked:  # the only HITs with room may be locked: wait for them
                skip_locked = False
                continue
            raise ArrivalRefused("There is no task left for you at the moment.", status=409)
        # The row is locked now (PostgreSQL) or the database is (SQLite): count afresh.
        if _has_room(session, chosen):
            break
        rejected.append(chosen)

    assignment = Assignment(
        hit_id=chosen,
        worker_id=worker.id,
        public_id=new_public_id(),
        source=source,
        provider_assignment_id=provider_assignment_id,
        provider_data=dict(provider_data or {}),
        status=AssignmentStatus.in_progress,
        next_position=0,
    )
    session.add(assignment)
    session.flush()
    return assignment


def _candidates(campaign_id: int, worker_id: int, hit_id: int | None, rejected: list[int]):
    live = (
        select(func.count(Assignment.id))
        .where(Assignment.hit_id == Hit.id, Assignment.status.not_in(FREED))
        .correlate(Hit)
        .scalar_subquery()
    )
    mine = select(Assignment.id).where(Assignment.hit_id == Hit.id, Assignment.worker_id == worker_id)
    query = (
        select(Hit.id)
        .where(Hit.campaign_id == campaign_id, live < Hit.max_assignments, ~mine.exists())
        .order_by(Hit.index)
        .limit(1)
    )
    if hit_id is not None:
        query = query.where(Hit.id == hit_id)
    if rejected:
        query = query.where(Hit.id.not_in(rejected))
    return query


def _has_room(session: Session, hit_id: int) -> bool:
    """Whether the HIT has fewer live assignments than it allows (one statement)."""
    live = (
        select(func.count(Assignment.id))
        .where(Assignment.hit_id == hit_id, Assignment.status.not_in(FREED))
        .scalar_subquery()
    )
    return bool(session.scalar(select(live < Hit.max_assignments).where(Hit.id == hit_id)))


def _worker(session: Session, source: str, external_id: str) -> Worker:
    """The worker row, created if new (safe against a concurrent first arrival of the same person),
    and locked until the transaction ends (PostgreSQL ``FOR UPDATE``; SQLite is serialised already)."""
    dialect = session.get_bind().dialect.name
    from sqlalchemy.dialects import postgresql, sqlite

    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(
        insert(Worker)
        .values(source=source, external_id=external_id, blocked=False, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["source", "external_id"])
    )
    return session.scalars(
        select(Worker).where(Worker.source == source, Worker.external_id == external_id).with_for_update()
    ).one()


def _existing(session: Session, campaign: Campaign, worker: Worker, arrival: Arrival) -> Assignment | None:
    """The assignment the worker should resume, if any.

    With a named HIT (MTurk) that is the worker's assignment on it — a new provider assignment id
    (the worker returned the HIT and accepted it again) replaces the old one, unless the assignment
    is completed already (then it is refused: it would hide the real one from review). Otherwise it is the
    worker's unfinished assignment in the campaign.
    """
    query = (
        select(Assignment)
        .join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == worker.id)
    )
    if arrival.hit_id is not None:
        assignment = session.scalars(query.where(Assignment.hit_id == arrival.hit_id)).first()
        if assignment is None:
            return None
        if assignment.status in FINAL:
            raise ArrivalRefused("You have already submitted this task.", status=409)
        if (assignment.status == AssignmentStatus.completed
                and assignment.provider_assignment_id != arrival.provider_assignment_id):
            # Finished here: its assignment id is the one MTurk will report; another one must not replace it.
            raise ArrivalRefused("You have already finished this task.", status=409)
        if assignment.status == AssignmentStatus.abandoned:  # accepted again after returning it
            session.get(Hit, assignment.hit_id, with_for_update=True)
            if not _has_room(session, assignment.hit_id):
                raise ArrivalRefused("There is no task left for you at the moment.", status=409)
            assignment.status = AssignmentStatus.in_progress
        if assignment.provider_assignment_id != arrival.provider_assignment_id:
            assignment.provider_assignment_id = arrival.provider_assignment_id
            assignment.provider_data = {**(assignment.provider_data or {}), **arrival.provider_data}
            session.flush()
        return assignment
    return session.scalars(
        query.where(Assignment.status == AssignmentStatus.in_progress).order_by(Assignment.id)
    ).first()
