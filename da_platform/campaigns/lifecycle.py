"""A campaign's life after the build, and housekeeping of test sets, systems and campaigns.

- **status**: ``open`` (built → running), ``pause`` (running → paused: arrivals get no new HIT, work
  under way may finish), ``resume`` (paused → running), ``close`` (built, running or paused → closed,
  final: no new HIT ever; work under way may still finish);
- **release** an assignment stuck in progress: it becomes ``abandoned`` (its ratings are kept, its
  place on the HIT goes to the next arrival);
- **delete** a campaign, a system or a test set: refused while ratings would be lost unless
  ``force``; every deletion leaves an audit record naming what went and how many ratings with it.
  A campaign goes with its HITs, assignments, ratings and decisions, and with the worker rows that
  nothing else needs (no assignment or decision elsewhere, not blocked); the caller deletes its
  prepared export files after the commit (``Deleted.prepared``, ``prepared_exports.remove_campaign_files``);
- **replace** one system's answers, as long as no built campaign shows them.

Every change is written to the audit log in the caller's transaction (the caller commits).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path
from typing import cast

from sqlalchemy import CursorResult, delete, func, select, update
from sqlalchemy.orm import Session

from da_platform.db.audit import audit
from da_platform.db.models import (
    Answer,
    Assignment,
    AssignmentTransition,
    Campaign,
    CampaignStatus,
    CampaignSystem,
    Hit,
    Rating,
    ReviewDecision,
    Slot,
    System,
    TestSet,
    Worker,
    make,
)


class LifecycleError(ValueError):
    """The change is not allowed (the message says why and what to do instead)."""


class StatusChange(str, enum.Enum):
    """What a researcher can do to a campaign's status."""

    open = "open"
    pause = "pause"
    resume = "resume"
    close = "close"


_TRANSITIONS: dict[StatusChange, tuple[tuple[CampaignStatus, ...], CampaignStatus]] = {
    StatusChange.open: ((CampaignStatus.built,), CampaignStatus.running),
    StatusChange.pause: ((CampaignStatus.running,), CampaignStatus.paused),
    StatusChange.resume: ((CampaignStatus.paused,), CampaignStatus.running),
    StatusChange.close: ((CampaignStatus.built, CampaignStatus.running, CampaignStatus.paused), CampaignStatus.closed),
}


def allowed_changes(campaign: Campaign) -> list[StatusChange]:
    """The status changes possible from the campaign's current status."""
    return [change for change, (sources, _) in _TRANSITIONS.items() if campaign.status in sources]


def change_status(session: Session, campaign: Campaign, change: StatusChange | str, *, actor: str,
                  reason: str = "") -> CampaignStatus:
    """Apply ``change`` to the campaign (audited); raises :class:`LifecycleError` when not allowed."""
    change = StatusChange(change)
    sources, target = _TRANSITIONS[change]
    if campaign.status not in sources:
        can = ", ".join(c.value for c in allowed_changes(campaign)) or "nothing (closed is final)"
        raise LifecycleError(f"campaign {campaign.name!r} is {campaign.status.value}: it cannot {change.value} "
                             f"(possible: {can})")
    before = campaign.status
    campaign.status = target
    audit(session, f"campaign.{change.value}", campaign_id=campaign.id, target=campaign.name, actor=actor,
          reason=reason or None, details={"from": before.value, "to": target.value})
    return target


def release_assignment(session: Session, assignment: Assignment, *, actor: str, reason: str = "") -> None:
    """Give a stuck assignment's place back (it becomes ``abandoned``; the ratings given are kept)."""
    if not make(assignment, AssignmentTransition.release):
        raise LifecycleError(f"assignment {assignment.public_id} is {assignment.status.value}: only an assignment "
                             "in progress can be released")
    audit(session, "assignment.release", campaign_id=assignment.hit.campaign_id, target=assignment.public_id,
          actor=actor, reason=reason or None,
          details={"hit": assignment.hit.index, "rated": assignment.next_position, "worker_id": assignment.worker_id})


def campaign_ratings(session: Session, campaign_ids: list[int]) -> int:
    """How many ratings the campaigns hold."""
    if not campaign_ids:
        return 0
    return session.scalar(select(func.count(Rating.id)).join(Slot, Slot.id == Rating.slot_id)
                          .join(Hit, Hit.id == Slot.hit_id).where(Hit.campaign_id.in_(campaign_ids))) or 0


