"""The server-side order of a worker's assignment: where it stands, and storing ratings.

Plain functions over a SQLAlchemy Core connection (no Flask, no ORM session): the hot path is a
handful of statements built once. The caller commits. Invariants:

- only the current slot (``Assignment.next_position``) can be rated; anything else is refused and
  changes nothing;
- the same rating sent twice is stored once and answers as success;
- a blocked worker, or a worker past the HIT's time limit (:mod:`da_platform.config.time_limits`),
  can rate nothing more (checked on every rating and page, not only on arrival);
- the claim of a position is a conditional ``UPDATE … WHERE next_position = :current``, so
  concurrent duplicates of one request can never store two ratings or skip a slot;
- the page's behaviour record is stored with the rating as valid or as why it is not
  (``da_platform.rating.behaviour_record``); it never decides whether the rating is accepted;
- beside it, the server's own record: each image of the current slot the assignment is served is noted on the
  assignment (``current_images_served``, one conditional UPDATE the first time each is asked for), and a rating
  is stored with whether every image its slot shows had been served (``Rating.images_served``); the claim
  clears the note for the next slot. Evidence, never a gate either.

Cost per rating: on PostgreSQL one autocommitted statement (claim, insert and the next screen in a
data-modifying CTE: one round trip); on SQLite a ``BEGIN IMMEDIATE`` transaction of one ``SELECT``
(the assignment, the rated slot and the screen after it, joined), the claim ``UPDATE`` and the rating
``INSERT``. The next screen travels back in the same response, so a worker's whole HIT is one
request per rating (plus the images).
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import (
    Connection,
    DateTime,
    Engine,
    Integer,
    Table,
    and_,
    bindparam,
    case,
    false,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.sql import Select

from da_platform.config.campaign_settings import TimeLimits
from da_platform.config.time_limits import is_overdue, limit_seconds_sql
from da_platform.db.engine import begin_write
from da_platform.db.models import (
    Assignment,
    AssignmentStatus,
    AssignmentTransition,
    Campaign,
    Hit,
    Question,
    Rating,
    Slot,
    Worker,
    may_make,
    status_after,
    utcnow,
)
from da_platform.db.sqlite_commit import no_wait
from da_platform.rating.behaviour_record import parse_behaviour

_SCORE = re.compile(r"(?:0|[1-9][0-9]?|100)")


class RatingRefused(Exception):
    """A rating that cannot be stored; ``status`` is the HTTP status (400 malformed, 409 out of order)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


TIMED_OUT = "The time for this task ran out, so it went back to other workers. The ratings you gave are kept."
BLOCKED = "You cannot take part in this task any more."


IMAGE_SERVED = {"candidate": 1, "reference": 2}
"""The bit of ``Assignment.current_images_served`` each image of a slot sets once served."""


def images_served(served: int, show_reference: bool, reference_image: str | None) -> bool:
    """Whether the images noted as ``served`` are every image the slot shows (its answer, and the reference
    when the campaign shows one and the slot has it)."""
    needed = IMAGE_SERVED["candidate"] | (IMAGE_SERVED["reference"] if show_reference and reference_image else 0)
    return served & needed == needed


class RatingOutcome(enum.Enum):
    STORED = "stored"
    REPEATED = "repeated"  # the identical rating had already been stored


@dataclass(frozen=True)
class Screen:
    """What the worker sees for the current slot; nothing here names the system, type or question id."""

    slot_public_id: str
    number: int  # 1-based position shown as "number / total"
    total: int
    question: str
    statement: str
    show_reference: bool


@dataclass(frozen=True)
class AssignmentState:
    """Where an assignment stands, with the screen of its current slot (one query)."""

    id: int
    public_id: str
    hit_id: int
    campaign_id: int
    source: str
    status: AssignmentStatus
    next_position: int
    total: int
    current_shown_at: datetime | None
    screen: Screen | None  # None once the assignment is complete
    blocked: bool = False  # the worker was blocked since arriving
    overdue: bool = False  # past its time limit (time_limits; refused from now on)

    @property
    def complete(self) -> bool:
        return _complete(self.status, self.next_position, self.total)


@dataclass(frozen=True)
class Rated:
    """A rating accepted (stored now, or the repeat of one stored before) and what comes next."""

    outcome: RatingOutcome
    screen: Screen | None  # the new current slot; None when the assignment is complete


