"""The lab's own pool: invite links carrying signed, expiring tokens; workers need no account.

URL: ``{public_url}/pool/<invite token>``. Each token names the campaign and an anonymous worker id,
so one link is one person; following it again resumes their HIT or hands out their next one (up to
the campaign's ``max_hits_per_worker``).

A pool worker has a time limit per HIT (``CampaignSettings.pool_time_limit_minutes``, set by
``da-platform invite --time-limit``, default ``DEFAULT_POOL_TIME_LIMIT_MINUTES`` of
:mod:`da_platform.config.campaign_settings`), as MTurk and Prolific have theirs
(:mod:`da_platform.config.time_limits` applies all three).
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Mapping

from sqlalchemy.orm import Session

from da_platform.db.models import Assignment, Campaign
from da_platform.db.states import WorkerSource
from da_platform.providers.arrival import Arrival, ArrivalRefused, ArrivalSource, Completion, CompletionKind
from da_platform.providers.tokens import TokenError, Tokens

ARRIVAL_PATH = "/pool/{token}"


class PoolSource(ArrivalSource):
    name = WorkerSource.pool

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens

    def arrival(self, session: Session, params: Mapping[str, str], path_token: str | None) -> Arrival:
        try:
            invite = self.tokens.read_invite(path_token or "")
        except TokenError as error:
            raise ArrivalRefused(
                "This invitation has expired." if error.expired else "This invitation link is not valid.",
                campaign_id=error.campaign_id) from None
        return Arrival(source=self.name, campaign_id=invite.campaign_id, worker_external_id=invite.worker_id)

    def completion(self, assignment: Assignment, campaign: Campaign, receipt: str) -> Completion:
        return Completion(kind=CompletionKind.page)


def mint_invites(
    tokens: Tokens, public_url: str, campaign_id: int, count: int, valid_days: float, now: float | None = None
) -> list[str]:
    """``count`` invite links to ``campaign_id``, each for a new anonymous worker, valid ``valid_days``."""
    expires_at = int((time.time() if now is None else now) + valid_days * 86400)
    base = public_url.rstrip("/")
    return [
        base + ARRIVAL_PATH.format(token=tokens.invite(campaign_id, "p-" + secrets.token_hex(8), expires_at))
        for _ in range(count)
    ]
