"""Hand HITs to arriving workers atomically, whatever the number of concurrent arrivals, on Core statements
(built once, with bind parameters), like the rating path.

Rules: a blocked worker gets nothing; a worker never gets the same HIT twice, never more HITs of a campaign
than ``Campaign.max_hits_per_worker`` — abandoned ones count too, so letting HITs time out does not buy
more; a HIT never gets more live assignments than ``Hit.max_assignments`` (abandoned and rejected ones
free their place); assignments of the campaign past their source's time limit
(:mod:`da_platform.sources.time_limits`) are marked abandoned first.
An unfinished assignment is resumed only under its own provider assignment id (MTurk assignmentId,
Prolific SESSION_ID): the worker id in the provider's URL proves nothing, so another id with the same
worker id could be anyone's and never gets the assignment's token. With a named HIT (MTurk) the
worker's assignment on it is resumed: submitted/approved/rejected ones are refused, a completed one is
final, an abandoned one is reopened if the HIT has room, under the new provider assignment id (MTurk
gives a new one each time a HIT is accepted again).

Statements of a new arrival on SQLite, inside ``BEGIN IMMEDIATE`` … ``COMMIT`` (the write lock): the
campaign; the worker (created if new, and read, in one upsert); the time-limit UPDATE; the worker's
assignments in the campaign (for resuming and for the cap); the first HIT with room; the INSERT.
On PostgreSQL the worker upsert locks the worker's row (one arrival per worker at a time), candidate
HITs are taken ``FOR UPDATE SKIP LOCKED`` and the HIT's room re-checked once its row is locked.
"""
from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, bindparam, func, literal, or_, select, update

from da_platform.config.campaign_settings import TimeLimits
from da_platform.db.engine import begin_write
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, CampaignStatus, Hit, Worker, utcnow
from da_platform.sources.base import Arrival, ArrivalRefused
from da_platform.sources.time_limits import LIMITED_SOURCES, cutoffs

# Assignments that no longer hold a place on their HIT.
FREED = (AssignmentStatus.abandoned, AssignmentStatus.rejected)
# Provider states after which the worker can no longer change anything.
FINAL = (AssignmentStatus.submitted, AssignmentStatus.approved, AssignmentStatus.rejected)


def new_public_id() -> str:
    """A random opaque identifier for URLs (128 bits)."""
    return secrets.token_urlsafe(16)


_A, _H, _C, _W = (cast(Table, m.__table__) for m in (Assignment, Hit, Campaign, Worker))

_CAMPAIGN = select(_C.c.status, _C.c.max_hits_per_worker, _C.c.settings).where(_C.c.id == bindparam("campaign_id"))

_MINE = (
    select(_A.c.id, _A.c.public_id, _A.c.hit_id, _A.c.status, _A.c.provider_assignment_id, _A.c.provider_data)
    .join(_H, _H.c.id == _A.c.hit_id)
    .where(_H.c.campaign_id == bindparam("campaign_id"), _A.c.worker_id == bindparam("worker_id"))
    .order_by(_A.c.id)
)

# Unfinished assignments past their source's time limit (time_limits.overdue, with one bound cut-off per source).
_RELEASE_OVERDUE = (
    update(_A)
    .where(_A.c.status == AssignmentStatus.in_progress,
           or_(*(and_(_A.c.source == source, _A.c.started_at < bindparam(f"cutoff_{source}"))
                 for source in LIMITED_SOURCES)),
           _A.c.hit_id.in_(select(_H.c.id).where(_H.c.campaign_id == bindparam("campaign_id"))))
    .values(status=AssignmentStatus.abandoned)
)

_live = (select(func.count(_A.c.id)).where(_A.c.hit_id == _H.c.id, _A.c.status.not_in(FREED))
         .correlate(_H).scalar_subquery())
_mine_on_hit = select(_A.c.id).where(_A.c.hit_id == _H.c.id, _A.c.worker_id == bindparam("worker_id"))
_CANDIDATE = (
    select(_H.c.id)
    .where(_H.c.campaign_id == bindparam("campaign_id"), _live < _H.c.max_assignments, ~_mine_on_hit.exists(),
           _H.c.id.not_in(bindparam("rejected", expanding=True)))
    .order_by(_H.c.index)
    .limit(1)
)
_NAMED_CANDIDATE = _CANDIDATE.where(_H.c.id == bindparam("hit_id"))

