"""A worker source's arrival: the interface that turns an arrival URL into an :class:`Arrival` and a finished
assignment into a :class:`Completion`, and what passes through it (each provider folder implements it)."""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from da_core.enums import StrState
from da_platform.db.models import Assignment, Campaign
from da_platform.db.states import WorkerSource

# Provider identifiers (MTurk workerId/assignmentId/hitId, Prolific ids, pool ids): plain tokens.
_IDENTIFIER = re.compile(r"[A-Za-z0-9_\-]{1,200}")


class ArrivalRefused(Exception):
    """The worker may not start (bad or expired link, blocked, no HIT left, ...).

    ``status`` is the HTTP status the web layer answers with; the message is shown to the worker
    and must not reveal anything about the campaign's design. ``campaign_id``: the campaign the
    arrival named, when known (the page is then in its language).
    """

    def __init__(self, message: str, status: int = 403, campaign_id: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.campaign_id = campaign_id

    def about(self, campaign_id: int) -> ArrivalRefused:
        """The same refusal, naming the campaign."""
        return ArrivalRefused(self.message, self.status, campaign_id)


def identifier(params: Mapping[str, str], name: str) -> str:
    """The parameter ``name`` as a provider identifier, or :class:`ArrivalRefused` (HTTP 400)."""
    value = params.get(name, "")
    if not _IDENTIFIER.fullmatch(value):
        raise ArrivalRefused(f"The link is incomplete or malformed ({name}).", status=400)
    return value


@dataclass(frozen=True)
class Arrival:
    """A worker arriving: who they are and what they may take.

    ``hit_id`` is set when the provider names the HIT (MTurk); otherwise any free HIT of the
    campaign is handed out. In ``preview`` nothing is written and only the instructions are shown.
    """

    source: WorkerSource
    campaign_id: int
    worker_external_id: str | None
    hit_id: int | None = None
    provider_assignment_id: str | None = None
    provider_data: dict[str, Any] = field(default_factory=dict)
    preview: bool = False


class CompletionKind(StrState):
    """How a worker leaves a complete assignment (:attr:`Completion.kind`; the worker page's template compares
    the value)."""

    page = "page"  # a thank-you page
    post = "post"  # a form POSTed to the completion's url with its fields (MTurk's externalSubmit)
    redirect = "redirect"  # an HTTP redirect to the completion's url (Prolific)


@dataclass(frozen=True)
class Completion:
    """What happens when an assignment is complete (:class:`CompletionKind`).

    ``page``: a thank-you page. ``post``: a form POSTed to ``url`` with ``fields`` (MTurk's
    externalSubmit), auto-submitted by static JavaScript. ``redirect``: an HTTP redirect to ``url``.
    """

    kind: CompletionKind
    url: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    note: str | None = None  # shown on the page, e.g. when a completion code is missing


class ArrivalSource(ABC):
    """How workers of one source arrive. ``name`` is stored as ``Worker.source`` and ``Assignment.source``."""

    name: WorkerSource

    @abstractmethod
    def arrival(self, session: Session, params: Mapping[str, str], path_token: str | None) -> Arrival:
        """Read and check the arrival parameters (read-only); raise :class:`ArrivalRefused`."""

    @abstractmethod
    def completion(self, assignment: Assignment, campaign: Campaign, receipt: str) -> Completion:
        """What to do once ``assignment`` is complete; ``receipt`` is a signed completion token."""
