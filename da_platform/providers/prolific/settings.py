"""A campaign's Prolific study settings (stored with its settings, ``CampaignSettings.stored_prolific``)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from da_core.stored_record import StoredRecord
from da_platform.providers.money import Currency, amount_string, parse_amount, to_cents

#: The study's maximum allowed time when the researcher sets none; also the platform's time limit per HIT.
PROLIFIC_DEFAULT_MAXIMUM_MINUTES = 90


@dataclass(frozen=True)
class ProlificSettings(StoredRecord):
    """A campaign's Prolific study settings (stored with its settings, ``CampaignSettings.stored_prolific``, as
    :meth:`to_dict` writes them: ``da_core.stored_record``)."""

    what: ClassVar[str] = "Prolific setting"
    title: str = "Rate answers to questions (100 short judgements)"
    description: str = "Read a question and an answer, and rate how well the answer answers it."
    reward: Decimal = Decimal("3.00")  # per participant, in ``currency``
    currency: Currency = Currency.GBP  # stored as its code
    places_per_hit: int = 1
    estimated_minutes: int = 20
    maximum_minutes: int = PROLIFIC_DEFAULT_MAXIMUM_MINUTES  # also the platform's time limit per HIT
    device_compatibility: tuple[str, ...] = ("desktop",)
    fee_rate: Decimal = Decimal("0.3333")  # Prolific's service fee on rewards and bonuses (check your plan)
    study_id: str | None = None  # set at launch

    def __post_init__(self) -> None:
        object.__setattr__(self, "reward", parse_amount(self.reward, field="reward"))
        object.__setattr__(self, "fee_rate", Decimal(str(self.fee_rate)))
        if self.currency not in tuple(Currency):
            raise ValueError(f"currency: {self.currency!r} is not one of {', '.join(Currency)}")
        object.__setattr__(self, "currency", Currency(self.currency))
        object.__setattr__(self, "device_compatibility", tuple(self.device_compatibility))
        if self.reward <= 0:
            raise ValueError("reward: must be positive")
        if self.places_per_hit < 1 or self.estimated_minutes < 1 or self.maximum_minutes < self.estimated_minutes:
            raise ValueError("places_per_hit >= 1 and 1 <= estimated_minutes <= maximum_minutes")

    def stored_values(self) -> dict[str, Any]:
        return {"reward": amount_string(self.reward), "currency": self.currency.value, "fee_rate": str(self.fee_rate),
                "device_compatibility": list(self.device_compatibility)}

    def study_body(self, *, entry_url: str, completion_code: str, places: int, internal_name: str) -> dict[str, Any]:
        """The body of POST /api/v1/studies/ (a draft; publishing is a separate transition).

        ``entry_url`` is the platform's study link with Prolific's placeholders
        (``da_platform.providers.prolific.arrival.study_url``)."""
        return {
            "name": self.title, "internal_name": internal_name, "description": self.description,
            "external_study_url": entry_url, "prolific_id_option": "url_parameters",
            "completion_codes": [{"code": completion_code, "code_type": "COMPLETED",
                                  "actions": [{"action": "MANUALLY_REVIEW"}]}],
            "total_available_places": places, "estimated_completion_time": self.estimated_minutes,
            "maximum_allowed_time": self.maximum_minutes, "reward": to_cents(self.reward),
            "device_compatibility": list(self.device_compatibility),
        }