_HAS_ROOM = select(
    select(func.count(_A.c.id)).where(_A.c.hit_id == bindparam("hit_id"), _A.c.status.not_in(FREED))
    .scalar_subquery() < _H.c.max_assignments
).where(_H.c.id == bindparam("hit_id"))

_LOCK_HIT = select(_H.c.id).where(_H.c.id == bindparam("hit_id")).with_for_update()

_INSERT = _A.insert().values(
    hit_id=bindparam("hit_id"), worker_id=bindparam("worker_id"), public_id=bindparam("public_id"),
    source=bindparam("source"), provider_assignment_id=bindparam("provider_assignment_id"),
    provider_data=bindparam("provider_data", type_=_A.c.provider_data.type), status=AssignmentStatus.in_progress,
    next_position=0, started_at=bindparam("now"),
)

_REOPEN = update(_A).where(_A.c.id == bindparam("assignment_id")).values(status=AssignmentStatus.in_progress)

_REPLACE_PROVIDER_ID = update(_A).where(_A.c.id == bindparam("assignment_id")).values(
    provider_assignment_id=bindparam("new_provider_assignment_id"),
    provider_data=bindparam("new_provider_data", type_=_A.c.provider_data.type))


def _worker_upsert(dialect: str):
    """INSERT the worker or touch the existing row, returning (id, blocked): one statement that also
    locks the row until the transaction ends (PostgreSQL: ON CONFLICT DO UPDATE takes the row lock)."""
    from sqlalchemy.dialects import postgresql, sqlite

    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(_W).values(source=bindparam("source"), external_id=bindparam("external_id"),
                                  blocked=literal(False), created_at=bindparam("now"))
    return statement.on_conflict_do_update(
        index_elements=["source", "external_id"], set_={"blocked": _W.c.blocked}
    ).returning(_W.c.id, _W.c.blocked)


_UPSERTS = {name: _worker_upsert(name) for name in ("postgresql", "sqlite")}


def take_assignment_id(connection: Connection, arrival: Arrival, now: datetime | None = None) -> str:
    """The public id of the arriving worker's assignment: the one to resume, or a newly handed-out HIT.

    Runs in the caller's transaction on ``connection`` (the caller commits); raises
    :class:`ArrivalRefused` (the caller rolls back).
    """
    if arrival.preview or arrival.worker_external_id is None:
        raise ArrivalRefused("Preview: nothing can be rated until the task is accepted.", status=409)
    now = now or utcnow()
    begin_write(connection)
    campaign = connection.execute(_CAMPAIGN, {"campaign_id": arrival.campaign_id}).first()
    if campaign is None:
        raise ArrivalRefused("This task does not exist.", status=404)
    dialect = connection.dialect.name
    # (the upsert sets blocked to itself: nothing changes, but the row is written, hence locked)
    worker_id, blocked = connection.execute(
        _UPSERTS["postgresql" if dialect == "postgresql" else "sqlite"],
        {"source": arrival.source, "external_id": arrival.worker_external_id, "now": now}).one()
    if blocked:
        raise ArrivalRefused("You cannot take part in this task.")
    connection.execute(_RELEASE_OVERDUE, {
        "campaign_id": arrival.campaign_id,
        **{f"cutoff_{source}": cutoff
           for source, cutoff in cutoffs(TimeLimits.of(_settings(campaign.settings)), now).items()}})
    mine = connection.execute(_MINE, {"campaign_id": arrival.campaign_id, "worker_id": worker_id}).all()

    if arrival.hit_id is not None:
        on_hit = next((row for row in mine if row.hit_id == arrival.hit_id), None)
        if on_hit is not None:
            return _resume_named(connection, on_hit, arrival)
    else:
        unfinished = next((row for row in mine if row.status == AssignmentStatus.in_progress), None)
        if unfinished is not None:
            if unfinished.provider_assignment_id != arrival.provider_assignment_id:  # (Prolific: another session)
                raise _under_way()
            return unfinished.public_id
    if campaign.status == CampaignStatus.paused:
        raise ArrivalRefused("This task is paused at the moment: please come back later.", status=409)
    if campaign.status != CampaignStatus.running:
        raise ArrivalRefused("This task is not open at the moment.", status=409)
    if len(mine) >= campaign.max_hits_per_worker:  # every status counts, abandoned too
        raise ArrivalRefused("You have already done as many of these tasks as one person may.", status=409)
    hit_id = _choose_hit(connection, arrival, worker_id)
    public_id = new_public_id()
    connection.execute(_INSERT, {
        "hit_id": hit_id, "worker_id": worker_id, "public_id": public_id, "source": arrival.source,
        "provider_assignment_id": arrival.provider_assignment_id, "provider_data": dict(arrival.provider_data or {}),
        "now": now})
    return public_id