def parse_score(raw: object) -> int:
    """An integer score 0–100 from a form value; anything else is refused (HTTP 400)."""
    if not isinstance(raw, str) or not _SCORE.fullmatch(raw):
        raise RatingRefused("The score must be a whole number from 0 to 100.", status=400)
    return int(raw)


def _complete(status: AssignmentStatus, next_position: int, total: int) -> bool:
    return status != AssignmentStatus.in_progress or next_position >= total


# Statements are built once, with bind parameters: building SQLAlchemy statements per request costs
# more than running them.
# Core tables of the mapped classes (``__table__`` is typed as a FromClause; these are Tables).
_A, _S, _H, _C, _Q, _R = (cast(Table, m.__table__) for m in (Assignment, Slot, Hit, Campaign, Question, Rating))
_W = cast(Table, Worker.__table__)


def _with_screen(columns: list, offset: int) -> Select:
    """The assignment by public id with the slot at ``next_position + offset`` (outer-joined) and
    everything its screen shows."""
    shown = _S.alias("shown")
    position = _A.c.next_position + offset if offset else _A.c.next_position
    return (
        select(
            *columns,
            _H.c.slot_count,
            _C.c.statement,
            _C.c.show_reference,
            shown.c.public_id.label("screen_slot"),
            shown.c.reference_image.label("screen_reference_image"),
            _Q.c.text.label("screen_question"),
            _W.c.blocked.label("worker_blocked"),
            _A.c.started_at.label("assignment_started_at"),
            _C.c.settings.label("campaign_settings"),
        )
        .join_from(_A, _H, _H.c.id == _A.c.hit_id)
        .join(_C, _C.c.id == _H.c.campaign_id)
        .join(_W, _W.c.id == _A.c.worker_id)
        .outerjoin(shown, and_(shown.c.hit_id == _A.c.hit_id, shown.c.position == position))
        .outerjoin(_Q, _Q.c.id == shown.c.question_id)
        .where(_A.c.public_id == bindparam("public_id"))
    )


_STATE = _with_screen(
    [_A.c.id, _A.c.public_id, _A.c.hit_id, _H.c.campaign_id, _A.c.source, _A.c.status, _A.c.next_position,
     _A.c.current_shown_at],
    offset=0,
)

# For a rating: the assignment, the slot it names (if that slot is in its HIT), and the screen after
# the current one, which becomes current if the rating is stored.
_RATED = _with_screen(
    [_A.c.id, _A.c.source, _A.c.status, _A.c.next_position, _A.c.current_shown_at, _A.c.current_images_served,
     _S.c.id.label("slot_id"), _S.c.position.label("slot_position"),
     _S.c.reference_image.label("slot_reference_image")],
    offset=1,
).outerjoin(_S, and_(_S.c.hit_id == _A.c.hit_id, _S.c.public_id == bindparam("slot_public_id")))

_MARK_SHOWN = (
    update(_A)
    .where(
        _A.c.id == bindparam("assignment_id"),
        _A.c.next_position == bindparam("position"),
        _A.c.current_shown_at.is_(None),
    )
    .values(current_shown_at=bindparam("now"))
)

_CLAIM = (
    update(_A)
    .where(
        _A.c.id == bindparam("assignment_id"),
        _A.c.next_position == bindparam("position"),
        may_make(AssignmentTransition.rate, _A.c.status),
    )
    .values(next_position=bindparam("next_position"), current_shown_at=bindparam("next_shown_at"),
            current_images_served=0)
)

_CLAIM_LAST = _CLAIM.values(status=status_after(AssignmentTransition.finish), completed_at=bindparam("now"))

_INSERT_RATING = insert(_R).values(
    assignment_id=bindparam("assignment_id"),
    slot_id=bindparam("slot_id"),
    score=bindparam("score"),
    shown_at=bindparam("shown_at"),
    rated_at=bindparam("now"),
    behaviour_status=bindparam("behaviour_status"),
    behaviour=bindparam("behaviour"),
    images_served=bindparam("images_served"),
)

_PRIOR = select(_R.c.score).where(_R.c.assignment_id == bindparam("assignment_id"),
                                  _R.c.slot_id == bindparam("slot_id"))