@dataclass(frozen=True)
class Deleted:
    """What a deletion removed; ``prepared``: the folders of its campaigns' prepared exports (under
    ``<instance>/exports``), for the caller to delete once the deletion is committed."""

    what: str
    campaigns: tuple[str, ...]
    ratings: int
    prepared: tuple[str, ...] = ()


def _guard(session: Session, what: str, campaigns: list[Campaign], force: bool) -> int:
    ratings = campaign_ratings(session, [c.id for c in campaigns])
    if ratings and not force:
        names = ", ".join(repr(c.name) for c in campaigns)
        raise LifecycleError(f"{what} has {ratings} ratings (campaigns {names}): refusing to delete them; "
                             "export them first, then delete with --force")
    return ratings


def _prepared_folders(campaigns: list[Campaign]) -> tuple[str, ...]:
    """The prepared-export folders of ``campaigns``: by id and creation time, and (from before they were
    keyed so) by id alone."""
    return tuple(name for c in campaigns for name in (campaign_folder(c), f"campaign-{c.id}"))


def _remove_campaign(session: Session, campaign: Campaign) -> None:
    """Delete the campaign and everything it holds, children first (no reliance on cascades), and then
    its workers that nothing else refers to (a worker row is one person's provider id), unless blocked
    (a block holds for every campaign)."""
    hits = select(Hit.id).where(Hit.campaign_id == campaign.id).scalar_subquery()
    assignments = select(Assignment.id).where(Assignment.hit_id.in_(hits)).scalar_subquery()
    workers = set(session.scalars(select(Assignment.worker_id).where(Assignment.hit_id.in_(hits)))) | set(
        session.scalars(select(ReviewDecision.worker_id).where(ReviewDecision.campaign_id == campaign.id,
                                                               ReviewDecision.worker_id.is_not(None))))
    session.execute(delete(ReviewDecision).where(ReviewDecision.campaign_id == campaign.id))
    session.execute(delete(Rating).where(Rating.assignment_id.in_(assignments)))
    session.execute(delete(Assignment).where(Assignment.hit_id.in_(hits)))
    session.execute(update(Slot).where(Slot.hit_id.in_(hits)).values(original_slot_id=None))
    session.execute(delete(Slot).where(Slot.hit_id.in_(hits)))
    session.execute(delete(Hit).where(Hit.campaign_id == campaign.id))
    session.execute(delete(CampaignSystem).where(CampaignSystem.campaign_id == campaign.id))
    session.execute(delete(Campaign).where(Campaign.id == campaign.id))
    if workers:
        session.execute(delete(Worker).where(
            Worker.id.in_(workers), Worker.blocked.is_(False),
            ~select(Assignment.id).where(Assignment.worker_id == Worker.id).exists(),
            ~select(ReviewDecision.id).where(ReviewDecision.worker_id == Worker.id).exists()))
    session.expire_all()


def _record(session: Session, action: str, target: str, deleted: Deleted, *, actor: str, reason: str,
            campaign_id: int | None = None) -> None:
    audit(session, action, campaign_id=campaign_id, target=target, actor=actor, reason=reason or None,
          details={"campaigns": list(deleted.campaigns), "ratings": deleted.ratings})


def delete_campaign(session: Session, campaign: Campaign, *, force: bool = False, actor: str,
                    reason: str = "") -> Deleted:
    """Delete a campaign (its HITs, assignments, ratings, decisions); refused if rated unless ``force``."""
    ratings = _guard(session, f"campaign {campaign.name!r}", [campaign], force)
    deleted = Deleted(f"campaign {campaign.name!r}", (campaign.name,), ratings, _prepared_folders([campaign]))
    _remove_campaign(session, campaign)
    _record(session, "campaign.delete", campaign.name, deleted, actor=actor, reason=reason)
    return deleted


def _campaigns_with_system(session: Session, system: System) -> list[Campaign]:
    in_campaign = select(CampaignSystem.campaign_id).where(CampaignSystem.system_id == system.id)
    in_slots = select(Hit.campaign_id).join(Slot, Slot.hit_id == Hit.id).where(Slot.system_id == system.id)
    return list(session.scalars(select(Campaign).where(Campaign.id.in_(in_campaign.union(in_slots)))
                                .order_by(Campaign.id)))


