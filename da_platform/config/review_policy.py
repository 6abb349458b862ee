"""A campaign's review policy: the thresholds of approve / reject / bonus / block, and what the worker reads.

The policy is part of the campaign's settings (``CampaignSettings.stored_review``, written by each review run);
applying it to an assignment is :mod:`da_platform.review.decisions`'s, carrying a decision out
:mod:`da_platform.review.apply`'s. Which ratings count is not the payment policy's: that is the quality-control
policy (``CampaignSettings.stored_qc``, :class:`analysis.qc_policy.QCPolicy`).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from da_core.stored_record import StoredRecord
from da_platform.providers.money import amount_string, parse_amount

DEFAULT_REJECTION = (
    "Your ratings did not pass our quality checks: the answers we had deliberately damaged were scored "
    "as highly as the originals, or the same score was given to almost every answer. We are sorry, but "
    "we cannot accept this work."
)


@dataclass(frozen=True)
class WorkerMessages:
    """What the worker reads: approval feedback, and the rejection message with its category."""

    approval_feedback: str
    rejection_feedback: str
    rejection_category: str
    bonus_reason: str


@dataclass(frozen=True)
class ReviewPolicy(StoredRecord):
    """Thresholds of the review policy (see the module docstring); money is exact. Stored as :meth:`to_dict`
    writes it (``da_core.stored_record``)."""

    what: ClassVar[str] = "review setting"
    reject_enabled: bool = True
    reject_min_pairs: int = 8
    reject_min_p: float = 0.5
    reject_identical_run: int = 50
    block_rejected: bool = True
    bonus: Decimal = Decimal("0.00")
    bonus_requires_pass: bool = True
    approval_feedback: str = "Thank you for your ratings."
    rejection_feedback: str = DEFAULT_REJECTION
    rejection_category: str = "FAILED_CHECK"  # Prolific's category; MTurk ignores it
    bonus_reason: str = "Bonus for careful ratings that passed our quality checks. Thank you!"

    def __post_init__(self) -> None:
        object.__setattr__(self, "bonus", parse_amount(self.bonus, field="bonus"))
        if self.reject_min_pairs < 5:
            raise ValueError("reject_min_pairs: at least 5 (fewer pairs cannot show anything)")
        if not 0 < self.reject_min_p < 1:
            raise ValueError("reject_min_p: between 0 and 1")
        if self.reject_identical_run < 0:
            raise ValueError("reject_identical_run: 0 (off) or more")

    def stored_values(self) -> dict[str, Any]:
        return {"bonus": amount_string(self.bonus)}

    def messages(self) -> WorkerMessages:
        return WorkerMessages(self.approval_feedback, self.rejection_feedback, self.rejection_category,
                              self.bonus_reason)
