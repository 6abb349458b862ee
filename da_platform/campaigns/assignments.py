"""Assignments under way in a campaign: who, which HIT, how far (x/100), last activity; and a campaign's worker
found as a person names them."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_platform.campaigns.progress import aware
from da_platform.config import time_limits
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit, Rating, Worker, utcnow
from da_platform.rating.campaign_ratings import worker_label


@dataclass(frozen=True)
class InProgress:
    """One assignment in progress."""

    id: int
    public_id: str
    worker_id: int
    worker: str  # analysis label, ``source:external_id``
    label: str | None  # the researcher's label of an invited worker
    hit_index: int
    rated: int
    total: int
    started_at: datetime
    last_activity: datetime  # the last rating, else when the current item was shown, else the start
    overdue: bool  # past its time limit (config.time_limits; the next arrival or sync takes it back)


def assignments_in_progress(session: Session, campaign: Campaign, now: datetime | None = None) -> list[InProgress]:
    """The campaign's assignments in progress, most recently active first."""
    now = now or utcnow()
    last_rating = (select(func.max(Rating.rated_at)).where(Rating.assignment_id == Assignment.id)
                   .correlate(Assignment).scalar_subquery())
    rows = session.execute(
        select(Assignment, Worker.source, Worker.external_id, Worker.label, Hit.index, Hit.slot_count,
               last_rating, time_limits.overdue(campaign, now))
        .join(Hit, Hit.id == Assignment.hit_id).join(Worker, Worker.id == Assignment.worker_id)
        .where(Hit.campaign_id == campaign.id, Assignment.status == AssignmentStatus.in_progress)
    ).all()
    found = []
    for a, source, external, label, index, total, last, late in rows:
        moments = [m for m in (aware(last), aware(a.current_shown_at), aware(a.started_at)) if m is not None]
        found.append(InProgress(a.id, a.public_id, a.worker_id, worker_label(source, external), label, index,
                                a.next_position, total, aware(a.started_at), max(moments), bool(late)))
    return sorted(found, key=lambda r: r.last_activity, reverse=True)


class UnknownWorker(LookupError):
    """No worker of the campaign, or several, answer to the name a person gave; the message says which."""


def find_worker(session: Session, campaign: Campaign, given: str) -> Worker:
    """The campaign's worker ``given`` names: ``source:id`` as the exports, `campaign assignments` and the
    dashboard print it, or the id alone if one worker has it; else :class:`UnknownWorker` saying why."""
    workers = list(session.scalars(
        select(Worker).join(Assignment, Assignment.worker_id == Worker.id).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id).distinct().order_by(Worker.id)))
    matches = [w for w in workers if given in (worker_label(w.source, w.external_id), w.external_id)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(worker_label(w.source, w.external_id) for w in matches)
        raise UnknownWorker(f"{given!r} names several workers of campaign {campaign.name!r} ({names}): "
                            "give it as source:id")
    raise UnknownWorker(f"no worker {given!r} in campaign {campaign.name!r} (name one as source:id, as in the "
                        "exports)")


def assignment_to_release(session: Session, campaign: Campaign, *, public_id: str | None = None,
                          worker: Worker | None = None) -> Assignment | None:
    """The campaign's assignment with the public id ``public_id``, or ``worker``'s assignment in progress (give
    one of them); None: there is none."""
    query = select(Assignment).join(Hit, Hit.id == Assignment.hit_id).where(Hit.campaign_id == campaign.id)
    if public_id is not None:
        query = query.where(Assignment.public_id == public_id)
    else:
        assert worker is not None, "give public_id or worker"
        query = query.where(Assignment.worker_id == worker.id, Assignment.status == AssignmentStatus.in_progress)
    return session.scalars(query).first()
