"""A copy of one campaign's design in a scratch SQLite database, for a rehearsal that never touches the live data.

Copied, with their ids: the campaign's test set (questions, references, systems, answers, imported judge scores),
the campaign row, its systems, its HITs and their slots; and the answer images its slots show, read from the live
image store (folder, database or S3) and written to a folder beside the scratch database. Not copied: workers,
assignments, ratings, review decisions, the audit log, dashboard accounts: the rehearsal starts from a campaign
nobody has rated. In the copy the campaign is ``running`` and its HITs are on no provider (the simulated crowd
arrives through own-pool invite links); everything else (quality-control policy, time limits, reward settings,
worker-page settings) is the campaign's own.

The live database is only read (one session, never committed).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Engine, Table, bindparam, select
from sqlalchemy.orm import Session

from da_platform.db.models import Base, Campaign, CampaignStatus, Hit, Slot
from hit_builder.storage import ImageStorage, LocalImageStorage

BATCH = 2000  # rows read and written at a time


class CopyError(RuntimeError):
    """The campaign could not be copied (an image missing from the live store, say)."""


def _tables() -> Mapping[str, Table]:
    return Base.metadata.tables


def _selections(campaign: Campaign) -> Iterator[tuple[Table, Any, list]]:
    """(table, which rows, order) for every table copied, parents before children."""
    t = _tables()
    test_set_id, campaign_id = campaign.test_set_id, campaign.id
    questions = select(t["question"].c.id).where(t["question"].c.test_set_id == test_set_id)
    systems = select(t["system"].c.id).where(t["system"].c.test_set_id == test_set_id)
    answers = select(t["answer"].c.id).where(t["answer"].c.system_id.in_(systems))
    hits = select(t["hit"].c.id).where(t["hit"].c.campaign_id == campaign_id)
    slot = t["slot"]
    yield t["test_set"], t["test_set"].c.id == test_set_id, [t["test_set"].c.id]
    yield t["question"], t["question"].c.test_set_id == test_set_id, [t["question"].c.id]
    yield t["reference"], t["reference"].c.question_id.in_(questions), [t["reference"].c.id]
    yield t["system"], t["system"].c.test_set_id == test_set_id, [t["system"].c.id]
    yield t["answer"], t["answer"].c.system_id.in_(systems), [t["answer"].c.id]
    yield t["judge_score"], t["judge_score"].c.answer_id.in_(answers), [t["judge_score"].c.id]
    yield t["campaign"], t["campaign"].c.id == campaign_id, [t["campaign"].c.id]
    yield t["campaign_system"], t["campaign_system"].c.campaign_id == campaign_id, [t["campaign_system"].c.system_id]
    yield t["hit"], t["hit"].c.campaign_id == campaign_id, [t["hit"].c.id]
    # A check points at its original slot: the ordinary slots first.
    yield slot, slot.c.hit_id.in_(hits), [slot.c.original_slot_id.is_not(None), slot.c.id]


def _as_copied(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """A row as the copy holds it: the campaign running, its HITs on no provider."""
    if table.name == "campaign":
        return {**row, "status": CampaignStatus.running}
    if table.name == "hit":
        return {**row, "provider": None, "provider_hit_id": None}
    return row


def _insert(table: Table):
    """An insert into ``table`` that stores a JSON column's None as SQL NULL (as the ORM leaves an unset one)."""
    nulls = {c.name: bindparam(c.name, type_=JSON(none_as_null=True)) for c in table.columns
             if isinstance(c.type, JSON)}
    return table.insert().values(nulls) if nulls else table.insert()


def copy_campaign(source: Session, campaign: Campaign, target: Engine,
                  progress: Callable[[str], None] | None = None) -> int:
    """Copy ``campaign``'s design rows from ``source`` into the empty, migrated database of ``target``; the rows
    copied. ``progress(table)`` is called before each table."""
    copied = 0
    with target.begin() as connection:
        for table, where, order in _selections(campaign):
            if progress is not None:
                progress(table.name)
            result = source.execute(select(table).where(where).order_by(*order).execution_options(yield_per=BATCH))
            for rows in result.mappings().partitions(BATCH):
                connection.execute(_insert(table), [_as_copied(table, dict(row)) for row in rows])
                copied += len(rows)
    return copied


def image_keys(session: Session, campaign_id: int) -> list[str]:
    """Every image key the campaign's slots show (Answer B and Answer A), each once."""
    rows = session.execute(select(Slot.candidate_image, Slot.reference_image).join(Hit, Hit.id == Slot.hit_id)
                           .where(Hit.campaign_id == campaign_id)).all()
    return sorted({key for row in rows for key in row if key})


def copy_images(keys: list[str], source: ImageStorage, folder: Path,
                advance: Callable[[int], None] | None = None) -> int:
    """Copy the images of ``keys`` from ``source`` (the live store) into a folder store at ``folder``; how many.
    A key missing from the live store, or a store that cannot be reached, is a :class:`CopyError` naming it."""
    from hit_builder.storage import StoreUnavailable

    target = LocalImageStorage(folder)
    for key in keys:
        if not target.exists(key):
            try:
                png = source.read(key)
            except KeyError:
                raise CopyError(f"image {key} of the campaign is not in the image store ({source!r})") from None
            except StoreUnavailable as error:
                raise CopyError(f"the image store did not answer: {error}") from None
            target.put(png)
        if advance is not None:
            advance(1)
    return len(keys)
