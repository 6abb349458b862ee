"""One per-worker test that pools every check family of a HIT, for quality control at one HIT per worker.

The published test uses only the ten ``BAD_REF`` pairs of a HIT, and when an original is already a poor
answer its degraded copy cannot score much lower: at one HIT a careful person often cannot reach p < 0.05
(docs/quality-control.md, "The pooled check test"). This test uses every pair a HIT holds:

- **directional pairs**, where a person's score must move one way: original − ``BAD_REF`` copy,
  original − ``MEANING`` copy, and ``REF`` − original (the reference shown as the candidate is at least as
  good as the answer it stands beside);
- **repeat consistency**: a ``REPEAT`` is scored close to its original, closer than to the worker's other
  ordinary ratings.

The null hypothesis is a rater whose score does not depend on what is shown (random clicks, one constant
score, "always 90-100", any mixture): then the two slots of a pair are exchangeable. Under it

- each directional difference is as likely positive as negative: a one-sided Wilcoxon signed-rank test on
  the pooled non-zero differences (``analysis.quality.signed_rank_test``, the published test's: exact with
  mid-ranks, zeros dropped) gives ``directional_p``;
- the original of a repeat is like any other ordinary rating of the worker: for repeat k with score
  ``b_k`` and original ``a_k``, ``v_k`` = 2·#{s : |s − b_k| < |a_k − b_k|} + #{s : |s − b_k| = |a_k − b_k|}
  over the worker's ordinary scores s; its null distribution puts ``a_k`` at each s with equal
  probability, and ``repeat_p`` = P(Σ v ≤ observed), exact by convolution of the per-repeat distributions;
- the two p-values are combined by Fisher's method: −2 (ln directional_p + ln repeat_p) against χ² with 4
  degrees of freedom (without repeats, ``directional_p`` alone).

The worker passes when the pooled p < alpha. ``benchmarks/crowd_rates.py`` shows by simulation that raters of
the null pass at most alpha of the time. A rater who scores by text overlap passes this test (a damaged copy
overlaps less): that is the job of the ``beyond_automatic`` signal (``analysis.behaviour_signals``).

**The weighted test** (``weighted_test``; ``QCMethod.weighted``) has the same pairs and the same null, but weighs
each pair by what real people do (``analysis.people_checks``) instead of by its rank, and puts every family in
one statistic: T = Σ sign(d) · w(|d|, level) over the non-zero directional differences + Σ r(|a_k − b_k|) over
the repeats, in nats (log-likelihood ratios of "a person as the fitted ones" against the null). Under the null
each directional difference is as likely −d as +d (its level, the larger score of the pair, does not change
with the order) and each repeat's original is any of the worker's ordinary scores, so the exact null
distribution of T is the convolution of these independent parts: each weight is rounded to a whole number of
steps of ``WEIGHT_STEP`` nats (a coarser step when the support would pass ``MAX_SUPPORT``), and the p-value
P(T ≥ observed) is exact for the rounded statistic. The weights only decide the test's power, never its size.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.people_checks import PeopleWeights, levels, people_weights

MIN_DIRECTIONAL_PAIRS = 5
"""Non-zero directional pairs needed (with fewer, as for the published test, nothing can be shown)."""
MIN_WEIGHTED_PAIRS = 1
"""Non-zero directional pairs the weighted test needs: its p-value is exact for any number (the published test's
five are what its smallest p needs)."""
WEIGHT_STEP = 0.05
"""Nats per step of the weighted test's exact distribution (its weights are rounded to whole steps)."""
MAX_SUPPORT = 20_000
"""At most this many steps in the weighted test's distribution (a worker with many HITs gets a coarser step)."""


@dataclass(frozen=True)
class PooledResult:
    """The pooled test of one worker."""

    pvalue: float
    statistic: float  # Fisher's chi-square (or W+ of the directional test when there are no repeats)
    directional_p: float
    directional_w: float
    repeat_p: float  # NaN without repeat pairs
    n_directional: int  # non-zero directional differences
    n_repeat: int

    @property
    def method(self) -> str:
        if self.n_repeat:
            return ("Fisher's combination of a signed-rank test on the directional pairs and an exact "
                    "repeat-consistency test")
        return "signed-rank test on the directional pairs"


