"""Launching a built campaign: MTurk HITs (one per platform HIT) or one Prolific study.

Every create is idempotent: MTurk HITs carry a UniqueRequestToken derived from the HIT and a
RequesterAnnotation to find them again; the Prolific study's internal name identifies it. Each
created id is committed at once, so an interrupted launch resumes where it stopped.

A study's places are its HITs' places (HITs × places per HIT): HITs added to a campaign whose study exists (the
next wave of a campaign in waves) are joined to it only after its places are raised to the new total on Prolific,
so a refusal leaves the study and the database as they were (:class:`PlacesNotRaised` says what to do).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from da_platform.config.campaign_settings import CampaignSettings, MTurkLaunch
from da_platform.db.audit import audit
from da_platform.db.models import Campaign, CampaignStatus, Hit
from da_platform.db.rows import get_row
from da_platform.db.states import WorkerSource
from da_platform.providers.idempotency import request_token
from da_platform.providers.money import CostEstimate
from da_platform.providers.mturk import MTURK
from da_platform.providers.mturk.client import MTurk
from da_platform.providers.mturk.settings import MTurkSettings
from da_platform.providers.prolific import PROLIFIC
from da_platform.providers.prolific.client import Prolific
from da_platform.providers.prolific.settings import ProlificSettings
from da_platform.providers.public_url import require_public_https

LAUNCHABLE = (CampaignStatus.built, CampaignStatus.running)


class LaunchError(ValueError):
    """The campaign cannot be launched as asked (the message says why)."""


class PlacesNotRaised(LaunchError):
    """Prolific did not raise the study's places for the campaign's new HITs; nothing was changed, and the
    message says exactly what to do (raise them by hand to the total, then launch again)."""


@dataclass(frozen=True)
class LaunchPlan:
    """What a launch will create and cost (shown before anything is sent)."""

    campaign_id: int
    provider: WorkerSource
    new_hits: int  # HITs without a provider id yet
    assignments: int
    url: str
    cost: CostEstimate


def _unlaunched(session: Session, campaign: Campaign) -> list[Hit]:
    return list(session.scalars(select(Hit).where(Hit.campaign_id == campaign.id, Hit.provider_hit_id.is_(None))
                                .order_by(Hit.index)))


def _check(campaign: Campaign, session: Session, provider: WorkerSource) -> None:
    if campaign.status not in LAUNCHABLE:
        raise LaunchError(f"campaign {campaign.name!r} is {campaign.status.value}: build it first")
    other = session.scalars(select(Hit.provider).where(Hit.campaign_id == campaign.id, Hit.provider.is_not(None),
                                                       Hit.provider != provider)).first()
    if other:
        raise LaunchError(f"campaign {campaign.name!r} is already launched on {other}")


def mturk_entry_url(public_url: str) -> str:
    """The platform's MTurk ExternalQuestion URL (public HTTPS required)."""
    from da_platform.providers.mturk.arrival import external_question_url

    return require_public_https(external_question_url(public_url), what="MTurk ExternalQuestion URL")


def plan_mturk(session: Session, campaign: Campaign, settings: MTurkSettings, *, public_url: str,
               expected_bonus: Decimal = Decimal("0.00")) -> LaunchPlan:
    """Cost of launching the campaign's unlaunched HITs (bonus: the most the review would pay each)."""
    _check(campaign, session, MTURK.name)
    hits = _unlaunched(session, campaign)
    count = MTURK.launch_plan(settings, hits=len(hits), expected_bonus=expected_bonus)
    return LaunchPlan(campaign.id, MTURK.name, len(hits), count.assignments, mturk_entry_url(public_url), count.cost)


def launch_mturk(sessions: sessionmaker[Session], campaign_id: int, mturk: MTurk, settings: MTurkSettings, *,
                 public_url: str, progress: Callable[[int], None] | None = None) -> list[str]:
    """Create the exclusion qualification, the HIT type and one HIT per unlaunched platform HIT."""
    url = mturk_entry_url(public_url)
    with sessions.begin() as session:
        campaign = get_row(session, Campaign, campaign_id)
        _check(campaign, session, MTURK.name)
        name = f"da-platform exclusion: {campaign.name} ({campaign.id})"
    qualification = mturk.ensure_exclusion_qualification(
        name, "Workers who already did this rating task (or were blocked from it); the HITs require its absence.")
    settings = settings.with_changes(exclusion_qualification_id=qualification)
    mturk.exclusion_qualification_id = qualification
    hit_type = mturk.create_hit_type(settings)
    with sessions.begin() as session:
        campaign = get_row(session, Campaign, campaign_id)
        CampaignSettings.update(campaign, mturk=settings, mturk_launch=MTurkLaunch(hit_type, mturk.live))
        audit(session, "mturk.create_hit_type", campaign_id=campaign_id, target=hit_type,
              details={"qualification": qualification, "live": mturk.live}, outcome="ok")
        hits = [(h.id, h.public_id) for h in _unlaunched(session, campaign)]
    created = []
    for hit_id, public_id in hits:
        token = request_token("mturk-hit", campaign_id, public_id)
        provider_id = mturk.create_hit(hit_type, url=url, settings=settings, token=token,
                                       annotation=f"da-platform:{public_id}")
        with sessions.begin() as session:
            hit = get_row(session, Hit, hit_id)
            hit.provider, hit.provider_hit_id = MTURK.name, provider_id
            hit.max_assignments = settings.assignments_per_hit
            get_row(session, Campaign, campaign_id).status = CampaignStatus.running
            audit(session, "mturk.create_hit", campaign_id=campaign_id, target=provider_id,
                  details={"hit": public_id, "request_token": token, "live": mturk.live}, outcome="ok")
        created.append(provider_id)
        if progress:
            progress(1)
    return created


