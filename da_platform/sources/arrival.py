"""Hand HITs to arriving workers atomically, whatever the number of concurrent arrivals, on Core statements
(built once, with bind parameters), like the rating path.

The arrival rules (docs/security.md, "Arrival rules"). Who arrives: the own pool's invitation link is
signed, so it names its worker; MTurk's and Prolific's URLs name a worker id and a provider assignment id
(MTurk ``assignmentId``, Prolific ``SESSION_ID``) that prove nothing until ``sync`` has seen the provider list
that assignment for that worker on that HIT or study (it is then *confirmed*: submitted, approved or rejected).
So an arrival may only ever touch what its own link names:

1. **Resume.** An arrival resumes only its own assignment: the one started under its provider assignment id
   (own pool: the worker's unfinished one). In progress or completed: resumed. Submitted, approved or rejected:
   refused ("already submitted"). Abandoned (past its time limit, returned, released, forged): over, never
   reopened, under any id (410, "the time ran out").
2. **A new provider assignment id is a new assignment**, with a fresh time limit (MTurk gives a new id each
   time a HIT is accepted again), and touches no other assignment of that worker id, whatever its state. On
   a named HIT (MTurk) it is refused only if the provider has confirmed an assignment of that worker on that
   HIT (nobody can accept a HIT he submitted).
3. **A HIT's places** (``Hit.max_assignments``): every assignment that is not abandoned or rejected holds
   one; a worker who holds one on a HIT needs no further room there for a new assignment (a provider gives a
   worker one assignment of a HIT at a time, so his new id there is a re-accept or someone else's doing).
4. **The per-worker cap** (``Campaign.max_hits_per_worker``) counts the HITs on which the worker has an
   assignment that is surely his: own pool, any (abandoned ones too, so letting HITs time out does not buy
   more); MTurk and Prolific, only the provider's confirmed ones. An unconfirmed assignment counts nowhere,
   not even against the cap: a worker never loses a place to a request he did not make.
5. **Places come back** when an assignment is abandoned (past its source's time limit
   (:mod:`da_platform.config.time_limits`): marked so here first, at each arrival; released by ``sync`` or
   the researcher) or rejected; a cap place held by a confirmed assignment (or any own-pool one) stays taken.
6. **No item twice in a campaign in waves** (``CampaignSettings.waves``): a worker who holds or held an
   assignment there that is not abandoned or rejected (in progress, finished, submitted or approved, confirmed
   or not) gets only a HIT none of whose ordinary (``SYSTEM``) slots shows the answer of an ordinary slot of his
   other HITs there; if none is left, none. (A fixed campaign's HITs are not checked: its candidate query is
   the same as without this rule.)

A blocked worker gets nothing; a paused or closed campaign hands out no new assignment (work under way may
finish).

Statements of a new arrival on SQLite, inside ``BEGIN IMMEDIATE`` … ``COMMIT`` (the write lock): the
campaign; the worker (created if new, and read, in one upsert); the time-limit UPDATE; the worker's
assignments in the campaign (for resuming and for the cap); the first HIT with room (and, rule 6, no item of
his other HITs); the INSERT.
On PostgreSQL the worker upsert locks the worker's row (one arrival per worker at a time), candidate
HITs are taken ``FOR UPDATE SKIP LOCKED`` and the HIT's room re-checked once its row is locked.
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, bindparam, func, literal, or_, select, update

from da_core.enums import SlotType
from da_platform.config.campaign_settings import TimeLimits
from da_platform.config.time_limits import LIMITED_SOURCES, cutoffs
from da_platform.db.engine import begin_write
from da_platform.db.models import (
    CONFIRMED,
    Assignment,
    AssignmentStatus,
    AssignmentTransition,
    Campaign,
    CampaignStatus,
    Hit,
    Slot,
    Worker,
    may_make,
    status_after,
    utcnow,
)
from da_platform.providers.arrival import Arrival, ArrivalRefused

# Assignments that no longer hold a place on their HIT.
FREED = (AssignmentStatus.abandoned, AssignmentStatus.rejected)
# An abandoned assignment's own arrival: the message the worker pages give past the time limit (in the catalogue).
TIME_RAN_OUT = "The time for this task ran out, so it went back to other workers. The ratings you gave are kept."


def new_public_id() -> str:
    """A random opaque identifier for URLs (128 bits)."""
    return secrets.token_urlsafe(16)


_A, _H, _C, _W = (cast(Table, m.__table__) for m in (Assignment, Hit, Campaign, Worker))

_CAMPAIGN = select(_C.c.status, _C.c.max_hits_per_worker, _C.c.settings).where(_C.c.id == bindparam("campaign_id"))

_MINE = (
    select(_A.c.id, _A.c.public_id, _A.c.hit_id, _A.c.status, _A.c.provider_assignment_id)
    .join(_H, _H.c.id == _A.c.hit_id)
    .where(_H.c.campaign_id == bindparam("campaign_id"), _A.c.worker_id == bindparam("worker_id"))
    .order_by(_A.c.id)
)

# Unfinished assignments past their source's time limit (time_limits.overdue, with one bound cut-off per source).
_RELEASE_OVERDUE = (
    update(_A)
    .where(may_make(AssignmentTransition.time_out, _A.c.status),
           or_(*(and_(_A.c.source == source, _A.c.started_at < bindparam(f"cutoff_{source}"))
                 for source in LIMITED_SOURCES)),
           _A.c.hit_id.in_(select(_H.c.id).where(_H.c.campaign_id == bindparam("campaign_id"))))
    .values(status=status_after(AssignmentTransition.time_out))
)

# Rule 3: the places a HIT's assignments hold, and whether the arriving worker holds one there already.
_live = (select(func.count(_A.c.id)).where(_A.c.hit_id == _H.c.id, _A.c.status.not_in(FREED))
         .correlate(_H).scalar_subquery())
_holds = select(_A.c.id).where(_A.c.hit_id == _H.c.id, _A.c.worker_id == bindparam("worker_id"),
                               _A.c.status.not_in(FREED)).correlate(_H).exists()
_room = or_(_live < _H.c.max_assignments, _holds)
# Rule 4: the worker's assignments that are surely his (own pool: no provider id; else confirmed).
_surely_mine_on_hit = select(_A.c.id).where(
    _A.c.hit_id == _H.c.id, _A.c.worker_id == bindparam("worker_id"),
    or_(_A.c.provider_assignment_id.is_(None), _A.c.status.in_(CONFIRMED))).correlate(_H).exists()
_CANDIDATE = (
    select(_H.c.id)
    .where(_H.c.campaign_id == bindparam("campaign_id"), _room, ~_surely_mine_on_hit,
           _H.c.id.not_in(bindparam("rejected", expanding=True)))
    .order_by(_H.c.index)
    .limit(1)
)
_NAMED_CANDIDATE = _CANDIDATE.where(_H.c.id == bindparam("hit_id"))
# Rule 6 (campaigns in waves only): no item twice. The answers of the ordinary slots of the worker's other HITs
# in the campaign (any assignment there that still holds its place: finished, approved and unconfirmed ones too),
# and whether the candidate HIT shows one of them among its own ordinary slots.
_S, _S2, _A2, _H2 = (cast(Table, m.__table__).alias(name) for m, name in ((Slot, "seen_slot"), (Slot, "own_slot"),
                                                                          (Assignment, "held"), (Hit, "held_hit")))
_seen = (select(_S.c.answer_id).join(_A2, _A2.c.hit_id == _S.c.hit_id).join(_H2, _H2.c.id == _A2.c.hit_id)
         .where(_H2.c.campaign_id == bindparam("campaign_id"), _A2.c.worker_id == bindparam("worker_id"),
                _A2.c.status.not_in(FREED), _A2.c.hit_id != _H.c.id, _S.c.slot_type == SlotType.SYSTEM))
_repeats = (select(_S2.c.id).where(_S2.c.hit_id == _H.c.id, _S2.c.slot_type == SlotType.SYSTEM,
                                   _S2.c.answer_id.in_(_seen)).correlate(_H).exists())
_WAVE_CANDIDATES = {False: _CANDIDATE.where(~_repeats), True: _NAMED_CANDIDATE.where(~_repeats)}

_HAS_ROOM = select(_room).where(_H.c.id == bindparam("hit_id"))

_INSERT = _A.insert().values(
    hit_id=bindparam("hit_id"), worker_id=bindparam("worker_id"), public_id=bindparam("public_id"),
    source=bindparam("source"), provider_assignment_id=bindparam("provider_assignment_id"),
    provider_data=bindparam("provider_data", type_=_A.c.provider_data.type), status=AssignmentStatus.in_progress,
    next_position=0, started_at=bindparam("now"),
)


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

    own = _own(mine, arrival)
    if own is not None:
        return _resume(own)
    # A new assignment (rule 2).
    if arrival.hit_id is not None and any(row.hit_id == arrival.hit_id and row.status in CONFIRMED for row in mine):
        raise ArrivalRefused("You have already submitted this task.", status=409)
    if campaign.status == CampaignStatus.paused:
        raise ArrivalRefused("This task is paused at the moment: please come back later.", status=409)
    if campaign.status != CampaignStatus.running:
        raise ArrivalRefused("This task is not open at the moment.", status=409)
    if len({row.hit_id for row in mine if _surely_his(row)}) >= campaign.max_hits_per_worker:
        raise ArrivalRefused("You have already done as many of these tasks as one person may.", status=409)
    no_repeats = bool(_settings(campaign.settings).get("waves")) and any(row.status not in FREED for row in mine)
    hit_id = _choose_hit(connection, arrival, worker_id, no_repeats=no_repeats)
    public_id = new_public_id()
    connection.execute(_INSERT, {
        "hit_id": hit_id, "worker_id": worker_id, "public_id": public_id, "source": arrival.source,
        "provider_assignment_id": arrival.provider_assignment_id, "provider_data": dict(arrival.provider_data or {}),
        "now": now})
    return public_id


def _own(mine: Sequence[Any], arrival: Arrival) -> Any | None:
    """The arrival's own assignment (rule 1): the one under its provider assignment id (on the HIT it names, if
    it names one); for the own pool, the worker's unfinished one."""
    if arrival.provider_assignment_id is None:
        return next((row for row in mine if row.status == AssignmentStatus.in_progress), None)
    return next((row for row in mine if row.provider_assignment_id == arrival.provider_assignment_id
                 and (arrival.hit_id is None or row.hit_id == arrival.hit_id)), None)


