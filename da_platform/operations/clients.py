"""The clients a campaign's commands talk to: MTurk's (checked against the marketplace the campaign was launched
on) and Prolific's, each made from the campaign's stored settings."""
from __future__ import annotations

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.providers.mturk import MTURK
from da_platform.providers.mturk.client import MTurk
from da_platform.providers.mturk.settings import MTurkSettings
from da_platform.providers.prolific import PROLIFIC
from da_platform.providers.prolific.client import Prolific


class WrongMarketplace(ValueError):
    """A campaign launched on live MTurk reached through the sandbox, or the other way round."""


def mturk_client(settings: CampaignSettings | None, *, live: bool, endpoint: str | None) -> MTurk:
    """The MTurk client (live or the sandbox; ``endpoint``: another requester endpoint) for a campaign's
    ``settings`` (None: for no campaign), checked against the marketplace its HITs were created on."""
    if settings is not None:
        launched = settings.mturk_launch
        if launched is not None and bool(launched.live) != live:
            where = "live MTurk" if launched.live else "the MTurk sandbox"
            raise WrongMarketplace(f"this campaign was launched on {where}: "
                                   f"{'add' if launched.live else 'remove'} --live")
    stored = settings.mturk_settings if settings is not None else MTurkSettings()
    client: MTurk = MTURK.client(stored, live=live, endpoint=endpoint)
    return client


def prolific_client(settings: CampaignSettings, *, endpoint: str | None, token: str | None) -> Prolific:
    """The Prolific client for a campaign's ``settings`` (its currency), at ``endpoint`` (None: Prolific's)."""
    client: Prolific = PROLIFIC.client(settings.prolific_settings, endpoint=endpoint, token=token)
    return client
