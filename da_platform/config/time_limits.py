"""How long a worker has for one HIT, whatever the source; past that, the place goes back to others.

Each source declares where its limit is stored, its unit and its default (``SourceDefinition.time_limit`` in its
folder of :mod:`da_platform.providers`), read from the campaign's settings
(:class:`~da_platform.config.campaign_settings.TimeLimits`):

- own pool: ``CampaignSettings.pool_time_limit_minutes`` (``da-platform invite --time-limit``, default 180 min);
- MTurk: the HITs' ``AssignmentDurationInSeconds`` (``CampaignSettings.stored_mturk.assignment_duration``,
  stored at launch, default 3 h): MTurk takes no submission after it;
- Prolific: the study's maximum allowed time (``CampaignSettings.stored_prolific.maximum_minutes``, default 90 min).

This module is the one rule that applies them: the arrival (:mod:`da_platform.sources.arrival`), the rating path
(:mod:`da_platform.rating.flow`), ``sync`` and the list of assignments under way all ask it, so it sits below
them with the settings it reads.

The limit runs from the worker's arrival here (``Assignment.started_at``), which comes after the
provider's accept, so a place is never taken back before the provider itself gives up on it. An
unfinished assignment past its limit is ``abandoned`` by the next arrival or ``sync`` (its ratings are
kept), and its worker's own next request is refused. This is what frees a place held by an arrival the
provider never knew (a made-up MTurk ``assignmentId``): nothing on the provider's side ever finishes it.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import ColumnElement, Float, and_, case, false, func, literal, or_

from da_platform.config.campaign_settings import TIME_LIMITS, CampaignSettings, TimeLimits
from da_platform.db.models import Assignment, AssignmentStatus, Campaign

LIMITED_SOURCES = tuple(TIME_LIMITS)


def is_overdue(source: str, status: AssignmentStatus, started_at: datetime | None, limits: TimeLimits,
               now: datetime) -> bool:
    """Whether one assignment (a row already read) is unfinished past its time limit (naive times are UTC)."""
    limit = limits.seconds(source)
    if limit is None or status != AssignmentStatus.in_progress or started_at is None:
        return False
    if started_at.tzinfo is None:
        started_at = started_at.replace(tzinfo=timezone.utc)
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    return started_at < now - timedelta(seconds=limit)


def cutoffs(limits: TimeLimits, now: datetime) -> dict[str, datetime]:
    """Per limited source: the start time before which an unfinished assignment is past its limit."""
    return {source: now - timedelta(seconds=limit)
            for source in LIMITED_SOURCES if (limit := limits.seconds(source)) is not None}


def overdue(campaign: Campaign, now: datetime) -> ColumnElement[bool]:
    """SQL condition: an assignment unfinished past ``campaign``'s time limit for its source (the caller
    restricts it to the campaign's HITs)."""
    return and_(Assignment.status == AssignmentStatus.in_progress, started_too_long_ago(campaign, now))


def started_too_long_ago(campaign: Campaign, now: datetime) -> ColumnElement[bool]:
    """SQL condition: an assignment started longer ago than ``campaign``'s time limit for its source,
    whatever its status."""
    late = [and_(Assignment.source == source, Assignment.started_at < cutoff)
            for source, cutoff in cutoffs(CampaignSettings.of(campaign).time_limits, now).items()]
    return or_(false(), *late)


def limit_seconds_sql(source: ColumnElement[str], settings: ColumnElement[Any]) -> ColumnElement[float]:
    """The time limit in seconds as a PostgreSQL expression of an assignment's ``source`` column and its
    campaign's ``settings`` (JSON) column (the paths of :data:`TIME_LIMITS`); NULL for a source without one."""
    return case(
        *[(source == name, func.coalesce(settings[path if len(path) > 1 else path[0]].as_float(),
                                         literal(default, Float)) * unit)
          for name, (path, unit, default) in TIME_LIMITS.items()],
        else_=None,
    )
