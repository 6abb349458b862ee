"""Pairwise significance, wins, clusters and rank ranges (docs/method.md §8).

For each ordered pair (A, B): one-sided Mann-Whitney U test that A's item-level z-scores are
greater than B's, with the normal approximation, continuity correction and tie correction exactly
as R's ``wilcox.test(a, b, alternative="greater", exact=FALSE, correct=TRUE)`` — the test behind
WMT's ``adwilcox`` files.

- ``wins(A)`` = number of B with p(A > B) < alpha and z(A) > z(B): the count used for clusters.
- ``plain_wins(A)`` = number of B with p(A > B) < alpha whatever the z (WMT21 ``clusters.csv``).
- Clusters: sort by z; walking down, keep the running minimum of wins; a boundary after position k
  when that minimum equals the number of systems below k.
- Rank range: losses + 1 … number of systems − wins (losses counted like wins).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special


@dataclass(frozen=True)
class RankSumResult:
    """U statistic of the first sample and the one-sided p-value that it is greater."""

    statistic: float
    pvalue: float


@dataclass(frozen=True)
class _Sample:
    values: np.ndarray  # sorted
    unique: np.ndarray
    counts: np.ndarray
    tie_term: float  # sum of t^3 - t over tie groups

    @classmethod
    def of(cls, values: np.ndarray) -> _Sample:
        ordered = np.sort(np.asarray(values, dtype=np.float64))
        unique, counts = np.unique(ordered, return_counts=True)
        counts = counts.astype(np.float64)
        return cls(ordered, unique, counts, float(np.sum(counts**3 - counts)))


def _pair(a: _Sample, b: _Sample) -> tuple[float, float, float]:
    """(U of a, p(a > b), p(b > a)) by the normal approximation with continuity and tie correction."""
    na, nb = len(a.values), len(b.values)
    if na == 0 or nb == 0:
        return math.nan, math.nan, math.nan
    left = np.searchsorted(b.values, a.unique, side="left")
    tied = np.searchsorted(b.values, a.unique, side="right") - left
    u_a = float(np.dot(a.counts, left + 0.5 * tied))
    ties = a.tie_term + b.tie_term + float(np.sum(3 * a.counts * tied * (a.counts + tied)))
    total = na + nb
    variance = na * nb / 12 * ((total + 1) - ties / (total * (total - 1)))
    if variance <= 0:
        return u_a, math.nan, math.nan
    sigma = math.sqrt(variance)
    centre = na * nb / 2
    p_a = float(special.ndtr(-((u_a - centre - 0.5) / sigma)))
    p_b = float(special.ndtr(-((na * nb - u_a - centre - 0.5) / sigma)))
    return u_a, p_a, p_b


def rank_sum_greater(a: Sequence[float], b: Sequence[float]) -> RankSumResult:
    """One-sided Mann-Whitney test that ``a`` is greater than ``b`` (R's wilcox.test, normal approx)."""
    u, p, _ = _pair(_Sample.of(np.asarray(a)), _Sample.of(np.asarray(b)))
    return RankSumResult(u, p)


def pairwise_pvalues(samples: Sequence[np.ndarray]) -> np.ndarray:
    """Matrix P with P[i, j] = p(sample i > sample j); NaN on the diagonal."""
    prepared = [_Sample.of(s) for s in samples]
    m = len(prepared)
    p = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(i + 1, m):
            _, p[i, j], p[j, i] = _pair(prepared[i], prepared[j])
    return p


@dataclass(frozen=True)
class Ranking:
    """Systems sorted by z (best first) with their pairwise p-values, wins and clusters."""

    systems: tuple[str, ...]
    z: tuple[float, ...]
    pvalues: np.ndarray  # pvalues[i, j] = p(systems[i] > systems[j])
    alpha: float
    wins: tuple[int, ...]
    plain_wins: tuple[int, ...]
    losses: tuple[int, ...]
    rank_ranges: tuple[tuple[int, int], ...]
    clusters: tuple[tuple[str, ...], ...]

    def cluster_index(self) -> dict[str, int]:
        """System → 0-based cluster number."""
        return {s: c for c, members in enumerate(self.clusters) for s in members}

    def pvalue(self, a: str, b: str) -> float:
        """p that system a is better than system b."""
        return float(self.pvalues[self.systems.index(a), self.systems.index(b)])


def rank_systems(item_z: Mapping[str, np.ndarray], system_z: Mapping[str, float], *,
                 alpha: float = 0.05) -> Ranking:
    """Rank systems by z and cluster them from pairwise one-sided rank-sum tests on item z-scores."""
    names = tuple(sorted(system_z, key=lambda s: (-system_z[s], s)))
    z = np.array([system_z[s] for s in names], dtype=np.float64)
    p = pairwise_pvalues([item_z[s] for s in names])
    significant = np.nan_to_num(p, nan=1.0) < alpha
    higher = z[:, None] > z[None, :]
    beats = significant & higher
    wins = beats.sum(axis=1)
    losses = beats.sum(axis=0)
    m = len(names)
    return Ranking(
        systems=names, z=tuple(z.tolist()), pvalues=p, alpha=alpha,
        wins=tuple(int(w) for w in wins), plain_wins=tuple(int(w) for w in significant.sum(axis=1)),
        losses=tuple(int(x) for x in losses),
        rank_ranges=tuple((int(losses[i]) + 1, m - int(wins[i])) for i in range(m)),
        clusters=clusters_from_wins(names, wins.tolist()),
    )


def clusters_from_wins(names: Sequence[str], wins: Sequence[int]) -> tuple[tuple[str, ...], ...]:
    """Cut the z-sorted list after position k when the running minimum of wins = systems below k."""
    clusters, current, running_min = [], [], math.inf
    m = len(names)
    for k, (name, w) in enumerate(zip(names, wins), start=1):
        current.append(name)
        running_min = min(running_min, w)
        if running_min == m - k:
            clusters.append(tuple(current))
            current = []
    if current:
        clusters.append(tuple(current))
    return tuple(clusters)


@dataclass(frozen=True)
class TieBrokenRanking:
    """Adequacy clusters kept, systems inside each cluster ordered by fluency (docs/method.md §8)."""

    systems: tuple[str, ...]
    adequacy_cluster: tuple[int, ...]  # 0-based, best cluster first
    adequacy_z: tuple[float, ...]
    fluency_z: tuple[float, ...]  # NaN where the system had no fluency score


def break_ties_by_fluency(adequacy: Ranking, fluency_z: Mapping[str, float]) -> TieBrokenRanking:
    """Order the systems of each adequacy cluster by their fluency z (the secondary ranking).

    Clusters never move: a system is only reordered among those adequacy cannot separate from it.
    Inside a cluster, systems with a fluency score come first by fluency z, then any without one,
    each group in adequacy order.
    """
    adequacy_z = dict(zip(adequacy.systems, adequacy.z))
    order: list[tuple[str, int]] = []
    for index, members in enumerate(adequacy.clusters):
        def key(system: str) -> tuple[bool, float, float]:
            fluency = fluency_z.get(system, math.nan)
            missing = math.isnan(fluency)
            return missing, 0.0 if missing else -fluency, -adequacy_z[system]

        order.extend((system, index) for system in sorted(members, key=key))
    return TieBrokenRanking(
        systems=tuple(s for s, _ in order),
        adequacy_cluster=tuple(c for _, c in order),
        adequacy_z=tuple(adequacy_z[s] for s, _ in order),
        fluency_z=tuple(float(fluency_z.get(s, math.nan)) for s, _ in order),
    )
