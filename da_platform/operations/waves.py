"""The next wave of a running campaign (docs/method.md §12): take the look, plan, add the HITs, and say what the
campaign's provider needs.

:func:`next_wave` takes the campaign's analysis now as the look its latest wave ended with
(:mod:`da_platform.results.waves`), plans the next wave from it and adds that wave's HITs
(:func:`da_platform.building.waves.add_wave`), or records that the campaign stops. A wave whose HITs are not all
rated yet is refused unless ``force``: the sequential test holds whenever a look is taken, but a look taken on
part of a wave is spent and the ratings still coming in only count at the next one.

Where the HITs go next depends on where the workers come from, as with any HIT of the campaign: the own pool's
links (``da-platform invite``) hand out the new HITs at once; on MTurk the new HITs are created by
``da-platform mturk launch`` (it launches every HIT of the campaign not launched yet, a running campaign
included); a Prolific study's places are the campaign's HITs times its places per HIT: ``da-platform prolific launch``
raises the study's places on Prolific to that total and then joins the new HITs to the study (with ``--live`` for a
published study, as the new places cost real money; :func:`provider_steps` says the command and the total).
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from analysis.sequential_plan import WavePlan
from da_core.errors import BuildError
from da_platform.building.waves import add_wave
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.waves_record import LookRecord, WaveEntry
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, CampaignStatus, Hit, utcnow
from da_platform.results.waves import WaveStatus, wave_status
from hit_builder.storage import ImageStorage

DONE = (AssignmentStatus.completed, AssignmentStatus.submitted, AssignmentStatus.approved)


@dataclass(frozen=True)
class WaveStep:
    """What :func:`next_wave` did: the look it took (as the status then), the plan, and the wave added (None:
    the campaign stops)."""

    status: WaveStatus
    plan: WavePlan
    added: WaveEntry | None


def unrated_hits(session: Session, campaign: Campaign, first: int, count: int) -> int:
    """HITs among ``first`` … ``first + count − 1`` without a finished assignment."""
    finished = session.scalar(
        select(func.count(func.distinct(Hit.id))).join(Assignment, Assignment.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign.id, Hit.index >= first, Hit.index < first + count,
               Assignment.status.in_(DONE))) or 0
    return count - int(finished)


class NoNewLook(BuildError):
    """The latest wave gave no look to plan from: no ranking yet, or no rating of a kept worker since the last
    look (ratings of workers quality control leaves out do not count)."""


def next_wave(session: Session, campaign: Campaign, *, storage: ImageStorage, force: bool = False,
              processes: int | None = None) -> WaveStep:
    """Take the look, plan the next wave and add it (or record the stop); nothing committed (the caller commits)."""
    status = wave_status(session, campaign)
    if status is None:
        raise BuildError(f"campaign {campaign.name!r} has the fixed design: build it with --design waves to run it "
                         "in waves")
    record = status.record
    if record.stopped is not None:
        raise BuildError(f"campaign {campaign.name!r} stopped after wave {record.latest.wave}: {record.stopped}")
    if status.decisions is None or not status.provisional or status.plan is None:
        why = "has no ranking yet" if status.decisions is None else "has no new rating since the last look"
        raise NoNewLook(f"campaign {campaign.name!r} {why}: wave {record.latest.wave} needs ratings before the "
                        "next one can be planned (ratings of workers quality control leaves out do not count)")
    left = unrated_hits(session, campaign, record.latest.first_hit, record.latest.hits)
    if left and not force:
        raise BuildError(f"wave {record.latest.wave} of campaign {campaign.name!r} has {left} of its "
                         f"{record.latest.hits} HITs not finished: wait for them, or take the look now with --force")
    assert status.look is not None  # a provisional status has its look
    look = LookRecord.of(status.look, utcnow().isoformat())
    added = add_wave(session, campaign, status.plan, look, storage=storage, processes=processes)
    return WaveStep(status, status.plan, added)


def provider_steps(session: Session, campaign: Campaign, added: WaveEntry) -> list[str]:
    """What the campaign's provider needs for the HITs just added."""
    providers = set(session.scalars(select(Hit.provider).where(Hit.campaign_id == campaign.id,
                                                               Hit.provider.is_not(None))))
    if "mturk" in providers:
        return [f"MTurk: run `da-platform mturk launch {campaign.name}` to create the {added.hits} new HIT(s) "
                "(it launches every HIT not launched yet)"]
    if "prolific" in providers:
        settings = CampaignSettings.of(campaign).prolific_settings
        hits = session.scalar(select(func.count(Hit.id)).where(Hit.campaign_id == campaign.id)) or 0
        live = " --live" if campaign.status is CampaignStatus.running else ""
        return [f"Prolific: run `da-platform prolific launch {campaign.name}{live}`: it raises the places of study "
                f"{settings.study_id or '(not created)'} to {hits * settings.places_per_hit} ({hits} HIT(s) × "
                f"{settings.places_per_hit} place(s) per HIT, {added.hits * settings.places_per_hit} more for the "
                f"{added.hits} new HIT(s)){', asks to confirm their cost' if live else ''} and joins the new HITs "
                "to the study"]
    return [f"own pool: the {added.hits} new HIT(s) are handed out through the campaign's links as they are "
            "(`da-platform invite` mints more)"]
