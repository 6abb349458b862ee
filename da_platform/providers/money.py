"""Exact money: amounts are ``Decimal`` parsed from strings, never floats, and leave as strings.

MTurk's fees (https://requester.mturk.com/pricing): 20 % of the reward and of every bonus, a
further 20 % of the reward for HITs with 10 or more assignments, and 5 % for the Masters
qualification; at least $0.01 per assignment or bonus.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from da_core.enums import StrState

CENT = Decimal("0.01")
MTURK_COMMISSION = Decimal("0.20")
MTURK_LARGE_BATCH_COMMISSION = Decimal("0.20")  # extra, for HITs with >= 10 assignments
MTURK_LARGE_BATCH_ASSIGNMENTS = 10
MTURK_MASTERS_COMMISSION = Decimal("0.05")
MTURK_MINIMUM_FEE = Decimal("0.01")


class Currency(StrState):
    """The currency of a provider's amounts (ISO 4217 code; ``ProlificSettings.currency`` stores the value)."""

    GBP = "GBP"  # Prolific's default
    USD = "USD"  # MTurk's only one; Prolific's other


def parse_amount(value: str | int | Decimal, *, field: str = "amount") -> Decimal:
    """A non-negative amount with at most two decimals; floats are refused (they are not exact)."""
    if isinstance(value, float) or isinstance(value, bool):
        raise ValueError(f"{field}: give money as a string such as '1.50', not {value!r}")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{field}: {value!r} is not an amount such as '1.50'") from None
    if not amount.is_finite() or amount < 0:
        raise ValueError(f"{field}: {value!r} must be a non-negative amount")
    if amount != amount.quantize(CENT):
        raise ValueError(f"{field}: {value!r} has more than two decimals")
    return amount.quantize(CENT)


def amount_string(amount: Decimal) -> str:
    """The exact decimal string a provider expects, e.g. ``Decimal('1.5')`` -> ``'1.50'``."""
    return str(amount.quantize(CENT, rounding=ROUND_HALF_UP))


def to_cents(amount: Decimal) -> int:
    """Minor units (Prolific's rewards are integers in the currency's minor unit)."""
    return int((amount.quantize(CENT) * 100).to_integral_value())


def from_cents(cents: int | float | Decimal) -> Decimal:
    return (Decimal(str(cents)) / 100).quantize(CENT, rounding=ROUND_HALF_UP)


def _fee(base: Decimal, rate: Decimal) -> Decimal:
    if base == 0:
        return Decimal("0.00")
    return max((base * rate).quantize(CENT, rounding=ROUND_HALF_UP), MTURK_MINIMUM_FEE)


def mturk_reward_fee(reward: Decimal, assignments_per_hit: int, *, masters: bool = False) -> Decimal:
    """MTurk's fee on one assignment's reward."""
    rate = MTURK_COMMISSION
    if assignments_per_hit >= MTURK_LARGE_BATCH_ASSIGNMENTS:
        rate += MTURK_LARGE_BATCH_COMMISSION
    if masters:
        rate += MTURK_MASTERS_COMMISSION
    return _fee(reward, rate)


def mturk_bonus_fee(bonus: Decimal) -> Decimal:
    """MTurk's fee on one bonus payment."""
    return _fee(bonus, MTURK_COMMISSION)


@dataclass(frozen=True)
class CostEstimate:
    """What a launch or a review will cost, itemised; every field is exact."""

    assignments: int
    rewards: Decimal
    reward_fees: Decimal
    bonuses: Decimal
    bonus_fees: Decimal
    currency: Currency = Currency.USD

    @property
    def total(self) -> Decimal:
        return self.rewards + self.reward_fees + self.bonuses + self.bonus_fees

    def describe(self) -> str:
        return (
            f"{self.assignments} assignment(s): rewards {amount_string(self.rewards)} + fees "
            f"{amount_string(self.reward_fees)} + bonuses {amount_string(self.bonuses)} + bonus fees "
            f"{amount_string(self.bonus_fees)} = total {amount_string(self.total)} {self.currency}"
        )


def mturk_cost(
    *,
    assignments: int,
    assignments_per_hit: int,
    reward: Decimal,
    bonuses: Sequence[Decimal] = (),
    masters: bool = False,
) -> CostEstimate:
    """Total MTurk cost of ``assignments`` paid assignments (reward + fees) plus the given bonuses."""
    n = assignments
    return CostEstimate(
        assignments=n,
        rewards=reward * n,
        reward_fees=mturk_reward_fee(reward, assignments_per_hit, masters=masters) * n,
        bonuses=sum(bonuses, Decimal("0.00")),
        bonus_fees=sum((mturk_bonus_fee(b) for b in bonuses), Decimal("0.00")),
    )


def rate_cost(
    *, assignments: int, reward: Decimal, bonuses: Sequence[Decimal] = (), fee_rate: Decimal,
    currency: Currency,
) -> CostEstimate:
    """Cost with one proportional fee on rewards and bonuses (Prolific's service fee)."""
    bonus_total = sum(bonuses, Decimal("0.00"))
    rewards = reward * assignments
    return CostEstimate(
        assignments=assignments,
        rewards=rewards,
        reward_fees=(rewards * fee_rate).quantize(CENT, rounding=ROUND_HALF_UP),
        bonuses=bonus_total,
        bonus_fees=(bonus_total * fee_rate).quantize(CENT, rounding=ROUND_HALF_UP),
        currency=currency,
    )
