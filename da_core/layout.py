"""The shape every HIT layout keeps: 10 sets of 10 slots (docs/method.md §2)."""
from __future__ import annotations

SETS_PER_HIT = 10
SLOTS_PER_SET = 10
