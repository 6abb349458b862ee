"""The server-side order of a worker's assignment: what is current, and storing ratings.

Plain functions over a SQLAlchemy session (no Flask), each a few small statements so that the hot
path stays fast. The caller commits. Invariants:

- only the current slot (``Assignment.next_position``) can be rated; anything else is refused and
  changes nothing;
- the same rating sent twice is stored once and answers as success;
- the claim of a position is a conditional ``UPDATE … WHERE next_position = :current``, so
  concurrent duplicates of one request can never store two ratings or skip a slot.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import and_, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from da_platform.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    Hit,
    Question,
    Rating,
    Slot,
    utcnow,
)
from da_platform.sources.handout import begin_write

_SCORE = re.compile(r"(?:0|[1-9][0-9]?|100)")


class RatingRefused(Exception):
    """A rating that cannot be stored; ``status`` is the HTTP status (400 malformed, 409 out of order)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class RatingOutcome(enum.Enum):
    STORED = "stored"
    REPEATED = "repeated"  # the identical rating had already been stored


@dataclass(frozen=True)
class AssignmentState:
    """Where an assignment stands (one query)."""

    id: int
    public_id: str
    hit_id: int
    campaign_id: int
    source: str
    status: AssignmentStatus
    next_position: int
    total: int
    current_shown_at: datetime | None

    @property
    def complete(self) -> bool:
        return self.status != AssignmentStatus.in_progress or self.next_position >= self.total


@dataclass(frozen=True)
class Screen:
    """What the worker sees for the current slot; nothing here names the system, type or question id."""

    slot_public_id: str
    number: int  # 1-based position shown as "number / total"
    total: int
    question: str
    statement: str
    show_reference: bool


def parse_score(raw: object) -> int:
    """An integer score 0–100 from a form value; anything else is refused (HTTP 400)."""
    if not isinstance(raw, str) or not _SCORE.fullmatch(raw):
        raise RatingRefused("The score must be a whole number from 0 to 100.", status=400)
    return int(raw)


# The hot path uses Core statements built once (with bind parameters): building SQLAlchemy statements
# per request costs more than running them.
_A, _S, _H, _C, _Q, _R = (m.__table__ for m in (Assignment, Slot, Hit, Campaign, Question, Rating))

_TOTAL = select(func.count()).where(_S.c.hit_id == _A.c.hit_id).correlate(_A).scalar_subquery()

_STATE = (
    select(
        _A.c.id,
        _A.c.public_id,
        _A.c.hit_id,
        _H.c.campaign_id,
        _A.c.source,
        _A.c.status,
        _A.c.next_position,
        _TOTAL.label("total"),
        _A.c.current_shown_at,
    )
    .join_from(_A, _H, _H.c.id == _A.c.hit_id)
    .where(_A.c.public_id == bindparam("public_id"))
)

_SCREEN = (
    select(_S.c.public_id, _S.c.reference_image, _Q.c.text, _C.c.statement, _C.c.show_reference)
    .join_from(_S, _Q, _Q.c.id == _S.c.question_id)
    .join(_H, _H.c.id == _S.c.hit_id)
    .join(_C, _C.c.id == _H.c.campaign_id)
    .where(_S.c.hit_id == bindparam("hit_id"), _S.c.position == bindparam("position"))
)

_MARK_SHOWN = (
    update(_A)
    .where(
        _A.c.id == bindparam("assignment_id"),
        _A.c.next_position == bindparam("position"),
        _A.c.current_shown_at.is_(None),
    )
    .values(current_shown_at=bindparam("now"))
)

_SLOT = select(_S.c.id, _S.c.position).where(
    _S.c.public_id == bindparam("slot_public_id"), _S.c.hit_id == bindparam("hit_id")
)

_CLAIM = (
    update(_A)
    .where(
        _A.c.id == bindparam("assignment_id"),
        _A.c.next_position == bindparam("position"),
        _A.c.status == AssignmentStatus.in_progress,
    )
    .values(next_position=bindparam("next_position"), current_shown_at=bindparam("next_shown_at"))
)

_CLAIM_LAST = _CLAIM.values(status=AssignmentStatus.completed, completed_at=bindparam("now"))