# PostgreSQL: the whole rating in one autocommitted statement (one round trip). ``cur`` is the
# assignment with the named slot if that slot is the current one; ``claimed`` advances the
# assignment only if it still stands there (a concurrent duplicate finds it moved and claims
# nothing); ``stored`` inserts the rating only if the claim succeeded. The row also carries the
# screen after the rated one. No row, or ``stored`` false: the caller looks closer (repeat, refusal).
_NOW = bindparam("now", type_=DateTime(timezone=True))
# Not past its time limit (time_limits.overdue, in SQL: the limit is per campaign and source).
_limit = limit_seconds_sql(_A.c.source, _C.c.settings)
_in_time = or_(_limit.is_(None), _A.c.started_at >= _NOW - func.make_interval(0, 0, 0, 0, 0, 0, _limit))
_cur = (
    select(_A.c.id, _A.c.hit_id, _A.c.next_position, _A.c.current_shown_at, _A.c.current_images_served,
           _H.c.slot_count, _C.c.statement, _C.c.show_reference, _S.c.id.label("slot_id"),
           _S.c.reference_image.label("slot_reference_image"))
    .join_from(_A, _H, _H.c.id == _A.c.hit_id)
    .join(_C, _C.c.id == _H.c.campaign_id)
    .join(_S, and_(_S.c.hit_id == _A.c.hit_id, _S.c.position == _A.c.next_position))
    .join(_W, _W.c.id == _A.c.worker_id)
    .where(_A.c.public_id == bindparam("assignment_public_id"), _S.c.public_id == bindparam("slot_public_id"),
           may_make(AssignmentTransition.rate, _A.c.status), _W.c.blocked == false(), _in_time)
    .cte("cur")
)
_last = _cur.c.next_position + 1 >= _cur.c.slot_count
_claimed = (
    update(_A)
    .where(_A.c.id == _cur.c.id, _A.c.next_position == _cur.c.next_position,
           may_make(AssignmentTransition.rate, _A.c.status))
    .values(next_position=_cur.c.next_position + 1,
            current_shown_at=case((_last, null()), else_=_NOW),
            status=case((_last, literal(status_after(AssignmentTransition.finish), _A.c.status.type)),
                        else_=_A.c.status),
            completed_at=case((_last, _NOW), else_=_A.c.completed_at),
            current_images_served=0)
    .returning(_A.c.id)
    .cte("claimed")
)
# (images_served, in SQL)
_needed = case((and_(_cur.c.show_reference, func.coalesce(_cur.c.slot_reference_image, "") != ""),
                IMAGE_SERVED["candidate"] | IMAGE_SERVED["reference"]), else_=IMAGE_SERVED["candidate"])
_stored = (
    insert(_R)
    .from_select(["assignment_id", "slot_id", "score", "shown_at", "rated_at", "behaviour_status", "behaviour",
                  "images_served"],
                 select(_cur.c.id, _cur.c.slot_id, bindparam("score", type_=Integer), _cur.c.current_shown_at, _NOW,
                        bindparam("behaviour_status", type_=_R.c.behaviour_status.type),
                        bindparam("behaviour", type_=_R.c.behaviour.type),
                        _cur.c.current_images_served.op("&", return_type=Integer)(_needed) == _needed)
                 .join_from(_cur, _claimed, _claimed.c.id == _cur.c.id))
    .returning(_R.c.assignment_id)
    .cte("stored")
)
_after = _S.alias("next_slot")
_RATE_IN_ONE = (
    select(_stored.c.assignment_id.is_not(None).label("stored"), _cur.c.next_position, _cur.c.slot_count,
           _cur.c.statement, _cur.c.show_reference, _after.c.public_id.label("screen_slot"),
           _after.c.reference_image.label("screen_reference_image"), _Q.c.text.label("screen_question"))
    .select_from(_cur)
    .outerjoin(_stored, true())
    .outerjoin(_after, and_(_after.c.hit_id == _cur.c.hit_id, _after.c.position == _cur.c.next_position + 1))
    .outerjoin(_Q, _Q.c.id == _after.c.question_id)
)

_IMAGE = (
    select(_S.c.candidate_image, _S.c.reference_image, _C.c.show_reference, _A.c.id, _A.c.next_position,
           _A.c.current_images_served)
    .join_from(_A, _S, and_(_S.c.hit_id == _A.c.hit_id, _S.c.position == _A.c.next_position))
    .join(_H, _H.c.id == _A.c.hit_id)
    .join(_C, _C.c.id == _H.c.campaign_id)
    .join(_W, _W.c.id == _A.c.worker_id)
    .where(
        _A.c.public_id == bindparam("assignment_public_id"),
        _A.c.status == AssignmentStatus.in_progress,
        _S.c.public_id == bindparam("slot_public_id"),
        _W.c.blocked == false(),
    )
)


