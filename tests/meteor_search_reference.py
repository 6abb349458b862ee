"""METEOR's alignment search as it was before its crossings were counted with arrays (kept as the oracle).

``analysis.metrics.meteor.align`` must return exactly the alignment this returns, search limits included:
the faster counting may not change a score.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from analysis.metrics import meteor
from analysis.metrics.meteor import _subsets, crossings


def align(hyp: Sequence[str], ref: Sequence[str],
          stages: Sequence[Callable[[str], str]]) -> list[tuple[int, int]]:
    """Banerjee & Lavie's alignment: per stage, the most matches, and among those the fewest crossings.

    Each stage maps the tokens still unmatched to keys (exact form, stem, ...) and pairs equal keys.
    A key with as many free tokens on both sides pairs them in order; one with more on a side
    chooses which of them to pair, and the choice that crosses the fewest mappings (those of this
    stage and of the earlier ones) wins; equal counts keep the leftmost tokens. (A word repeated so
    often that its placements pass ``CHOICE_LIMIT``, or a stage whose search passes ``SEARCH_LIMIT``,
    gets the best of the candidates tried.)
    """
    matches: list[tuple[int, int]] = []
    free_hyp = list(range(len(hyp)))
    free_ref = list(range(len(ref)))
    for key in stages:
        matches += _stage(hyp, ref, key, free_hyp, free_ref, matches)
        used_hyp = {i for i, _ in matches}
        used_ref = {j for _, j in matches}
        free_hyp = [i for i in free_hyp if i not in used_hyp]
        free_ref = [j for j in free_ref if j not in used_ref]
    return matches


def _stage(hyp: Sequence[str], ref: Sequence[str], key: Callable[[str], str], free_hyp: list[int],
           free_ref: list[int], earlier: list[tuple[int, int]]) -> list[tuple[int, int]]:
    by_key: dict[str, tuple[list[int], list[int]]] = {}
    for i in free_hyp:
        by_key.setdefault(key(hyp[i]), ([], []))[0].append(i)
    for j in free_ref:
        if (entry := by_key.get(key(ref[j]))) is not None:
            entry[1].append(j)
    fixed = list(earlier)
    options: list[list[list[tuple[int, int]]]] = []
    for hyps, refs in by_key.values():
        if not refs:
            continue
        if len(hyps) == len(refs):
            fixed += zip(hyps, refs)
        elif len(hyps) < len(refs):
            options.append([list(zip(hyps, chosen)) for chosen in _subsets(refs, hyps, len(ref), len(hyp))])
        else:
            options.append([list(zip(chosen, refs)) for chosen in _subsets(hyps, refs, len(hyp), len(ref))])
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
    base = fixed[len(earlier):]
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
