"""Amazon Mechanical Turk ExternalQuestion.

MTurk shows ``{public_url}/mturk?assignmentId=…&hitId=…&workerId=…&turkSubmitTo=…`` in an iframe.
While previewing (``assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE``) only the instructions are shown and
nothing is written. The HIT is the one whose ``Hit.provider_hit_id`` equals ``hitId``. At the end the
page POSTs ``assignmentId`` and a completion summary to ``turkSubmitTo + /mturk/externalSubmit``;
``turkSubmitTo`` must be one of the allowed origins. No cookies are used (MTurk's iframe is a
third-party context): the assignment travels in a signed token in the URL.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from da_platform.db.models import Assignment, Campaign, Hit
from da_platform.db.states import WorkerSource
from da_platform.providers.arrival import (
    Arrival,
    ArrivalRefused,
    ArrivalSource,
    Completion,
    CompletionKind,
    identifier,
)

PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
MTURK_ORIGINS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
ARRIVAL_PATH = "/mturk"
SUBMIT_PATH = "/mturk/externalSubmit"


def submit_origin(turk_submit_to: str, allowed: Iterable[str]) -> str:
    """The origin of ``turkSubmitTo`` if it is on the allow-list, else :class:`ArrivalRefused`."""
    parts = urlsplit(turk_submit_to)
    origin = f"{parts.scheme}://{parts.netloc}".lower()
    if parts.path not in ("", "/") or parts.query or parts.fragment or origin not in {
        a.lower().rstrip("/") for a in allowed
    }:
        raise ArrivalRefused("The link is incomplete or malformed (turkSubmitTo).", status=400)
    return origin


def external_question_url(public_url: str) -> str:
    """The ExternalURL to give MTurk (it appends assignmentId, hitId, workerId, turkSubmitTo)."""
    return public_url.rstrip("/") + ARRIVAL_PATH


class MTurkSource(ArrivalSource):
    name = WorkerSource.mturk

    def __init__(self, submit_origins: Iterable[str] = MTURK_ORIGINS) -> None:
        self.submit_origins = tuple(submit_origins)

    def arrival(self, session: Session, params: Mapping[str, str], path_token: str | None) -> Arrival:
        provider_hit_id = identifier(params, "hitId")
        hit = session.execute(
            select(Hit.id, Hit.campaign_id).where(Hit.provider == self.name, Hit.provider_hit_id == provider_hit_id)
        ).first()
        if hit is None:
            raise ArrivalRefused("This task is not known here.", status=404)
        if params.get("assignmentId") == PREVIEW_ASSIGNMENT_ID:
            return Arrival(source=self.name, campaign_id=hit.campaign_id, worker_external_id=None,
                           hit_id=hit.id, preview=True)
        try:
            assignment_id = identifier(params, "assignmentId")
            worker_id = identifier(params, "workerId")
            origin = submit_origin(params.get("turkSubmitTo", ""), self.submit_origins)
        except ArrivalRefused as refusal:
            raise refusal.about(hit.campaign_id) from None
        return Arrival(
            source=self.name,
            campaign_id=hit.campaign_id,
            worker_external_id=worker_id,
            hit_id=hit.id,
            provider_assignment_id=assignment_id,
            provider_data={"hitId": provider_hit_id, "turkSubmitTo": origin},
        )

    def completion(self, assignment: Assignment, campaign: Campaign, receipt: str) -> Completion:
        origin = submit_origin((assignment.provider_data or {}).get("turkSubmitTo", ""), self.submit_origins)
        return Completion(
            kind=CompletionKind.post,
            url=origin + SUBMIT_PATH,
            fields={
                "assignmentId": assignment.provider_assignment_id or "",
                "ratings": str(assignment.next_position),
                "completion": receipt,
            },
        )
