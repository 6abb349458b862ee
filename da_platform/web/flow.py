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

from sqlalchemy import func, insert, select, update
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


def _total_slots():
    return (
        select(func.count(Slot.id)).where(Slot.hit_id == Assignment.hit_id).correlate(Assignment).scalar_subquery()
    )


def load_state(session: Session, public_id: str) -> AssignmentState | None:
    row = session.execute(
        select(
            Assignment.id,
            Assignment.public_id,
            Assignment.hit_id,
            Hit.campaign_id,
            Assignment.source,
            Assignment.status,
            Assignment.next_position,
            _total_slots().label("total"),
            Assignment.current_shown_at,
        )
        .join(Hit, Hit.id == Assignment.hit_id)
        .where(Assignment.public_id == public_id)
    ).first()
    return AssignmentState(**row._asdict()) if row is not None else None


def current_screen(session: Session, state: AssignmentState) -> Screen | None:
    """The current slot's screen, or None when the assignment is complete."""
    if state.complete:
        return None
    row = session.execute(
        select(Slot.public_id, Slot.reference_image, Question.text, Campaign.statement, Campaign.show_reference)
        .join(Question, Question.id == Slot.question_id)
        .join(Hit, Hit.id == Slot.hit_id)
        .join(Campaign, Campaign.id == Hit.campaign_id)
        .where(Slot.hit_id == state.hit_id, Slot.position == state.next_position)
    ).one()
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
    session.execute(
        update(Assignment)
        .where(
            Assignment.id == state.id,
            Assignment.next_position == state.next_position,
            Assignment.current_shown_at.is_(None),
        )
        .values(current_shown_at=now or utcnow())
        .execution_options(synchronize_session=False)
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
    state = load_state(session, public_id)
    if state is None:
        raise RatingRefused("This task does not exist.", status=404)
    slot = session.execute(
        select(Slot.id, Slot.position).where(Slot.public_id == slot_public_id, Slot.hit_id == state.hit_id)
    ).first()
    if slot is None:
        raise RatingRefused("That item is not part of your task.", status=409)
    if not state.complete and slot.position == state.next_position:
        last = slot.position + 1 >= state.total
        values: dict = {"next_position": slot.position + 1, "current_shown_at": None if last else now}
        if last:
            values.update(status=AssignmentStatus.completed, completed_at=now)
        claimed = session.execute(
            update(Assignment)
            .where(
                Assignment.id == state.id,
                Assignment.next_position == slot.position,
                Assignment.status == AssignmentStatus.in_progress,
            )
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount == 1:
            session.execute(
                insert(Rating).values(
                    assignment_id=state.id,
                    slot_id=slot.id,
                    score=score,
                    shown_at=state.current_shown_at,
                    rated_at=now,
                )
            )
            return RatingOutcome.STORED
    prior = session.scalar(select(Rating.score).where(Rating.assignment_id == state.id, Rating.slot_id == slot.id))
    if prior is not None and prior == score:
        return RatingOutcome.REPEATED
    raise RatingRefused("Items are rated one at a time, in order; that item is not the current one.", status=409)


def current_image_key(
    session: Session, state: AssignmentState, slot_public_id: str, role: Literal["reference", "candidate"]
) -> str | None:
    """Storage key of an image of the *current* slot of this assignment, else None."""
    if state.complete:
        return None
    row = session.execute(
        select(Slot.candidate_image, Slot.reference_image, Campaign.show_reference)
        .join(Hit, Hit.id == Slot.hit_id)
        .join(Campaign, Campaign.id == Hit.campaign_id)
        .where(
            Slot.public_id == slot_public_id,
            Slot.hit_id == state.hit_id,
            Slot.position == state.next_position,
        )
    ).first()
    if row is None:
        return None
    if role == "candidate":
        return row.candidate_image
    return row.reference_image if row.show_reference else None
