"""Campaigns with ratings for the dashboard and export tests.

Campaigns are built by the real builder (``da_platform.building.build.build_campaign``) from a small test set
made with ``tests.factories``; ratings are stored directly with the models, as the worker flow
stores them (in slot order, with server times chosen here, so time on item and completion times
are known). Systems have a known quality order.
"""
from __future__ import annotations

import random
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.db.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Hit,
    Rating,
    Slot,
    SlotType,
    Worker,
)
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
    if hostile:  # every question and every answer carries an HTML payload
        for question in test_set.questions:
            question.text = f"Why {SCRIPT} and {IMG}?"
        for system in test_set.systems:
            for answer in system.answers:
                answer.text = f"{answer.text} {IMG}"
    session.flush()
    campaign = build_campaign(session, BuildSpec(name=name, test_set=test_set, passes=passes, seed=1), storage=storage)
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
    """``worker_id`` rates HIT ``hit_index`` in order (all of it, or its first ``slots`` slots),
    ``seconds`` per item from ``start``; stored as the worker flow stores it, in one go. Commits."""
    rng = random.Random(seed)
    worker = session.scalar(select(Worker).where(Worker.source == source, Worker.external_id == worker_id))
    if worker is None:
        worker = Worker(source=source, external_id=worker_id)
        session.add(worker)
    hit = session.scalar(select(Hit).where(Hit.campaign_id == campaign.id, Hit.index == hit_index))
    ordered = session.scalars(select(Slot).where(Slot.hit_id == hit.id).order_by(Slot.position)).all()
    rated = ordered[:slots]
    finished = len(rated) == len(ordered)
    end = start + timedelta(seconds=seconds * len(rated))
    assignment = Assignment(
        hit=hit, worker=worker, public_id=secrets.token_urlsafe(16), source=source,
        provider_assignment_id=None if source == "pool" else f"A{secrets.token_hex(6).upper()}",
        started_at=start, next_position=len(rated),
        status=AssignmentStatus.completed if finished else AssignmentStatus.in_progress,
        completed_at=end if finished else None, current_shown_at=None if finished else end)
    session.add(assignment)
    session.flush()
    session.execute(insert(Rating), [
        {"assignment_id": assignment.id, "slot_id": slot.id, "score": behaviour(slot, rng),
         "shown_at": start + timedelta(seconds=seconds * i), "rated_at": start + timedelta(seconds=seconds * (i + 1))}
        for i, slot in enumerate(rated)])
    session.commit()
    return assignment


def three_workers(session: Session, campaign: Campaign) -> dict[str, int]:
    """HITs 0-2 rated by a careful worker whose id is an HTML payload, a careful one and a careless
    one, an hour apart (HIT 3 stays open); returns worker ids by external id. Commits."""
    rate_hit(session, campaign, 0, IMG, seed=1)
    rate_hit(session, campaign, 1, "careful", seed=2, start=START + timedelta(hours=1))
    rate_hit(session, campaign, 2, "careless", careless, seed=3, start=START + timedelta(hours=2))
    return {w.external_id: w.id for w in session.scalars(select(Worker))}


def three_worker_campaign(env, *, running: bool = False) -> None:
    """``build``'s campaign (2 passes: 4 HITs) on the web test ``env``, rated by ``three_workers``; sets
    ``env.campaign_id`` and ``env.workers``. With ``running``, the campaign's status is running. Commits."""
    with env.sessions() as session:
        campaign = build(session, env.storage, passes=2)
        if running:
            campaign.status = CampaignStatus.running
        env.workers = three_workers(session, campaign)
        session.commit()
        env.campaign_id = campaign.id


def campaign_rated_in_part(sessions, tmp_path, *, rated_hits: int) -> int:
    """``build``'s campaign (2 passes: 4 HITs, images under ``tmp_path/images``) with its first ``rated_hits``
    HITs rated (by IMG, careful, careless, steady, an hour apart); returns its id. Commits."""
    with sessions() as session:
        campaign = build(session, LocalImageStorage(tmp_path / "images"), passes=2)
        workers = [IMG, "careful", "careless", "steady"]
        for i in range(rated_hits):
            behaviour = careless if workers[i] == "careless" else good
            rate_hit(session, campaign, i, workers[i], behaviour, seed=i, start=START + timedelta(hours=i))
        return campaign.id