def prolific_entry_url(public_url: str, secret_key: str | None, campaign_id: int) -> str:
    """The study URL with Prolific's placeholders (public HTTPS required; signed with the web key)."""
    from da_platform.providers.prolific.arrival import study_url
    from da_platform.providers.tokens import Tokens

    if not secret_key:
        raise LaunchError("set DA_SECRET_KEY to the web server's secret key: it signs the study link")
    return require_public_https(study_url(Tokens(secret_key), public_url, campaign_id), what="Prolific study URL")


def _completion_code(campaign: Campaign) -> str:
    """The code Prolific shows a worker who finished; a :class:`LaunchError` when the campaign has none."""
    if not campaign.completion_code:
        raise LaunchError(f"campaign {campaign.name!r} has no completion code (Prolific needs one)")
    return campaign.completion_code


def plan_prolific(session: Session, campaign: Campaign, settings: ProlificSettings, *, public_url: str,
                  secret_key: str | None, expected_bonus: Decimal = Decimal("0.00")) -> LaunchPlan:
    _check(campaign, session, PROLIFIC.name)
    _completion_code(campaign)
    hits = list(session.scalars(select(Hit).where(Hit.campaign_id == campaign.id)))
    count = PROLIFIC.launch_plan(settings, hits=len(hits), expected_bonus=expected_bonus)
    new = len(_unlaunched(session, campaign)) if settings.study_id else len(hits)
    cost = count.cost
    if campaign.status is CampaignStatus.running:  # published: only the new HITs' places cost anything more
        cost = PROLIFIC.launch_plan(settings, hits=new, expected_bonus=expected_bonus).cost
    return LaunchPlan(campaign.id, PROLIFIC.name, new, count.assignments,
                      prolific_entry_url(public_url, secret_key, campaign.id), cost)


def _raise_places(prolific: Prolific, campaign_name: str, study_id: str, plan: LaunchPlan) -> tuple[int, int]:
    """Raise the study's places to the plan's total before its new HITs are joined (a :class:`PlacesNotRaised`
    when Prolific does not: then nothing is changed)."""
    from da_platform.providers.base import ProviderError
    from da_platform.providers.retry import RetriesExhausted

    try:
        return prolific.raise_places(study_id, plan.assignments)
    except (ProviderError, RetriesExhausted) as error:
        raise PlacesNotRaised(
            f"Prolific did not raise the places of study {study_id} to {plan.assignments} for the {plan.new_hits} "
            f"new HIT(s) of campaign {campaign_name!r}: {error}\nnothing was changed (the new HITs are not joined "
            f"to the study). Run `da-platform prolific launch {campaign_name}` again, or raise the study's places "
            f"to {plan.assignments} in all on Prolific by hand (its 'Increase places' action) and then run it "
            "again: it joins the new HITs without sending the places twice") from error


def launch_prolific(sessions: sessionmaker[Session], campaign_id: int, prolific: Prolific,
                    settings: ProlificSettings, *, public_url: str, secret_key: str | None,
                    publish: bool) -> str:
    """Create (or find) the campaign's study as a draft; publish it when ``publish``.

    When the study exists and the campaign has HITs not joined to it yet (the next wave), its places are first
    raised to the campaign's HITs × places per HIT; a published (running) study only with ``publish``, as its
    new places cost real money."""
    with sessions() as session:
        campaign = get_row(session, Campaign, campaign_id)
        plan = plan_prolific(session, campaign, settings, public_url=public_url, secret_key=secret_key)
        body = settings.study_body(entry_url=plan.url, completion_code=_completion_code(campaign),
                                   places=plan.assignments,
                                   internal_name=f"da-platform {campaign.name} ({campaign.id})")
        name, running = campaign.name, campaign.status is CampaignStatus.running
    if settings.study_id and plan.new_hits:
        if running and not publish:
            raise LaunchError(f"study {settings.study_id} is published: its places for the {plan.new_hits} new "
                              f"HIT(s) cost real money; run `da-platform prolific launch {name} --live` (it shows the "
                              "cost and asks to confirm it)\nnothing was changed")
        before, now = _raise_places(prolific, name, settings.study_id, plan)
        with sessions.begin() as session:
            audit(session, "prolific.raise_places", campaign_id=campaign_id, target=settings.study_id,
                  details={"before": before, "places": now, "new_hits": plan.new_hits}, outcome="ok")
    study_id = settings.study_id or prolific.create_study(body)
    with sessions.begin() as session:
        campaign = get_row(session, Campaign, campaign_id)
        for hit in session.scalars(select(Hit).where(Hit.campaign_id == campaign_id)):
            hit.provider, hit.provider_hit_id, hit.max_assignments = PROLIFIC.name, study_id, settings.places_per_hit
        CampaignSettings.update(campaign, prolific=settings.with_changes(study_id=study_id))
        audit(session, "prolific.create_study", campaign_id=campaign_id, target=study_id,
              details={"places": plan.assignments, "reward": body["reward"]}, outcome="draft")
    if publish and not running:
        prolific.transition_study(study_id, "PUBLISH")
        with sessions.begin() as session:
            get_row(session, Campaign, campaign_id).status = CampaignStatus.running
            audit(session, "prolific.publish", campaign_id=campaign_id, target=study_id, outcome="published")
    return study_id