# The note that an image of the current slot was served (only while that slot is still the current one).
_MARK_IMAGE = (
    update(_A)
    .where(_A.c.id == bindparam("assignment_id"), _A.c.next_position == bindparam("position"))
    .values(current_images_served=_A.c.current_images_served.op("|", return_type=Integer)(bindparam("bit")))
)


def _screen(row: Any, status: AssignmentStatus, position: int) -> Screen | None:
    """The screen of the slot at ``position`` from a row of ``_with_screen``; None when complete."""
    if _complete(status, position, row.slot_count) or row.screen_slot is None:
        return None
    return Screen(
        slot_public_id=row.screen_slot,
        number=position + 1,
        total=row.slot_count,
        question=row.screen_question,
        statement=row.statement,
        show_reference=bool(row.show_reference and row.screen_reference_image),
    )


def load_state(connection: Connection, public_id: str, now: datetime | None = None) -> AssignmentState | None:
    """The assignment with this public id and its current screen, or None if there is none; ``now`` (default:
    the clock) is the moment its time limit is judged at."""
    row = connection.execute(_STATE, {"public_id": public_id}).first()
    if row is None:
        return None
    return AssignmentState(
        id=row.id,
        public_id=row.public_id,
        hit_id=row.hit_id,
        campaign_id=row.campaign_id,
        source=row.source,
        status=row.status,
        next_position=row.next_position,
        total=row.slot_count,
        current_shown_at=row.current_shown_at,
        screen=_screen(row, row.status, row.next_position),
        blocked=bool(row.worker_blocked),
        overdue=_overdue(row, row.source, now or utcnow()),
    )


def _overdue(row: Any, source: str, now: datetime) -> bool:
    return is_overdue(source, row.status, row.assignment_started_at, TimeLimits.of(row.campaign_settings), now)


def mark_shown(connection: Connection, state: AssignmentState, now: datetime | None = None) -> None:
    """Record when the current slot was first served (kept across reloads); one conditional UPDATE."""
    if state.current_shown_at is not None or state.complete:
        return
    connection.execute(
        _MARK_SHOWN, {"assignment_id": state.id, "position": state.next_position, "now": now or utcnow()}
    )


def record_rating(
    database: Engine | Connection, public_id: str, slot_public_id: str, raw_score: object,
    now: datetime | None = None, behaviour: str | None = None,
) -> Rated:
    """Store the rating of the current slot, or recognise a repeat of an earlier one; else refuse.

    ``database``: a connection (the worker pages': in autocommit mode, with no transaction open) or an engine
    to take one from. ``behaviour``: the posted behaviour record (``da_platform.rating.behaviour_record``), stored with
    the rating as valid or as why it is not; it never decides whether the rating is accepted.

    Commits what it stores; refusals change nothing. ``shown_at`` is when the slot was served (the
    previous rating's time for every slot after the first, since the next slot is served in the
    same round trip), ``rated_at`` now. PostgreSQL: one statement, autocommitted; SQLite: a
    ``BEGIN IMMEDIATE`` transaction of a few statements (in-process, so cheap).
    """
    score = parse_score(raw_score)
    now = now or utcnow()
    status, record = parse_behaviour(behaviour, slot_public_id)
    kept = {"behaviour_status": status, "behaviour": record}
    if isinstance(database, Engine):
        with database.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            return record_rating(connection, public_id, slot_public_id, raw_score, now, behaviour)
    connection = database
    if connection.dialect.name == "postgresql":
        row = connection.execute(
            _RATE_IN_ONE,
            # (not "public_id": an UPDATE takes parameters named like its table's columns as values)
            {"assignment_public_id": public_id, "slot_public_id": slot_public_id, "score": score, "now": now,
             **kept},
        ).first()
        connection.commit()  # (nothing to commit in autocommit mode: the statement did)
        if row is not None and row.stored:
            return Rated(RatingOutcome.STORED, _screen_after(row))
        return _repeat_or_refuse(connection, public_id, slot_public_id, score, now)
    try:
        rated = _record_in_transaction(connection, public_id, slot_public_id, score, now, kept)
    except BaseException:
        connection.rollback()
        raise
    connection.commit()
    return rated