def _remove_campaigns_of(session: Session, what: str, campaigns: list[Campaign], force: bool, holds: str) -> Deleted:
    """Remove the ``campaigns`` that deleting ``what`` takes with it: refused when there are any (and, again,
    when they hold ratings) unless ``force``. ``holds``: how the refusal names the campaigns' relation."""
    if campaigns and not force:
        raise LifecycleError(f"{what} {holds} {', '.join(repr(c.name) for c in campaigns)}: "
                             "deleting it deletes them; use --force to do that")
    deleted = Deleted(what, tuple(c.name for c in campaigns), _guard(session, what, campaigns, force),
                      _prepared_folders(campaigns))
    for campaign in campaigns:
        _remove_campaign(session, campaign)
    return deleted


def delete_system(session: Session, system: System, *, force: bool = False, actor: str,
                  reason: str = "") -> Deleted:
    """Delete a system and its answers. Campaigns that rate it go with it, so: refused when any
    campaign rates it unless ``force`` (and refused with ratings unless ``force``)."""
    campaigns = _campaigns_with_system(session, system)
    what = f"system {system.name!r} of test set {system.test_set.name!r}"
    deleted = _remove_campaigns_of(session, what, campaigns, force, "is rated in campaign(s)")
    session.execute(delete(Answer).where(Answer.system_id == system.id))
    session.execute(delete(System).where(System.id == system.id))
    session.expire_all()
    _record(session, "system.delete", what, deleted, actor=actor, reason=reason)
    return deleted


def delete_test_set(session: Session, test_set: TestSet, *, force: bool = False, actor: str,
                    reason: str = "") -> Deleted:
    """Delete a test set with its questions, systems and answers; its campaigns go too, so: refused
    when it has campaigns unless ``force``."""
    campaigns = list(session.scalars(select(Campaign).where(Campaign.test_set_id == test_set.id)
                                     .order_by(Campaign.id)))
    what = f"test set {test_set.name!r}"
    deleted = _remove_campaigns_of(session, what, campaigns, force, "has campaign(s)")
    session.delete(session.get(TestSet, test_set.id))  # questions, references, systems, answers cascade
    session.flush()
    _record(session, "test_set.delete", what, deleted, actor=actor, reason=reason)
    return deleted


def replace_answers(session: Session, system: System, path: str | Path, *, actor: str, reason: str = "") -> int:
    """Replace every answer of ``system`` with those in ``path`` (validated as ``import answers``
    validates a new system). Refused once a built campaign shows its answers. Returns the count."""
    from da_platform.building.importers import import_system_answers

    built = [c.name for c in _campaigns_with_system(session, system)
             if c.status != CampaignStatus.draft or session.scalar(select(Hit.id).where(Hit.campaign_id == c.id)
                                                                   .limit(1)) is not None]
    if built:
        raise LifecycleError(f"system {system.name!r} is already built into campaign(s) "
                             f"{', '.join(map(repr, built))}: its answers there cannot change (build a new "
                             "campaign, or delete those first)")
    name, test_set = system.name, system.test_set
    system.name = f"~replacing {system.id}~"  # frees the name for the importer's checks (restored below)
    session.flush()
    (fresh,) = import_system_answers(session, test_set, path, system=name)
    session.execute(delete(Answer).where(Answer.system_id == system.id))
    moved = session.execute(update(Answer).where(Answer.system_id == fresh.id).values(system_id=system.id))
    count = cast(CursorResult, moved).rowcount  # an UPDATE's result has a rowcount
    session.execute(delete(System).where(System.id == fresh.id))
    system.name, system.source_file = name, str(path)
    session.flush()
    session.expire_all()
    audit(session, "system.replace_answers", campaign_id=None, target=f"{test_set.name}/{name}", actor=actor,
          reason=reason or None, details={"file": str(path), "answers": count})
    return count


def campaign_folder(campaign: Campaign) -> str:
    """The name of the folder of ``campaign``'s prepared files: its id and creation time (UTC, to the
    microsecond), so that a later campaign given the same id never finds them."""
    created = campaign.created_at
    if created.tzinfo is not None:  # PostgreSQL; SQLite gives the stored UTC time without a zone
        created = created.astimezone(timezone.utc).replace(tzinfo=None)
    return f"campaign-{campaign.id}-{created:%Y%m%dT%H%M%S%f}"