def _settings(value: Any) -> dict[str, Any]:
    if isinstance(value, str):  # a JSON column read through a plain select on some drivers
        value = json.loads(value)
    return value or {}


def _choose_hit(connection: Connection, arrival: Arrival, worker_id: int) -> int:
    """The HIT to hand out (locked on PostgreSQL, with its room checked once locked)."""
    postgres = connection.dialect.name == "postgresql"
    rejected: list[int] = [0]  # (never a HIT id: keeps the expanding NOT IN well-formed)
    skip_locked = arrival.hit_id is None  # first try HITs nobody is being given right now
    params = {"campaign_id": arrival.campaign_id, "worker_id": worker_id, "hit_id": arrival.hit_id}
    while True:
        statement = _CANDIDATE if arrival.hit_id is None else _NAMED_CANDIDATE
        if postgres:
            statement = statement.with_for_update(of=_H, skip_locked=skip_locked)
        chosen = connection.execute(statement, {**params, "rejected": rejected}).scalar()
        if chosen is None:
            if postgres and skip_locked:  # the only HITs with room may be locked: wait for them
                skip_locked = False
                continue
            raise ArrivalRefused("There is no task left for you at the moment.", status=409)
        # SQLite: the database is locked, the candidate query's count is current. PostgreSQL: count
        # afresh now that the row is locked.
        if not postgres or connection.execute(_HAS_ROOM, {"hit_id": chosen}).scalar():
            return chosen
        rejected.append(chosen)


def _under_way() -> ArrivalRefused:
    """An unfinished assignment asked for under another provider assignment id (MTurk assignmentId,
    Prolific SESSION_ID): the worker id beside it proves nothing, so it is refused."""
    return ArrivalRefused("This task is already under way with another assignment: continue it where you started "
                          "it. If you returned it, it is free again once its time limit has passed.", status=409)


def _resume_named(connection: Connection, row: Any, arrival: Arrival) -> str:
    """The worker's assignment on the HIT the provider named (MTurk), as the rules above say."""
    if row.status in FINAL:
        raise ArrivalRefused("You have already submitted this task.", status=409)
    if row.provider_assignment_id != arrival.provider_assignment_id:
        if row.status == AssignmentStatus.completed:
            # Finished here: its assignment id is the one the provider will report; another must not replace it.
            raise ArrivalRefused("You have already finished this task.", status=409)
        if row.status == AssignmentStatus.in_progress:
            # Whoever holds the stored assignment id is rating it; an unauthenticated second id must not
            # take over the assignment (nor its ratings, nor what review pays).
            raise _under_way()
    if row.status == AssignmentStatus.abandoned:  # accepted again after returning it
        if connection.dialect.name == "postgresql":
            connection.execute(_LOCK_HIT, {"hit_id": row.hit_id})
        if not connection.execute(_HAS_ROOM, {"hit_id": row.hit_id}).scalar():
            raise ArrivalRefused("There is no task left for you at the moment.", status=409)
        connection.execute(_REOPEN, {"assignment_id": row.id})
    if row.provider_assignment_id != arrival.provider_assignment_id:
        connection.execute(_REPLACE_PROVIDER_ID, {
            "assignment_id": row.id, "new_provider_assignment_id": arrival.provider_assignment_id,
            "new_provider_data": {**_settings(row.provider_data), **arrival.provider_data}})
    return row.public_id