def _resume(row: Any) -> str:
    """The public id of the arrival's own assignment, or why it cannot go on (rule 1)."""
    if row.status in CONFIRMED:
        raise ArrivalRefused("You have already submitted this task.", status=409)
    if row.status == AssignmentStatus.abandoned:
        raise ArrivalRefused(TIME_RAN_OUT, status=410)
    return row.public_id


def _surely_his(row: Any) -> bool:
    """Whether an assignment is surely its worker's (rule 4): own pool (no provider id), or confirmed."""
    return row.provider_assignment_id is None or row.status in CONFIRMED


def _settings(value: Any) -> dict[str, Any]:
    if isinstance(value, str):  # a JSON column read through a plain select on some drivers
        value = json.loads(value)
    return value or {}


def _choose_hit(connection: Connection, arrival: Arrival, worker_id: int, *, no_repeats: bool = False) -> int:
    """The HIT to hand out (locked on PostgreSQL, with its room checked once locked); with ``no_repeats`` (rule 6)
    only a HIT that shows none of the items of the worker's other HITs."""
    postgres = connection.dialect.name == "postgresql"
    rejected: list[int] = [0]  # (never a HIT id: keeps the expanding NOT IN well-formed)
    skip_locked = arrival.hit_id is None  # first try HITs nobody is being given right now
    params = {"campaign_id": arrival.campaign_id, "worker_id": worker_id, "hit_id": arrival.hit_id}
    while True:
        if no_repeats:
            statement = _WAVE_CANDIDATES[arrival.hit_id is not None]
        else:
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
        if not postgres or connection.execute(_HAS_ROOM, {"hit_id": chosen, "worker_id": worker_id}).scalar():
            return chosen
        rejected.append(chosen)
