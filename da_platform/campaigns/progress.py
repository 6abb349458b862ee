"""How far a campaign has got: HITs done / in progress / open, ratings per system, and projections.

A HIT is *done* when as many of its assignments as it takes (``Hit.max_assignments``) have been
finished (completed on our side, submitted, approved or rejected), *in progress* when it is not done
but someone is rating it, *open* otherwise (a HIT left unfinished past its time limit counts as open:
the next worker to arrive gets it; :mod:`da_platform.config.time_limits`). The completion time is
projected from the observed rate (finished assignments per hour between the first start and the last finish); the cost
from the campaign's MTurk or Prolific reward settings, when it has any. Ratings are every stored rating;
those of abandoned assignments are counted apart too (``ratings_abandoned``: never analysed or exported), and
so are those of MTurk and Prolific assignments the provider has not confirmed yet (``ratings_unconfirmed``:
analysed once ``sync`` has; :mod:`da_platform.rating.campaign_ratings`).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import overload

from sqlalchemy import and_, case, func, not_, select
from sqlalchemy.orm import Session

from da_platform.config import time_limits
from da_platform.db.models import FINISHED, Assignment, AssignmentStatus, Campaign, Hit, Rating, Slot, System, utcnow
from da_platform.db.states import WorkerSource
from da_platform.providers.money import CostEstimate, Currency
from da_platform.rating.campaign_ratings import (
    abandoned_note,
    abandoned_ratings,
    unconfirmed_note,
    unconfirmed_ratings,
)


@dataclass(frozen=True)
class CostProjection:
    """Rewards + fees of every assignment the campaign needs (and of the ones still to come)."""

    provider: WorkerSource
    currency: Currency
    total: Decimal
    remaining: Decimal
    description: str  # itemised, from the provider's cost estimate


@dataclass(frozen=True)
class CampaignProgress:
    """Counts and projections for one campaign (see the module docstring)."""

    hits_total: int
    hits_done: int
    hits_in_progress: int
    hits_open: int
    assignments_needed: int
    assignments_finished: int
    assignments_in_progress: int
    ratings_total: int  # every stored rating, abandoned assignments' included
    ratings_by_system: tuple[tuple[str, int], ...]  # every campaign system, in campaign order
    ratings_abandoned: int  # of ratings_total: of abandoned assignments (kept, never analysed or exported)
    ratings_unconfirmed: int  # of ratings_total: awaiting the provider's confirmation (not analysed yet)
    first_started_at: datetime | None
    last_finished_at: datetime | None
    assignments_per_hour: float | None
    projected_finish: datetime | None
    cost: CostProjection | None

    @property
    def complete(self) -> bool:
        return self.hits_total > 0 and self.hits_done == self.hits_total

    def ratings_line(self) -> str:
        """``817`` or ``817 (14 ratings, abandoned, not analysed)``: the count every list shows (and the ratings
        awaiting the provider's confirmation, if any)."""
        notes = ([abandoned_note(self.ratings_abandoned)] if self.ratings_abandoned else []) + (
            [unconfirmed_note(self.ratings_unconfirmed)] if self.ratings_unconfirmed else [])
        return f"{self.ratings_total}" + (f" ({'; '.join(notes)})" if notes else "")

    def describe(self) -> str:
        """``complete: 12 of 12 HITs`` or ``unfinished: 3 of 12 HITs done``."""
        if self.complete:
            return f"complete: {self.hits_done} of {self.hits_total} HITs"
        return f"unfinished: {self.hits_done} of {self.hits_total} HITs done"


@overload
def aware(moment: datetime) -> datetime: ...
@overload
def aware(moment: datetime | None) -> datetime | None: ...
def aware(moment: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; every stored time is UTC."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


def ratings_by_system(session: Session, campaign: Campaign) -> dict[str, int]:
    """Ratings stored per system name (one aggregate over every rating of the campaign)."""
    return dict(session.execute(
        select(System.name, func.count(Rating.id)).join(Slot, Slot.system_id == System.id)
        .join(Hit, Hit.id == Slot.hit_id).join(Rating, Rating.slot_id == Slot.id)
        .where(Hit.campaign_id == campaign.id).group_by(System.name)
    ).all())


def campaign_progress(session: Session, campaign: Campaign, now: datetime | None = None, *,
                      rating_counts: dict[str, int] | None = None) -> CampaignProgress:
    """Count HITs, assignments and ratings of ``campaign`` and project completion time and cost.

    ``rating_counts``: :func:`ratings_by_system` already known for the current ratings (the dashboard
    keeps it with its cached analysis)."""
    now = now or utcnow()
    finished = func.sum(case((Assignment.status.in_(FINISHED), 1), else_=0))
    running = func.sum(case((and_(Assignment.status == AssignmentStatus.in_progress,
                                  not_(time_limits.overdue(campaign, now))), 1), else_=0))
    rows = session.execute(
        select(Hit.id, Hit.max_assignments, func.coalesce(finished, 0), func.coalesce(running, 0))
        .outerjoin(Assignment, Assignment.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign.id).group_by(Hit.id, Hit.max_assignments)
    ).all()
    done = sum(1 for _, need, fin, _ in rows if fin >= need)
    in_progress = sum(1 for _, need, fin, run in rows if fin < need and run > 0)
    needed = sum(need for _, need, _, _ in rows)
    finished_count = sum(min(fin, need) for _, need, fin, _ in rows)
    running_count = sum(run for *_, run in rows)
    first, last = session.execute(
        select(func.min(Assignment.started_at), func.max(Assignment.completed_at))
        .join(Hit, Hit.id == Assignment.hit_id).where(Hit.campaign_id == campaign.id)
    ).one()
    first, last = aware(first), aware(last)
    counts = rating_counts if rating_counts is not None else ratings_by_system(session, campaign)
    abandoned = sum(abandoned_ratings(session, campaign).values())
    unconfirmed = sum(unconfirmed_ratings(session, campaign).values())
    by_system = tuple((s.name, int(counts.get(s.name, 0))) for s in campaign.systems)
    rate = projected = None
    if finished_count and first is not None and last is not None and last > first:
        rate = finished_count / ((last - first).total_seconds() / 3600)
        remaining = needed - finished_count
        projected = now + timedelta(hours=remaining / rate) if remaining > 0 else last
    return CampaignProgress(
        hits_total=len(rows), hits_done=done, hits_in_progress=in_progress, hits_open=len(rows) - done - in_progress,
        assignments_needed=needed, assignments_finished=finished_count, assignments_in_progress=running_count,
        ratings_total=sum(counts.values()), ratings_by_system=by_system, ratings_abandoned=abandoned,
        ratings_unconfirmed=unconfirmed, first_started_at=first,
        last_finished_at=last, assignments_per_hour=rate, projected_finish=projected,
        cost=project_cost(campaign, needed, needed - finished_count),
    )


def project_cost(campaign: Campaign, needed: int, remaining: int) -> CostProjection | None:
    """Rewards and fees of ``needed`` (and ``remaining``) assignments at the campaign's reward settings.

    Bonuses are not included (they depend on review decisions still to be taken). None when the
    campaign has no MTurk or Prolific settings (own pool: paid outside the platform).
    """
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.providers.registry import SOURCES

    settings = CampaignSettings.of(campaign)
    for source in SOURCES.values():  # the first source whose settings the campaign stores
        stored = settings.part(source.settings_key) if source.settings_key else None
        if stored is not None:
            break
    else:
        return None

    def estimate(assignments: int) -> CostEstimate:
        cost = source.cost(stored, assignments=assignments)
        assert cost is not None  # (a source with stored settings has costs)
        return cost

    total, rest = estimate(assignments=needed), estimate(assignments=max(0, remaining))
    return CostProjection(source.name, total.currency, total.total, rest.total, total.describe())
