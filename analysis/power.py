"""Planning and power for rank-sum comparisons of systems (docs/method.md §10).

- ``sample_size_normal``: items per system to detect a difference of ``effect_size`` standard
  deviations with the rank-sum test. The two-sample t-test's sample size (non-central t, as R's
  ``power.t.test``) divided by the Mann-Whitney test's asymptotic relative efficiency 3/π; the
  pure normal-approximation figure is reported alongside (d = 0.2, α = .05 two-sided, power .8:
  393.4 / (3/π) → 412; 392.4 / (3/π) → 411).
- ``sample_size_by_simulation``: the same question answered by resampling pilot (or assumed)
  item-level z-scores and running the test itself.
- ``separation_progress``: during a campaign, which adjacent systems are separated already and
  roughly how many more ratings the others need.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from analysis.ranking import Ranking, _pair, _Sample
from analysis.scores import GroupScores

ARE_RANK_SUM = 3 / math.pi
ALTERNATIVES = ("two-sided", "one-sided")


@dataclass(frozen=True)
class SampleSize:
    """Items per system for the rank-sum test, with the figures it was derived from."""

    n_per_system: int  # ceil(n_t_test / ARE)
    n_t_test: float  # two-sample t-test, non-central t
    n_normal: int  # ceil(normal-approximation n / ARE)
    effect_size: float
    alpha: float
    power: float
    alternative: str
    are: float = ARE_RANK_SUM


def _critical(alpha: float, alternative: str) -> float:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}, got {alternative!r}")
    return alpha / 2 if alternative == "two-sided" else alpha


def t_test_power(n: float, effect_size: float, alpha: float = 0.05, alternative: str = "two-sided") -> float:
    """Power of the two-sample t-test with n per group (R power.t.test, strict = FALSE)."""
    df = 2 * (n - 1)
    q = stats.t.isf(_critical(alpha, alternative), df)
    return float(stats.nct.sf(q, df, math.sqrt(n / 2) * effect_size))


def sample_size_normal(effect_size: float, *, alpha: float = 0.05, power: float = 0.8,
                       alternative: str = "two-sided") -> SampleSize:
    """Items per system to detect ``effect_size`` (difference / sd) with the rank-sum test."""
    if not effect_size > 0:
        raise ValueError(f"effect size must be positive, got {effect_size}")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must lie strictly between 0 and 1")
    z = stats.norm.isf(_critical(alpha, alternative)) + stats.norm.ppf(power)
    n_normal = 2 * (z / effect_size) ** 2
    smallest = 2.0  # the two-sample t-test needs two items per system
    if t_test_power(smallest, effect_size, alpha, alternative) >= power:
        n_t = smallest  # a huge effect: the smallest possible experiment already has the power
    else:
        n_t = optimize.brentq(lambda n: t_test_power(n, effect_size, alpha, alternative) - power,
                              smallest, max(10.0, 10 * n_normal))
    return SampleSize(math.ceil(n_t / ARE_RANK_SUM - 1e-9), float(n_t), math.ceil(n_normal / ARE_RANK_SUM - 1e-9),
                      effect_size, alpha, power, alternative)


@dataclass(frozen=True)
class SimulatedSampleSize:
    """Smallest n per system whose simulated power reaches the target (None if not by ``n_max``)."""

    n_per_system: int | None
    power_at_n: float
    curve: tuple[tuple[int, float], ...]  # (n, simulated power) evaluated during the search
    repetitions: int


def simulated_power(a: Sequence[float], b: Sequence[float], n: int, *, alpha: float = 0.05,
                    repetitions: int = 500, seed: int = 0) -> float:
    """Share of resampled experiments (n items each, drawn with replacement) where p(a > b) < alpha."""
    rng = np.random.default_rng(seed)
    values_a, values_b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    hits = 0
    for _ in range(repetitions):
        _, p, _ = _pair(_Sample.of(rng.choice(values_a, n)), _Sample.of(rng.choice(values_b, n)))
        hits += p < alpha
    return hits / repetitions


def sample_size_by_simulation(a: Sequence[float], b: Sequence[float], *, alpha: float = 0.05,
                              power: float = 0.8, repetitions: int = 500, n_max: int = 20000,
                              seed: int = 0) -> SimulatedSampleSize:
    """Items per system so that the one-sided rank-sum test finds a > b with the given power.

    Resamples the pilot item z-scores of the better (``a``) and worse (``b``) system; bisection
    over n with the same random stream for every n.
    """
    if len(a) == 0 or len(b) == 0:
        raise ValueError("both pilot samples need at least one item score")
    curve: list[tuple[int, float]] = []

    def reached(n: int) -> float:
        value = simulated_power(a, b, n, alpha=alpha, repetitions=repetitions, seed=seed)
        curve.append((n, value))
        return value

    low, high = 1, 2
    while reached(high) < power:
        low, high = high, high * 2
        if high > n_max:
            return SimulatedSampleSize(None, curve[-1][1], tuple(sorted(curve)), repetitions)
    while high - low > max(1, high // 50):
        middle = (low + high) // 2
        if reached(middle) >= power:
            high = middle
        else:
            low = middle
    found = dict(curve)
    return SimulatedSampleSize(high, found[high], tuple(sorted(curve)), repetitions)


@dataclass(frozen=True)
class PairProgress:
    """Two systems adjacent in the z ranking and how far they are from being separated."""

    better: str
    worse: str
    pvalue: float
    separated: bool
    effect_size: float  # (z difference of item means) / pooled sd of item z
    items_needed: int | None  # per system, one-sided test; None when the effect is 0 or reversed
    more_items: int | None  # per system, beyond the fewer of the two now
    more_ratings: int | None  # both systems together, at the current ratings per item


def separation_progress(ranking: Ranking, scores: GroupScores, *, power: float = 0.8) -> tuple[PairProgress, ...]:
    """For each adjacent pair in z order: separated already, or roughly how many more ratings."""
    by_system = scores.by_system()
    progress = []
    for better, worse in zip(ranking.systems, ranking.systems[1:]):
        p = ranking.pvalue(better, worse)
        separated = bool(p < ranking.alpha)
        a, b = scores.items.z_of(better), scores.items.z_of(worse)
        pooled = math.sqrt((np.var(a, ddof=1) * (len(a) - 1) + np.var(b, ddof=1) * (len(b) - 1))
                           / (len(a) + len(b) - 2)) if len(a) > 1 and len(b) > 1 else math.nan
        effect = float((a.mean() - b.mean()) / pooled) if pooled and pooled > 0 else math.nan
        needed = more = ratings = None
        if effect > 0:
            needed = sample_size_normal(effect, alpha=ranking.alpha, power=power, alternative="one-sided").n_per_system
            have = min(len(a), len(b))
            more = 0 if separated else max(0, needed - have)
            per_item = (by_system[better].n_ratings + by_system[worse].n_ratings) / (
                by_system[better].n_items + by_system[worse].n_items)
            ratings = math.ceil(2 * more * per_item)
        progress.append(PairProgress(better, worse, p, separated, effect, needed, more, ratings))
    return tuple(progress)
