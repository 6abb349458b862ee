"""Load a campaign's ratings from the database into the analysis table (``analysis.table``).

Which assignments' ratings count (:func:`counted_assignment`, the one rule of the analysis, its counts and
stamp, the pages and the exports):

- an *abandoned* assignment's never (timed out, returned or released unfinished: docs/security.md);
- an MTurk or Prolific assignment's once the provider has *confirmed* it: ``sync`` saw it submitted,
  approved or rejected under its assignment id, for its worker, on its HIT or study. The ids in the
  arrival URL prove nothing (anyone who knows a worker's id can write one), so until then the ratings
  are stored but *awaiting confirmation* and counted nowhere: not in the scores, and not in the worker's
  quality control, which would otherwise pool a made-up assignment's ratings with the worker's own;
- the own pool's from the first rating (its invitation links are signed).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session

from analysis.evidence import RatingEvidence
from analysis.table import RatingsTable
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import (
    CONFIRMED,
    Answer,
    Assignment,
    AssignmentStatus,
    Campaign,
    Hit,
    JudgeScore,
    Question,
    Rating,
    Slot,
    SlotType,
    System,
    Worker,
)
from da_platform.providers.registry import confirmed_sources
from da_platform.rating.merged import expand

PROVIDER_SOURCES = confirmed_sources()
"""Sources whose arrival URLs name the worker and the assignment without proof."""


def counted_assignment() -> ColumnElement[bool]:
    """The assignments whose ratings count (module docstring), as a condition on ``Assignment``."""
    return and_(Assignment.status != AssignmentStatus.abandoned,
                or_(Assignment.source.not_in(PROVIDER_SOURCES), Assignment.status.in_(CONFIRMED)))


def awaiting_confirmation() -> ColumnElement[bool]:
    """MTurk and Prolific assignments the provider has not confirmed yet (in progress or completed here)."""
    return and_(Assignment.source.in_(PROVIDER_SOURCES),
                Assignment.status.in_((AssignmentStatus.in_progress, AssignmentStatus.completed)))


def worker_label(source: str, external_id: str) -> str:
    """How a worker is named in analysis tables and reports: ``<source>:<external id>``."""
    return f"{source}:{external_id}"


def _ratings_by_worker(session: Session, campaign: Campaign, condition: ColumnElement[bool]) -> dict[str, int]:
    return {worker_label(source, external): int(count) for source, external, count in session.execute(
        select(Worker.source, Worker.external_id, func.count(Rating.id))
        .join(Assignment, Rating.assignment_id == Assignment.id).join(Worker, Assignment.worker_id == Worker.id)
        .join(Hit, Assignment.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign.id, condition)
        .group_by(Worker.source, Worker.external_id))}


def abandoned_ratings(session: Session, campaign: Campaign) -> dict[str, int]:
    """Ratings of the campaign's abandoned assignments (timed out, returned or released unfinished), by
    worker label: stored, but never analysed or exported (:func:`load_ratings` leaves them out)."""
    return _ratings_by_worker(session, campaign, Assignment.status == AssignmentStatus.abandoned)


def unconfirmed_ratings(session: Session, campaign: Campaign) -> dict[str, int]:
    """Ratings of the campaign's MTurk and Prolific assignments awaiting the provider's confirmation, by worker
    label: stored, analysed once ``sync`` has confirmed their assignment (:func:`load_ratings` leaves them out)."""
    return _ratings_by_worker(session, campaign, awaiting_confirmation())


def abandoned_note(count: int) -> str:
    """What every page, command and export says of such ratings: ``14 ratings, abandoned, not analysed``."""
    return f"{count:,} rating{'' if count == 1 else 's'}, abandoned, not analysed"


def unconfirmed_note(count: int) -> str:
    """What every page, command and export says of ratings awaiting confirmation: ``100 ratings, awaiting the
    provider's confirmation (sync), not analysed yet``."""
    return (f"{count:,} rating{'' if count == 1 else 's'}, awaiting the provider's confirmation (sync), "
            "not analysed yet")


