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
overlaps less): that is the job of the ``beyond_automatic`` signal (``analysis.behaviour``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_DIRECTIONAL_PAIRS = 5
"""Non-zero directional pairs needed (with fewer, as for the published test, nothing can be shown)."""


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
