"""Campaigns with ratings for the dashboard and export tests.

Campaigns are built by the real builder (``hit_builder.build.build_campaign``) from a small test set
made with ``tests.factories``; ratings go through the worker flow's own functions
(``da_platform.web.flow.mark_shown`` / ``record_rating``) with chosen server times, so time on
item and completion times are known. Systems have a known quality order.
"""
from __future__ import annotations

import random
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from da_platform.models import Assignment, Campaign, Hit, Slot, SlotType, Worker
from da_platform.web.flow import load_state, mark_shown, record_rating
from hit_builder.build import build_campaign
from hit_builder.storage import LocalImageStorage
from tests.factories import make_test_set

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
# System name -> mean score of its answers (the truth the ranking should recover).
QUALITY = {"strong": 85, "good": 70, SCRIPT: 55, "weak": 30}
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def build(session: Session, storage: LocalImageStorage, *, name: str = "dash", questions: int = 35,
          passes: int = 1, hostile: bool = True) -> Campaign:
    """A built campaign over ``QUALITY``'s systems; with ``hostile`` the texts carry HTML payloads.

    4 systems x 35 questions = 140 items = 2 HITs per pass. Commits.
    """
    test_set = make_test_set(session, name=f"{name} set", questions=questions, systems=tuple(QUALITY))
    if hostile:
        test_set.questions[0].text = f"Why {SCRIPT} and {IMG}?"
        for system in test_set.systems:
            for answer in system.answers:
                if answer.question is test_set.questions[0]:
                    answer.text = f"It is {IMG} because"
    session.flush()
    campaign = build_campaign(session, name=name, test_set=test_set, storage=storage, passes=passes, seed=1)
    session.commit()
    return campaign


def good(slot: Slot, rng: random.Random) -> int:
    """Scores around the system's quality; degraded copies clearly lower; references high."""
    if slot.slot_type is SlotType.REF:
        return rng.randint(85, 100)
    base = QUALITY[slot.system.name] + rng.randint(-12, 12)
    if slot.slot_type is SlotType.BAD_REF:
        base -= 35
    return max(0, min(100, base))


def careless(slot: Slot, rng: random.Random) -> int:
    """Random scores whatever the answer."""
    return rng.randint(0, 100)


def rate_hit(session: Session, campaign: Campaign, hit_index: int, worker_id: str, behaviour=good, *,
             source: str = "pool", start: datetime = START, seconds: int = 6, slots: int | None = None,
             seed: int = 0) -> Assignment:
    """``worker_id`` rates HIT ``hit_index`` (all of it, or the first ``slots`` slots). Commits."""
    rng = random.Random(seed)
    worker = session.scalar(select(Worker).where(Worker.source == source, Worker.external_id == worker_id))
    if worker is None:
        worker = Worker(source=source, external_id=worker_id)
        session.add(worker)
    hit = session.scalar(select(Hit).where(Hit.campaign_id == campaign.id, Hit.index == hit_index))
    assignment = Assignment(hit=hit, worker=worker, public_id=secrets.token_urlsafe(16), source=source,
                            provider_assignment_id=None if source == "pool" else f"A{secrets.token_hex(6).upper()}",
                            started_at=start)
    session.add(assignment)
    session.commit()
    ordered = session.scalars(select(Slot).where(Slot.hit_id == hit.id).order_by(Slot.position)).all()
    now = start
    mark_shown(session, load_state(session, assignment.public_id), now)
    for slot in ordered[:slots]:
        now += timedelta(seconds=seconds)
        record_rating(session, assignment.public_id, slot.public_id, str(behaviour(slot, rng)), now=now)
    session.commit()
    session.refresh(assignment)
    return assignment
