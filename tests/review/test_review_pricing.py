"""A review run's pricing at a provider's stored settings: MTurk's fees worked out by hand from its published
rates (20 % on rewards and bonuses below 10 assignments per HIT); the own pool is paid outside the platform."""
from __future__ import annotations

from decimal import Decimal

import pytest

from da_platform.providers.mturk import MTURK
from da_platform.providers.mturk.settings import MTurkSettings
from da_platform.providers.pool import POOL
from da_platform.review.provider_run import pricing_at


def test_mturk_pricing_counts_rewards_bonuses_and_their_fees():
    pricing = pricing_at(MTURK, MTurkSettings(reward=Decimal("1.00"), assignments_per_hit=3))
    cost = pricing(2, [Decimal("0.50")])
    # 2 approvals x 1.00 = 2.00 (+ 20 % = 0.40); a bonus of 0.50 (+ 20 % = 0.10): 3.00 in all
    assert cost.total == Decimal("3.00") and cost.currency == "USD"


def test_the_own_pool_has_no_pricing():
    with pytest.raises(ValueError, match="paid outside the platform"):
        pricing_at(POOL, None)(1, [])
