"""Campaigns in waves, on the database (docs/method.md §12): the first wave at build time, each later wave added
to the built campaign.

* :func:`da_platform.building.first_wave.first_wave_plan` (called by ``build_campaign`` for ``BuildSpec.waves``):
  the fixed design is assembled as usual, to measure against (its HITs are the budget's unit, its ratings per
  system the information each pair is planned to reach), and only the first wave's HITs
  (``analysis.sequential_plan.first_wave``, the fixed mix) are built; the design and that wave go into
  ``CampaignSettings.waves``.
* :func:`add_wave`: the next wave of a built campaign, from the plan its analysis made
  (``da_platform.operations.waves``): the HITs are assembled by :func:`hit_builder.waves.assemble_wave` from the
  campaign's own items (least planned first), their checks degraded and their images drawn exactly as the
  build's (the render style and fonts the campaign recorded), stored after the campaign's last HIT and verified
  with the whole campaign. The look the previous wave ended with is recorded on it. Nothing is committed: the
  caller commits, or rolls back on any error, which leaves the campaign as it was.

HITs of a new wave join the campaign's others: workers of the own pool, MTurk and Prolific take them as they take
any HIT, and each worker's cap (``max_hits_per_worker``) counts every HIT of the campaign, whatever its wave; a
worker allowed several HITs is handed only one that shows none of the items of his other HITs
(:mod:`da_platform.sources.arrival`, rule 6).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from analysis.sequential_plan import WavePlan
from da_core.enums import SlotType
from da_core.errors import BuildError
from da_platform.building.build import _import_items, _texts, insert_hits, original_score
from da_platform.building.first_wave import by_system
from da_platform.building.inspection import verify_campaign
from da_platform.config.build_record import RenderRecord
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.waves_record import LookRecord, WaveEntry
from da_platform.db.models import Campaign, CampaignStatus, Hit, Slot
from hit_builder.assembly import Assembly
from hit_builder.fonts import FontChain
from hit_builder.ocr_resistant import HardenedStyle, check_drawable
from hit_builder.render import Renderer, RenderStyle, Role, check_shaping, render_many
from hit_builder.storage import ImageStorage
from hit_builder.waves import assemble_wave

WAVE_STATUSES = (CampaignStatus.built, CampaignStatus.running, CampaignStatus.paused)


def renderer_of(record: RenderRecord) -> tuple[FontChain, Renderer]:
    """The font chain and renderer a campaign's images were drawn with, from its render record."""
    stored: Mapping[str, Any] = record.record
    style_class: type[RenderStyle] = HardenedStyle if record.ocr_resistant else RenderStyle
    fields = {f.name: f for f in dataclasses.fields(style_class)}
    values: dict[str, Any] = {name: tuple(value) if isinstance(value, list) else value
                              for name, value in stored.items() if name in fields}
    fonts = [f"{face['path']}#{face.get('index', 0)}" for face in stored.get("fonts", ())]
    chain = FontChain.load(fonts or None)
    return chain, Renderer(chain, style_class(**values))


def add_wave(session: Session, campaign: Campaign, plan: WavePlan, look: LookRecord, *, storage: ImageStorage,
             processes: int | None = None) -> WaveEntry | None:
    """Record ``look`` on the campaign's latest wave and add the wave ``plan`` describes (see the module
    docstring); a plan that stops records that instead, and adds nothing (None)."""
    settings = CampaignSettings.of(campaign)
    record = settings.waves
    if record is None:
        raise BuildError(f"campaign {campaign.name!r} has the fixed design: build it with --design waves to run "
                         "it in waves")
    if campaign.status not in WAVE_STATUSES:
        raise BuildError(f"campaign {campaign.name!r} is {campaign.status.value}: a wave is added to a built, "
                         "running or paused campaign")
    if record.stopped is not None:
        raise BuildError(f"campaign {campaign.name!r} stopped after wave {record.latest.wave}: {record.stopped}")
    if plan.wave != record.latest.wave + 1:
        raise BuildError(f"campaign {campaign.name!r} is at wave {record.latest.wave}; the plan is for wave "
                         f"{plan.wave}")
    record = record.with_look(look)
    if plan.stop is not None or plan.hits < 1:
        CampaignSettings.update(campaign, waves=record.with_stop(plan.stop) if plan.stop else record)
        session.flush()
        return None
    imported = _import_items(session, campaign.test_set, campaign.systems,
                             allow_missing=settings.abstentions is not None,
                             merge_identical=settings.identical_answers is not None)
    keys = [(item.system.id, item.question.id) for item in imported.items]
    by_key = dict(zip(keys, imported.items))
    layout = settings.hit_layout
    scores: dict[Hashable, float] | None = (
        {key: original_score(item) for key, item in by_key.items()} if layout.targeted else None)
    planned: dict[Hashable, int] = {(system, question): n for system, question, n in session.execute(
        select(Slot.system_id, Slot.question_id, func.count()).join(Hit, Slot.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign.id, Slot.slot_type == SlotType.SYSTEM)
        .group_by(Slot.system_id, Slot.question_id))}
    first_index = (session.scalar(select(func.max(Hit.index)).where(Hit.campaign_id == campaign.id)) or 0) + 1
    wave = assemble_wave(by_system({key: item.system.name for key, item in by_key.items()}), plan.shares, plan.hits,
                         seed=campaign.seed, wave=plan.wave, first_index=first_index, layout=layout, planned=planned,
                         scores=scores, at_least_one=plan.contention)
    assembly = Assembly(wave.hits, len(keys), campaign.passes, 0, 0)
    rows, jobs = _texts(assembly, by_key, imported.items, imported.references, seed=campaign.seed,
                        show_reference=campaign.show_reference, stream=f" wave={plan.wave}")
    image_of = _draw(jobs, settings, storage, processes)
    assert settings.id_salt is not None  # every build stores its salt
    insert_hits(session, campaign.id, campaign.name, settings.id_salt, wave.hits, rows, image_of)
    entry = WaveEntry(plan.wave, first_index, len(wave.hits), dict(plan.shares), plan.contention)
    CampaignSettings.update(campaign, waves=record.with_wave(entry))
    session.flush()
    verify_campaign(session, campaign)
    return entry


def _draw(jobs: dict[tuple[str, Role], str], settings: CampaignSettings, storage: ImageStorage,
          processes: int | None) -> dict[tuple[str, Role], str]:
    """The images of a wave's texts, drawn as the campaign's others were (checked first, as a build checks)."""
    if settings.render is None:
        raise BuildError("the campaign recorded no render settings: it cannot draw a new wave's images")
    chain, renderer = renderer_of(settings.render)
    chain.check_all((text, where) for (text, _role), where in jobs.items())
    for (text, _role), where in jobs.items():
        check_shaping(text, where, available=renderer.shaping)
        if isinstance(renderer.style, HardenedStyle):
            check_drawable(text, where)
    job_list = [(text, role, where) for (text, role), where in jobs.items()]
    keys = render_many(renderer, job_list, storage, processes=processes)
    return {(text, role): key for (text, role, _), key in zip(job_list, keys)}