_INSERT_RATING = insert(_R).values(
    assignment_id=bindparam("assignment_id"),
    slot_id=bindparam("slot_id"),
    score=bindparam("score"),
    shown_at=bindparam("shown_at"),
    rated_at=bindparam("now"),
)

_PRIOR = select(_R.c.score).where(_R.c.assignment_id == bindparam("assignment_id"), _R.c.slot_id == bindparam("slot_id"))

_IMAGE = (
    select(_S.c.candidate_image, _S.c.reference_image, _C.c.show_reference)
    .join_from(_A, _S, and_(_S.c.hit_id == _A.c.hit_id, _S.c.position == _A.c.next_position))
    .join(_H, _H.c.id == _A.c.hit_id)
    .join(_C, _C.c.id == _H.c.campaign_id)
    .where(
        _A.c.public_id == bindparam("assignment_public_id"),
        _A.c.status == AssignmentStatus.in_progress,
        _S.c.public_id == bindparam("slot_public_id"),
    )
)


def load_state(session: Session, public_id: str) -> AssignmentState | None:
    row = session.connection().execute(_STATE, {"public_id": public_id}).first()
    return AssignmentState(**row._asdict()) if row is not None else None


def current_screen(session: Session, state: AssignmentState) -> Screen | None:
    """The current slot's screen, or None when the assignment is complete."""
    if state.complete:
        return None
    row = session.connection().execute(_SCREEN, {"hit_id": state.hit_id, "position": state.next_position}).one()
    return Screen(
        slot_public_id=row.public_id,
        number=state.next_position + 1,
        total=state.total,
        question=row.text,
        statement=row.statement,
        show_reference=bool(row.show_reference and row.reference_image),
    )


def mark_shown(session: Session, state: AssignmentState, now: datetime | None = None) -> None:
    """Record when the current slot was first served (kept across reloads)."""
    if state.current_shown_at is not None or state.complete:
        return
    begin_write(session)
    session.connection().execute(
        _MARK_SHOWN, {"assignment_id": state.id, "position": state.next_position, "now": now or utcnow()}
    )


def record_rating(
    session: Session, public_id: str, slot_public_id: str, raw_score: object, now: datetime | None = None
) -> RatingOutcome:
    """Store the rating of the current slot, or recognise a repeat of the last one; else refuse.

    Refusals change nothing. ``shown_at`` is when the slot was served (the previous rating's time for
    every slot after the first, since the next slot is served in the same round trip), ``rated_at`` now.
    """
    score = parse_score(raw_score)
    now = now or utcnow()
    begin_write(session)
    connection = session.connection()
    state = load_state(session, public_id)
    if state is None:
        raise RatingRefused("This task does not exist.", status=404)
    slot = connection.execute(_SLOT, {"slot_public_id": slot_public_id, "hit_id": state.hit_id}).first()
    if slot is None:
        raise RatingRefused("That item is not part of your task.", status=409)
    if not state.complete and slot.position == state.next_position:
        last = slot.position + 1 >= state.total
        claimed = connection.execute(
            _CLAIM_LAST if last else _CLAIM,
            {
                "assignment_id": state.id,
                "position": slot.position,
                "next_position": slot.position + 1,
                "next_shown_at": None if last else now,
                "now": now,
            },
        )
        if claimed.rowcount == 1:
            connection.execute(
                _INSERT_RATING,
                {
                    "assignment_id": state.id,
                    "slot_id": slot.id,
                    "score": score,
                    "shown_at": state.current_shown_at,
                    "now": now,
                },
            )
            return RatingOutcome.STORED
    prior = connection.execute(_PRIOR, {"assignment_id": state.id, "slot_id": slot.id}).scalar()
    if prior is not None and prior == score:
        return RatingOutcome.REPEATED
    raise RatingRefused("Items are rated one at a time, in order; that item is not the current one.", status=409)


def current_image_key(
    session: Session, assignment_public_id: str, slot_public_id: str, role: Literal["reference", "candidate"]
) -> str | None:
    """Storage key of an image of the *current* slot of an unfinished assignment, else None (one query)."""
    row = session.connection().execute(
        _IMAGE, {"assignment_public_id": assignment_public_id, "slot_public_id": slot_public_id}
    ).first()
    if row is None:
        return None
    if role == "candidate":
        return row.candidate_image
    return row.reference_image if row.show_reference else None