def _screen_after(row: Any) -> Screen | None:
    """The screen after the one just rated (None if that was the last) from a row carrying the rated
    position as ``next_position``."""
    position = row.next_position + 1
    status = AssignmentStatus.completed if position >= row.slot_count else AssignmentStatus.in_progress
    return _screen(row, status, position)


def _record_in_transaction(connection: Connection, public_id: str, slot_public_id: str, score: int,
                           now: datetime, kept: dict[str, Any]) -> Rated:
    begin_write(connection)
    row = connection.execute(_RATED, {"public_id": public_id, "slot_public_id": slot_public_id}).first()
    if row is not None and row.slot_id is not None and row.slot_position == row.next_position and not _complete(
        row.status, row.next_position, row.slot_count
    ) and not row.worker_blocked and not _overdue(row, row.source, now):
        last = row.slot_position + 1 >= row.slot_count
        claimed = connection.execute(
            _CLAIM_LAST if last else _CLAIM,
            {
                "assignment_id": row.id,
                "position": row.slot_position,
                "next_position": row.slot_position + 1,
                "next_shown_at": None if last else now,
                "now": now,
            },
        )
        if claimed.rowcount == 1:
            connection.execute(
                _INSERT_RATING,
                {"assignment_id": row.id, "slot_id": row.slot_id, "score": score,
                 "shown_at": row.current_shown_at, "now": now, **kept,
                 "images_served": images_served(row.current_images_served, row.show_reference,
                                                row.slot_reference_image)},
            )
            return Rated(RatingOutcome.STORED, _screen_after(row))
    return _repeat_or_refuse(connection, public_id, slot_public_id, score, now, row)


def _repeat_or_refuse(connection: Connection, public_id: str, slot_public_id: str, score: int, now: datetime,
                      row: Any = None) -> Rated:
    """A rating that was not stored: the repeat of one stored before (success), or a refusal.

    ``now``: the moment the rating was judged at (the time limit is judged at the same moment as the claim,
    so that a rating refused for being late is told so). ``row``: the assignment and the named slot as
    ``_RATED`` finds them, if already read.
    """
    if row is None:
        row = connection.execute(_RATED, {"public_id": public_id, "slot_public_id": slot_public_id}).first()
    if row is None:
        raise RatingRefused("This task does not exist.", status=404)
    if row.worker_blocked:
        raise RatingRefused(BLOCKED, status=403)
    if _overdue(row, row.source, now):
        raise RatingRefused(TIMED_OUT, status=409)
    if row.slot_id is None:
        raise RatingRefused("That item is not part of your task.", status=409)
    prior = connection.execute(_PRIOR, {"assignment_id": row.id, "slot_id": row.slot_id}).scalar()
    if row.status == AssignmentStatus.abandoned and prior != score:
        raise RatingRefused(TIMED_OUT, status=409)
    if prior is not None and prior == score:
        state = load_state(connection, public_id, now)
        return Rated(RatingOutcome.REPEATED, state.screen if state is not None else None)
    raise RatingRefused("Items are rated one at a time, in order; that item is not the current one.", status=409)


def serve_current_image(
    connection: Connection, assignment_public_id: str, slot_public_id: str, role: Literal["reference", "candidate"]
) -> str | None:
    """Storage key of an image of the *current* slot of an unfinished assignment, else None (one query); the
    first time each image of the slot is asked for, the server notes that it was served (one UPDATE).

    On SQLite the note's commit does not wait for the log's sync: nobody is told it is saved, and the rating
    that carries it (acknowledged only once durable) is written after it to the same log, so its sync covers
    the note too. ``connection`` commits statements on its own (the worker pages' connection).
    """
    row = connection.execute(
        _IMAGE, {"assignment_public_id": assignment_public_id, "slot_public_id": slot_public_id}
    ).first()
    if row is None:
        return None
    key = row.candidate_image if role == "candidate" else row.reference_image if row.show_reference else None
    bit = IMAGE_SERVED[role]
    if key and not row.current_images_served & bit:
        with no_wait(connection.connection.dbapi_connection):
            connection.execute(_MARK_IMAGE, {"assignment_id": row.id, "position": row.next_position, "bit": bit})
            connection.commit()  # (nothing to commit in autocommit mode: the statement did)
    return key
