"""MTurk settings of a campaign (stored with its settings, ``CampaignSettings.stored_mturk``) and what they become
in the API: the HIT type parameters, the qualification requirements, the ExternalQuestion XML.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar
from xml.sax.saxutils import escape

from da_core.stored_record import StoredRecord
from da_platform.providers.money import amount_string, parse_amount
from da_platform.providers.public_url import require_public_https

#: MTurk's AssignmentDurationInSeconds when the researcher sets none; also the platform's time limit per HIT.
MTURK_DEFAULT_ASSIGNMENT_SECONDS = 3 * 3600

# System qualification types (same ids in the sandbox and live), see the MTurk API reference.
APPROVAL_RATE_QUALIFICATION = "000000000000000000L0"
NUMBER_APPROVED_QUALIFICATION = "00000000000000000040"
LOCALE_QUALIFICATION = "00000000000000000071"
MASTERS_QUALIFICATION = {"live": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", "sandbox": "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"}

EXTERNAL_QUESTION_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
)

_LIMITS = {  # seconds, from the MTurk API reference
    "assignment_duration": (30, 31_536_000),
    "lifetime": (30, 31_536_000),
    "auto_approval_delay": (0, 2_592_000),
}


@dataclass(frozen=True)
class MTurkSettings(StoredRecord):
    """Everything a campaign's HITs are created with. Money is exact (``Decimal``). Stored as :meth:`to_dict`
    writes it (``da_core.stored_record``)."""

    what: ClassVar[str] = "MTurk setting"
    title: str = "Rate answers to questions (100 short judgements)"
    description: str = "Read a question and an answer, and rate how well the answer answers it."
    keywords: str = "rating, evaluation, question answering, text"
    reward: Decimal = Decimal("2.00")
    assignments_per_hit: int = 1
    assignment_duration: int = MTURK_DEFAULT_ASSIGNMENT_SECONDS  # also the platform's time limit per HIT
    lifetime: int = 7 * 24 * 3600
    auto_approval_delay: int = 3 * 24 * 3600
    frame_height: int = 0  # 0: MTurk uses the whole window
    locales: tuple[str, ...] = ()  # e.g. ("US", "GB", "US-NY")
    min_approval_rate: int | None = 95
    min_approved: int | None = 1000
    masters: bool = False
    exclusion_qualification_id: str | None = None  # created at launch, DoesNotExist on the HIT type

    def __post_init__(self) -> None:
        object.__setattr__(self, "reward", parse_amount(self.reward, field="reward"))
        object.__setattr__(self, "locales", tuple(locale.upper() for locale in self.locales))
        if self.reward < Decimal("0.01"):
            raise ValueError("reward: MTurk needs at least 0.01 USD per assignment")
        if not 1 <= len(self.title) <= 128:
            raise ValueError("title: 1 to 128 characters")
        if not 1 <= len(self.description) <= 2000:
            raise ValueError("description: 1 to 2000 characters")
        if self.assignments_per_hit < 1:
            raise ValueError("assignments_per_hit: at least 1")
        for name, (low, high) in _LIMITS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name}: {value} seconds is outside MTurk's range {low}..{high}")
        for rate_field in ("min_approval_rate",):
            value = getattr(self, rate_field)
            if value is not None and not 0 <= value <= 100:
                raise ValueError(f"{rate_field}: a percentage 0..100")
        for locale in self.locales:
            country, _, subdivision = locale.partition("-")
            if len(country) != 2 or not country.isalpha() or (subdivision and len(subdivision) != 2):
                raise ValueError(f"locales: {locale!r} is not a country code such as 'US' or 'US-NY'")

    def stored_values(self) -> dict[str, Any]:
        return {"reward": amount_string(self.reward), "locales": list(self.locales)}

    def qualification_requirements(self, *, live: bool) -> list[dict[str, Any]]:
        """The HIT type's requirements: locale, approval rate, approvals, Masters, exclusion."""
        requirements: list[dict[str, Any]] = []
        if self.locales:
            values = []
            for locale in self.locales:
                country, _, subdivision = locale.partition("-")
                values.append({"Country": country, **({"Subdivision": subdivision} if subdivision else {})})
            requirements.append(
                {"QualificationTypeId": LOCALE_QUALIFICATION, "Comparator": "In", "LocaleValues": values,
                 "ActionsGuarded": "DiscoverPreviewAndAccept"}
            )
        if self.min_approval_rate is not None:
            requirements.append(
                {"QualificationTypeId": APPROVAL_RATE_QUALIFICATION, "Comparator": "GreaterThanOrEqualTo",
                 "IntegerValues": [self.min_approval_rate], "ActionsGuarded": "DiscoverPreviewAndAccept"}
            )
        if self.min_approved is not None:
            requirements.append(
                {"QualificationTypeId": NUMBER_APPROVED_QUALIFICATION, "Comparator": "GreaterThanOrEqualTo",
                 "IntegerValues": [self.min_approved], "ActionsGuarded": "DiscoverPreviewAndAccept"}
            )
        if self.masters:
            requirements.append(
                {"QualificationTypeId": MASTERS_QUALIFICATION["live" if live else "sandbox"],
                 "Comparator": "Exists", "ActionsGuarded": "DiscoverPreviewAndAccept"}
            )
        if self.exclusion_qualification_id:
            requirements.append(
                {"QualificationTypeId": self.exclusion_qualification_id, "Comparator": "DoesNotExist",
                 "ActionsGuarded": "DiscoverPreviewAndAccept"}
            )
        return requirements

    def hit_type_parameters(self, *, live: bool) -> dict[str, Any]:
        """Parameters of CreateHITType (the reward as an exact decimal string)."""
        return {
            "AutoApprovalDelayInSeconds": self.auto_approval_delay,
            "AssignmentDurationInSeconds": self.assignment_duration,
            "Reward": amount_string(self.reward),
            "Title": self.title,
            "Keywords": self.keywords,
            "Description": self.description,
            "QualificationRequirements": self.qualification_requirements(live=live),
        }


def external_question(url: str, frame_height: int = 0) -> str:
    """The ExternalQuestion XML for ``url`` (must be public HTTPS; escaped for XML)."""
    require_public_https(url, what="ExternalQuestion URL")
    return (
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_NS}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{int(frame_height)}</FrameHeight>"
        "</ExternalQuestion>"
    )
