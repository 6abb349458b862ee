"""Prolific: the study URL carries ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID``.

URL: ``{public_url}/prolific/<campaign token>?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID=…&SESSION_ID=…``
(the token is signed, so campaigns cannot be enumerated). At the end the worker is redirected to
``https://app.prolific.com/submissions/complete?cc=<Campaign.completion_code>``.
"""
from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from da_platform.db.models import Assignment, Campaign
from da_platform.db.states import WorkerSource
from da_platform.providers.arrival import Arrival, ArrivalRefused, ArrivalSource, Completion, CompletionKind, identifier
from da_platform.providers.tokens import TokenError, Tokens

COMPLETE_URL = "https://app.prolific.com/submissions/complete"
ARRIVAL_PATH = "/prolific/{token}"


def study_url(tokens: Tokens, public_url: str, campaign_id: int) -> str:
    """The URL to give Prolific as the study link (with Prolific's own placeholders)."""
    query = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    return public_url.rstrip("/") + ARRIVAL_PATH.format(token=tokens.campaign(campaign_id)) + "?" + query


class ProlificSource(ArrivalSource):
    name = WorkerSource.prolific

    def __init__(self, tokens: Tokens, complete_url: str = COMPLETE_URL) -> None:
        self.tokens = tokens
        self.complete_url = complete_url

    def arrival(self, session: Session, params: Mapping[str, str], path_token: str | None) -> Arrival:
        try:
            campaign_id = self.tokens.read_campaign(path_token or "")
        except TokenError:
            raise ArrivalRefused("This study link is not valid.") from None
        try:
            pid = identifier(params, "PROLIFIC_PID")
            study = identifier(params, "STUDY_ID")
            session_id = identifier(params, "SESSION_ID")
        except ArrivalRefused as refusal:
            raise refusal.about(campaign_id) from None
        return Arrival(
            source=self.name,
            campaign_id=campaign_id,
            worker_external_id=pid,
            provider_assignment_id=session_id,
            provider_data={"STUDY_ID": study, "SESSION_ID": session_id},
        )

    def completion(self, assignment: Assignment, campaign: Campaign, receipt: str) -> Completion:
        if not campaign.completion_code:
            return Completion(
                kind=CompletionKind.page,
                note="No completion code is configured for this study: please contact the researcher.",
            )
        return Completion(kind=CompletionKind.redirect,
                          url=self.complete_url + "?" + urlencode({"cc": campaign.completion_code}))
