"""A built campaign as the researcher sees it: verification, summary, and one HIT's composition."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_core.errors import BuildError
from da_platform.building.crowds import stored_crowd
from da_platform.config.campaign_settings import CampaignSettings, CampaignSettingsError
from da_platform.db.models import Campaign, Hit, Question, Slot, SlotType, System
from hit_builder.assembly import HitPlan, SlotPlan, verify_hit
from hit_builder.layouts import CLASSIC


def verify_campaign(session: Session, campaign: Campaign) -> int:
    """Check every stored HIT of the campaign against docs/method.md §2; returns the number of HITs.

    The stored slots are turned back into plans and checked by :func:`assembly.verify_hit`, so the
    database and the assembler are held to the same rule; a check whose original lies in another
    HIT fails too. Each HIT is checked against the layout stored with the campaign
    (``CampaignSettings.stored_layout``; campaigns built before layouts existed are classic).
    """
    try:
        layout = CampaignSettings.of(campaign).hit_layout
    except CampaignSettingsError as error:
        raise BuildError(f"campaign {campaign.name!r}: {error}") from None
    rows = session.execute(
        select(Hit.index, Slot.id, Slot.position, Slot.set_index, Slot.slot_type, Slot.system_id,
               Slot.question_id, Slot.original_slot_id)
        .join(Slot, Slot.hit_id == Hit.id).where(Hit.campaign_id == campaign.id)
        .order_by(Hit.index, Slot.position)).all()
    by_hit: dict[int, list] = {}
    for row in rows:
        by_hit.setdefault(row[0], []).append(row)  # Hit.index (for mypy, row.index is Sequence.index)
    slot_count = dict(session.execute(select(Hit.index, Hit.slot_count).where(Hit.campaign_id == campaign.id)).all())
    if len(slot_count) != len(by_hit):
        raise BuildError(f"campaign {campaign.name!r}: {len(slot_count) - len(by_hit)} HIT(s) have no slots")
    for index, members in by_hit.items():
        if slot_count[index] != len(members):
            raise BuildError(f"HIT {index}: {len(members)} slots stored but slot_count is {slot_count[index]}")
        position_of = {row.id: row.position for row in members}
        for row in members:
            if row.original_slot_id is not None and row.original_slot_id not in position_of:
                raise BuildError(f"HIT {index}: slot {row.position} checks a slot of another HIT")
        verify_hit(HitPlan(index, 0, tuple(
            SlotPlan(row.position, row.set_index, row.slot_type, (row.system_id, row.question_id),
                     position_of.get(row.original_slot_id)) for row in members)), layout)
    return len(by_hit)


@dataclass(frozen=True)
class SlotRow:
    """One line of a HIT's composition table."""

    position: int
    set_index: int
    slot_type: str
    system: str
    question: str  # the question's id in the test set
    original_position: int | None


@dataclass(frozen=True)
class CampaignSummary:
    name: str
    status: str
    test_set: str
    criterion: str
    statement: str
    show_reference: bool
    systems: list[str]
    seed: int
    passes: int
    hits: int
    slots_by_type: dict[str, int]
    items: int
    ratings_per_item: dict[int, int]  # ordinary ratings per item -> number of items
    images: int
    degradation: str
    layout: str = CLASSIC.name
    crowd: str | None = None  # the crowd preset it was built for (crowds.stored_crowd), None: none recorded


def campaign_summary(session: Session, campaign: Campaign) -> CampaignSummary:
    by_type = dict(session.execute(
        select(Slot.slot_type, func.count()).join(Hit, Slot.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign.id).group_by(Slot.slot_type)).all())
    per_item = session.execute(
        select(func.count()).select_from(Slot).join(Hit, Slot.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign.id, Slot.slot_type == SlotType.SYSTEM)
        .group_by(Slot.system_id, Slot.question_id)).scalars().all()
    hits = session.scalar(select(func.count()).select_from(Hit).where(Hit.campaign_id == campaign.id)) or 0
    settings = CampaignSettings.of(campaign)
    return CampaignSummary(
        name=campaign.name, status=campaign.status.value, test_set=campaign.test_set.name,
        criterion=campaign.criterion, statement=campaign.statement, show_reference=campaign.show_reference,
        systems=[s.name for s in campaign.systems], seed=campaign.seed, passes=campaign.passes, hits=hits,
        slots_by_type={t.value: by_type.get(t, 0) for t in SlotType}, items=len(per_item),
        ratings_per_item=dict(sorted(Counter(per_item).items())),
        images=settings.render.images if settings.render else 0,
        degradation=settings.degradation.method if settings.degradation else "?",
        layout=settings.hit_layout.name,
        crowd=stored_crowd(settings),
    )


def hit_composition(session: Session, campaign: Campaign, hit_index: int) -> list[SlotRow]:
    """The slots of HIT ``hit_index`` (0-based) in serving order."""
    hit = session.scalar(select(Hit).where(Hit.campaign_id == campaign.id, Hit.index == hit_index))
    if hit is None:
        raise BuildError(f"campaign {campaign.name!r} has no HIT {hit_index}")
    rows = session.execute(
        select(Slot.id, Slot.position, Slot.set_index, Slot.slot_type, System.name, Question.external_id,
               Slot.original_slot_id)
        .join(System, Slot.system_id == System.id).join(Question, Slot.question_id == Question.id)
        .where(Slot.hit_id == hit.id).order_by(Slot.position)).all()
    position_of = {row.id: row.position for row in rows}
    return [SlotRow(row.position, row.set_index, row.slot_type.value, row.name, row.external_id,
                    position_of.get(row.original_slot_id)) for row in rows]