def directional_differences(bad_ref: tuple[np.ndarray, np.ndarray], meaning: tuple[np.ndarray, np.ndarray],
                            ref: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The differences a person makes positive, from (original scores, check scores) of each family:
    original − BAD_REF, original − MEANING, REF − original."""
    return np.concatenate([np.asarray(bad_ref[0]) - np.asarray(bad_ref[1]),
                           np.asarray(meaning[0]) - np.asarray(meaning[1]),
                           np.asarray(ref[1]) - np.asarray(ref[0])]).astype(np.float64)


def repeat_consistency(originals: np.ndarray, repeats: np.ndarray, ordinary: np.ndarray) -> float:
    """Exact one-sided p-value that the repeats are closer to their originals than chance (module docstring);
    NaN without repeats or ordinary scores."""
    a, b, pool = (np.asarray(v, dtype=np.float64) for v in (originals, repeats, ordinary))
    if len(a) == 0 or len(pool) == 0:
        return math.nan
    observed = 0
    total = np.ones(1)
    for a_k, b_k in zip(a.tolist(), b.tolist()):
        distance = np.abs(pool - b_k)
        observed += _value(distance, abs(a_k - b_k))
        values = np.array([_value(distance, d) for d in distance.tolist()])
        pmf = np.bincount(values, minlength=2 * len(pool) + 1) / len(pool)
        total = np.convolve(total, pmf)
    return float(min(1.0, total[:observed + 1].sum()))


def _value(distances: np.ndarray, d: float) -> int:
    """2 · #{distances < d} + #{distances == d}: twice the mid-rank position of d among the distances."""
    return int(2 * np.count_nonzero(distances < d) + np.count_nonzero(distances == d))


def pooled_test(directional_p: float, directional_w: float, n_directional: int, originals: np.ndarray,
                repeats: np.ndarray, ordinary: np.ndarray) -> PooledResult:
    """The pooled test (module docstring) from the signed-rank test of the ``n_directional`` non-zero
    directional differences (its p-value and W+) and the worker's repeat pairs and ordinary scores."""
    repeat_p = repeat_consistency(originals, repeats, ordinary)
    if math.isnan(repeat_p):
        return PooledResult(directional_p, directional_w, directional_p, directional_w, math.nan, n_directional, 0)
    statistic = -2.0 * (math.log(max(directional_p, 1e-300)) + math.log(max(repeat_p, 1e-300)))
    return PooledResult(float(stats.chi2.sf(statistic, 4)), statistic, directional_p, directional_w,
                        repeat_p, n_directional, len(np.asarray(repeats)))


@dataclass(frozen=True)
class WeightedResult:
    """The weighted test of one worker (module docstring); statistics in nats."""

    pvalue: float
    statistic: float  # T (weights rounded to whole steps of ``step``), its repeat part centred: 0 on average
    directional: float  # the directional part of T       under the null, > 0 where the pairs look like a person's
    repeat: float  # the repeat part of T, minus its mean under the null (0 without repeats)
    n_directional: int  # non-zero directional differences
    n_repeat: int
    step: float

    @property
    def method(self) -> str:
        return ("exact distribution of the people-weighted sum over the directional and repeat pairs "
                f"(step {self.step:.3g} nats)")


def weighted_test(damaged: tuple[np.ndarray, np.ndarray], reference: tuple[np.ndarray, np.ndarray],
                  repeat: tuple[np.ndarray, np.ndarray], ordinary: np.ndarray,
                  weights: PeopleWeights | None = None) -> WeightedResult:
    """The weighted test (module docstring) of one worker's pairs: ``damaged`` (originals, BAD_REF and MEANING
    copies), ``reference`` (originals, REF scores), ``repeat`` (originals, repeats) and ordinary scores;
    ``weights``: the platform's (``people_weights()``) unless given. NaN p without a non-zero directional pair."""
    w = weights if weights is not None else people_weights()
    sign_weights: list[float] = []
    for table, (first, second) in ((w.damaged, damaged), (w.reference, (reference[1], reference[0]))):
        a, b = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
        d = a - b
        nonzero = d != 0
        sign_weights += (np.sign(d[nonzero]) * table[levels(np.maximum(a, b))[nonzero], np.abs(d[nonzero])]).tolist()
    signed = np.array(sign_weights, dtype=np.float64)
    pool = np.asarray(ordinary, dtype=np.int64)
    originals, repeats = (np.asarray(v, dtype=np.int64) for v in repeat)
    if len(pool) == 0:
        originals = repeats = np.zeros(0, dtype=np.int64)
    repeat_values = [w.repeat[np.abs(pool - b)] for b in repeats.tolist()]  # under the null, per repeat
    observed_repeat = w.repeat[np.abs(originals - repeats)]
    if len(signed) == 0:
        return WeightedResult(math.nan, math.nan, math.nan, math.nan, 0, len(repeats), WEIGHT_STEP)
    spread = float(np.abs(signed).sum()) + sum(float(v.max() - v.min()) for v in repeat_values)
    step = max(WEIGHT_STEP, spread / MAX_SUPPORT)
    steps = np.rint(np.abs(signed) / step).astype(np.int64)
    observed_dir = int(np.sum(np.where(signed > 0, steps, -steps)))
    # Directional part: sum of +-s_i, each sign equally likely = 2 * (sum of a random subset of the s_i) - sum s_i.
    subset = np.zeros(int(steps.sum()) + 1)
    subset[0] = 1.0
    top = 0
    for s in steps.tolist():  # (numpy adds overlapping slices as if from a copy: one vector operation each)
        subset[s: s + top + 1] += subset[: top + 1]
        subset *= 0.5
        top += s
    # Repeat part: each repeat's original is any of the ordinary scores, each equally likely.
    low, pmf, observed_rep, null_mean = 0, np.ones(1), 0, 0.0
    for values, seen in zip(repeat_values, observed_repeat.tolist()):
        units = np.rint(values / step).astype(np.int64)
        base = int(units.min())
        pmf = np.convolve(pmf, np.bincount(units - base) / len(units))
        low += base
        observed_rep += int(round(seen / step))
        null_mean += float(units.mean())
    # P(2 * subset_sum - total + repeat >= observed)  <=>  P(subset_sum >= (observed - repeat + total) / 2).
    total = int(steps.sum())
    need = observed_dir + observed_rep - low  # in repeat-offset units
    tail = np.cumsum(subset[::-1])[::-1]  # tail[k] = P(subset_sum >= k)
    r = np.arange(len(pmf))
    threshold = np.ceil((need - r + total) / 2).astype(np.int64)
    p = float(np.sum(pmf * np.where(threshold <= 0, 1.0, tail[np.clip(threshold, 0, len(tail) - 1)]
                                    * (threshold < len(tail)))))
    repeat_evidence = step * (observed_rep - null_mean)  # centred: 0 on average under the null, as the other part
    return WeightedResult(min(1.0, p), step * observed_dir + repeat_evidence, step * observed_dir, repeat_evidence,
                          len(steps), len(repeats), step)
