"""Length of the longest common subsequence of two token lists, bit-parallel.

Hyyrö's formulation of the Allison–Dix algorithm: one big-integer word holds a row of the DP table,
so the cost is O(len(a) · len(b) / word size) big-integer operations instead of a Python double loop.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[Hashable, int] = {}
    for position, token in enumerate(b):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << len(b)) - 1
    row = full
    for token in a:
        match = masks.get(token)
        if match is None:
            continue
        u = row & match
        row = ((row + u) | (row - u)) & full
    return len(b) - row.bit_count()