def judge_columns(session: Session, rows: Sequence[Any]) -> np.ndarray | None:
    """Per rating row (with ``system_id``, ``question_id``, ``slot_type``), one column per imported judge of
    those answers (``JudgeScore``, judges in name order): its score where the slot shows the answer as it is
    (SYSTEM, REPEAT), NaN on the altered checks and where the judge gave none; None without any judge."""
    answers = {(r.system_id, r.question_id) for r in rows}
    if not answers:
        return None
    found = session.execute(
        select(JudgeScore.judge, Answer.system_id, Answer.question_id, JudgeScore.score)
        .join(Answer, Answer.id == JudgeScore.answer_id)
        .where(Answer.system_id.in_({system for system, _ in answers}),
               Answer.question_id.in_({question for _, question in answers}))).all()
    judges = sorted({judge for judge, *_ in found})
    if not judges:
        return None
    score = {(judge, system, question): value for judge, system, question, value in found}
    shown_as_is = (SlotType.SYSTEM, SlotType.REPEAT)
    return np.array([[score.get((judge, r.system_id, r.question_id), math.nan) if r.slot_type in shown_as_is
                      else math.nan for judge in judges] for r in rows], dtype=np.float64).reshape(len(rows), -1)


def load_ratings(session: Session, campaign: Campaign) -> RatingsTable:
    """Every rating of the campaign, one row each, in the order each worker gave them.

    group = campaign name; worker = ``source:external_id``; HIT = its public id; system = system
    name; item = question external id; slot = slot id, checks linked to their original slot;
    time on item = rated_at − shown_at in seconds (NaN when shown_at is unknown); evidence = each
    rating's behaviour record, checked against that time, the texts its slot showed, and whether the server
    had served its images (``analysis.evidence``).

    A check (REPEAT, BAD_REF, REF, MEANING) whose original the same assignment has not rated yet is left out
    until it has: checks sit in the other half of the HIT from their originals, so a HIT being rated
    right now, or one a worker abandoned halfway, holds checks that cannot be paired.

    Ratings of *abandoned* assignments (timed out or returned unfinished) are left out altogether:
    they stay stored, but a HIT left before its checks were reached was never quality-controlled,
    so letting HITs time out must not be a way around quality control (docs/security.md). So are those of
    MTurk and Prolific assignments the provider has not confirmed yet (:func:`counted_assignment`).
    """
    rows = session.execute(
        select(Worker.source, Worker.external_id, Hit.public_id, System.name, Question.external_id,
               Slot.slot_type, Slot.id, Slot.original_slot_id, Rating.score, Rating.shown_at, Rating.rated_at,
               Rating.assignment_id, Rating.behaviour_status, Rating.behaviour, Slot.candidate_text,
               Slot.reference_text, Slot.system_id, Slot.question_id, Rating.images_served)
        .join(Assignment, Rating.assignment_id == Assignment.id)
        .join(Worker, Assignment.worker_id == Worker.id)
        .join(Slot, Rating.slot_id == Slot.id)
        .join(Hit, Slot.hit_id == Hit.id)
        .join(System, Slot.system_id == System.id)
        .join(Question, Slot.question_id == Question.id)
        .where(Hit.campaign_id == campaign.id, counted_assignment())
        .order_by(Assignment.id, Slot.position)
    ).all()
    rated = {(r.assignment_id, r.id) for r in rows}
    rows = [r for r in rows if r.original_slot_id is None or (r.assignment_id, r.original_slot_id) in rated]
    seconds = [(r.rated_at - r.shown_at).total_seconds() if r.shown_at is not None and r.rated_at is not None
               else math.nan for r in rows]
    columns: dict[str, Any] = dict(  # columns of different element types, by from_columns' parameter names
        group=[campaign.name] * len(rows),
        worker=[worker_label(r.source, r[1]) for r in rows],
        hit=[r.public_id for r in rows],
        system=[r.name for r in rows],
        item=[r[4] for r in rows],
        slot_type=[r.slot_type.value for r in rows],
        slot=[str(r[6]) for r in rows],
        original_slot=["" if r.original_slot_id is None else str(r.original_slot_id) for r in rows],
        score=[r.score for r in rows],
        seconds=seconds,
    )
    evidence = RatingEvidence.from_rows(
        [None if r.behaviour_status is None else r.behaviour_status.value for r in rows],
        [r.behaviour for r in rows], [r.candidate_text for r in rows], [r.reference_text for r in rows],
        reference_shown=bool(campaign.show_reference), server_seconds=seconds, judge=judge_columns(session, rows),
        images_served=[r.images_served for r in rows])
    columns = expand(columns, CampaignSettings.of(campaign).identical_answers)  # merged answers count for each system
    # The copies (appended after the real rows) carry no evidence of their own: the worker gave one rating.
    evidence = evidence.extended(len(columns["score"]) - len(rows))
    return RatingsTable.from_columns(**columns, evidence=evidence, source=f"campaign {campaign.name!r}")
