"""Preview any slot of a campaign as its worker would see it, plus what the worker never sees.

Read-only: no worker, assignment or rating is created (the dashboard's preview page and
``da-platform campaign preview`` both use :func:`slot_preview`).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from da_platform.db.models import Campaign, Hit, Slot
from hit_builder.storage import LocalImageStorage


class PreviewError(LookupError):
    """No such HIT or slot (the message says which exist)."""


@dataclass(frozen=True)
class SlotPreview:
    """One screen: what the worker sees (statement, question, images) and the hidden facts."""

    hit_index: int
    hits: int
    position: int
    total: int
    statement: str
    question: str
    show_reference: bool
    slot_public_id: str
    reference_image: str | None
    candidate_image: str | None
    reference_text: str | None
    candidate_text: str
    slot_type: str
    system: str
    question_id: str
    original_position: int | None
    degradation: dict[str, Any] | None


def slot_preview(session: Session, campaign: Campaign, hit_index: int, position: int = 0) -> SlotPreview:
    """The slot at ``position`` of HIT ``hit_index`` of ``campaign`` (both numbered from 0)."""
    hits = session.scalar(select(Hit).where(Hit.campaign_id == campaign.id, Hit.index == hit_index))
    count = len(campaign.hits)
    if hits is None:
        raise PreviewError(f"campaign {campaign.name!r} has no HIT {hit_index}"
                           + (f" (HITs 0–{count - 1})" if count else " (it is not built yet)"))
    slot = session.scalar(select(Slot).where(Slot.hit_id == hits.id, Slot.position == position))
    if slot is None:
        raise PreviewError(f"HIT {hit_index} of campaign {campaign.name!r} has no slot {position} "
                           f"(slots 0–{hits.slot_count - 1})")
    original = slot.original_slot
    return SlotPreview(
        hit_index=hit_index, hits=count, position=position, total=hits.slot_count, statement=campaign.statement,
        question=slot.question.text, show_reference=campaign.show_reference, slot_public_id=slot.public_id,
        reference_image=slot.reference_image if campaign.show_reference else None,
        candidate_image=slot.candidate_image, reference_text=slot.reference_text if campaign.show_reference else None,
        candidate_text=slot.candidate_text, slot_type=slot.slot_type.value, system=slot.system.name,
        question_id=slot.question.external_id, original_position=None if original is None else original.position,
        degradation=slot.degradation)


def image_key(session: Session, campaign: Campaign, slot_public_id: str, role: str) -> str | None:
    """Storage key of a slot's ``reference`` or ``candidate`` image, if the slot is the campaign's."""
    slot = session.scalar(select(Slot).join(Hit, Hit.id == Slot.hit_id)
                          .where(Hit.campaign_id == campaign.id, Slot.public_id == slot_public_id))
    if slot is None:
        return None
    return slot.reference_image if role == "reference" else slot.candidate_image


def write_images(shown: SlotPreview, storage: LocalImageStorage, folder: Path) -> Iterator[Path]:
    """Write the previewed slot's images from ``storage`` to ``folder`` (made if missing) as ``answer-a.png`` (the
    reference, if shown) and ``answer-b.png`` (the candidate), yielding each file once written;
    :class:`PreviewError` for an image the storage does not have."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, key in (("answer-a.png", shown.reference_image), ("answer-b.png", shown.candidate_image)):
        if key is not None:
            try:
                (folder / name).write_bytes(storage.read(key))
            except KeyError:
                raise PreviewError(f"image {key} is not in {storage.folder}") from None
            yield folder / name
