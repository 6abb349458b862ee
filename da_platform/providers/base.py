"""The interface every crowdsourcing provider implements (MTurk, Prolific), and its records.

The rest of the platform (sync, review, CLI) only talks to a ``Provider``; a provider maps its own
statuses onto ``ProviderStatus`` and raises ``ProviderError`` with a readable message.
"""
from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

from da_platform.db.states import WorkerSource
from da_platform.providers.money import Currency


class ProviderError(RuntimeError):
    """A provider refused a request (the message says which and why)."""


class OutcomeUnknown(ProviderError):
    """A request that must not be repeated blindly may or may not have been applied."""


class ProviderStatus(str, enum.Enum):
    """A provider's assignment / submission status, in the platform's words."""

    in_progress = "in_progress"
    submitted = "submitted"  # waiting for our review
    approved = "approved"
    rejected = "rejected"
    abandoned = "abandoned"  # returned, timed out, expired


@dataclass(frozen=True)
class ProviderAssignment:
    """One worker's go at one unit of work, as the provider reports it."""

    assignment_id: str  # MTurk AssignmentId, Prolific submission id
    worker_id: str  # MTurk WorkerId, Prolific participant id
    work_id: str  # MTurk HITId, Prolific study id
    status: ProviderStatus
    raw_status: str
    submitted_at: datetime | None = None
    details: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Provider(Protocol):
    """What sync and review need from a provider. Every method is safe to call again."""

    name: WorkerSource
    live: bool
    currency: Currency
    bonus_retry_safe: bool  # True when a repeated bonus request cannot pay twice (MTurk's token)

    def list_assignments(self, work_id: str) -> Iterator[ProviderAssignment]:
        """Every assignment of a HIT / submission of a study (all pages)."""

    def get_assignment(self, assignment_id: str) -> ProviderAssignment:
        """The provider's current view of one assignment."""

    def approve(self, assignment_id: str, *, feedback: str | None = None) -> str:
        """Approve (pay the reward). Returns 'approved' or 'already approved'."""

    def reject(self, assignment_id: str, *, feedback: str, category: str | None = None) -> str:
        """Reject with feedback. Returns 'rejected' or 'already rejected'."""

    def send_bonus(
        self, *, work_id: str, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> str:
        """Pay a bonus once per token. Returns a short outcome text."""

    def bonuses_paid(self, *, work_id: str, assignment_id: str, worker_id: str) -> list[Decimal]:
        """Amounts already paid as bonuses for this assignment (for reconciliation)."""

    def block(self, worker_id: str, *, reason: str) -> str:
        """Keep the worker out of this campaign's future work. Returns a short outcome text."""
