"""METEOR's alignment search as it was before its crossings were counted with arrays (kept as the oracle).

``analysis.metrics.meteor.align`` must return exactly the alignment this returns, search limits included:
the faster counting may not change a score.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from analysis.metrics import meteor
from analysis.metrics.meteor import _pairings, crossings


def align(hyp: Sequence[str], ref: Sequence[str],
          stages: Sequence[Callable[[str], str]]) -> list[tuple[int, int]]:
    """Stage after stage, the tokens not yet matched, in order (``meteor.align``'s loop)."""
    matches: list[tuple[int, int]] = []
    for key in stages:
        used_hyp, used_ref = {i for i, _ in matches}, {j for _, j in matches}
        matches += _stage(hyp, ref, key, [i for i in range(len(hyp)) if i not in used_hyp],
                          [j for j in range(len(ref)) if j not in used_ref], matches)
    return matches


def _stage(hyp: Sequence[str], ref: Sequence[str], key: Callable[[str], str], free_hyp: list[int],
           free_ref: list[int], earlier: list[tuple[int, int]]) -> list[tuple[int, int]]:
    base, choices = _pairings(hyp, ref, key, free_hyp, free_ref)
    fixed = earlier + base
    options = [options for _, _, options in choices]
    # Branch and bound: each key's choices in order of their crossings with the fixed mappings (the
    # first complete alignment reached is already good), bounded below by those crossings.
    scored = []
    for choices in options:
        costs = [crossings(option, fixed) for option in choices]
        order = sorted(range(len(choices)), key=costs.__getitem__)
        scored.append([(costs[k], choices[k]) for k in order])
    scored.sort(key=len)
    floor = [0] * (len(scored) + 1)
    for depth in range(len(scored) - 1, -1, -1):
        floor[depth] = floor[depth + 1] + scored[depth][0][0]
    best: list[list[tuple[int, int]]] = []
    best_cost = [math.inf]
    visited = [0]

    def search(depth: int, placed: list[tuple[int, int]], cost: int, chosen: list[list[tuple[int, int]]]) -> None:
        if cost + floor[depth] >= best_cost[0]:
            return
        if depth == len(scored):
            best_cost[0] = cost
            best[:] = chosen
            return
        for fixed_cost, option in scored[depth]:
            visited[0] += 1
            if visited[0] > meteor.SEARCH_LIMIT and best_cost[0] < math.inf:
                return
            search(depth + 1, placed + option, cost + fixed_cost + crossings(option, placed[len(fixed):]),
                   chosen + [option])

    search(0, fixed, crossings(base, earlier) + _internal_crossings(base), [])
    return base + [pair for option in best for pair in option]


def _internal_crossings(pairs: Sequence[tuple[int, int]]) -> int:
    return sum(1 for a, (i, j) in enumerate(pairs) for k, m in pairs[a + 1:] if (i - k) * (j - m) < 0)
