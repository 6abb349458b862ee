"""A command's changes to a campaign's stored settings (a policy or a provider's settings), checked whole.

A command line gives only the values it changes (None: as stored); :func:`changed` lays them over what the
campaign stores and checks the result, so a run's settings are the stored ones unless an option says otherwise.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from da_core.stored_record import StoredRecord
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.review_policy import ReviewPolicy
from da_platform.db.models import Campaign
from da_platform.db.rows import get_row

Record = TypeVar("Record", bound=StoredRecord)


class InvalidSettings(ValueError):
    """Changes that make no valid setting (an unknown field, a value out of range): the message says which."""


def changed(stored: Record, changes: Mapping[str, Any]) -> Record:
    """``stored`` (a policy or a provider's settings) with
    ``changes`` (None: unchanged), checked; :class:`InvalidSettings` when they make no valid setting."""
    try:
        return stored.with_changes(**changes)
    except (TypeError, ValueError) as error:
        raise InvalidSettings(f"invalid settings: {error}") from None


def stored_settings(session: Session, campaign_id: int) -> CampaignSettings:
    """The settings of the campaign with id ``campaign_id`` (one that cannot be read: ``CampaignSettingsError``)."""
    return CampaignSettings.of(get_row(session, Campaign, campaign_id))


def review_policy(session: Session, campaign_id: int, changes: Mapping[str, Any] | None = None) -> ReviewPolicy:
    """The campaign's review policy (the one last used, else the default) with a run's ``changes``."""
    return changed(stored_settings(session, campaign_id).review_policy, changes or {})
