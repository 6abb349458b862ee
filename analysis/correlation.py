"""Correlation between two score lists, and the Williams test for comparing dependent correlations.

Used for self-replication (two runs of a campaign) and for validating automatic metrics against
human system scores (docs/method.md §9).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats


@dataclass(frozen=True)
class CorrelationResult:
    """Pearson r, Spearman rho and Kendall tau (tau-b) with their two-sided p-values."""

    n: int
    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float
    kendall: float
    kendall_p: float


def correlate(x: Sequence[float], y: Sequence[float]) -> CorrelationResult:
    """Correlate two equally long score lists (at least three pairs)."""
    if len(x) != len(y):
        raise ValueError(f"cannot correlate lists of different lengths ({len(x)} and {len(y)})")
    if len(x) < 3:
        raise ValueError(f"need at least 3 pairs to correlate, got {len(x)}")
    pearson = stats.pearsonr(x, y)
    spearman = stats.spearmanr(x, y)
    kendall = stats.kendalltau(x, y)
    return CorrelationResult(
        n=len(x),
        pearson=float(pearson.statistic),
        pearson_p=float(pearson.pvalue),
        spearman=float(spearman.statistic),
        spearman_p=float(spearman.pvalue),
        kendall=float(kendall.statistic),
        kendall_p=float(kendall.pvalue),
    )


@dataclass(frozen=True)
class WilliamsResult:
    """Williams test that r12 > r13 given r23 (one-sided), with df = n - 3."""

    statistic: float
    pvalue: float
    df: int


def williams_test(r12: float, r13: float, r23: float, n: int) -> WilliamsResult:
    """Test whether variable 2 correlates with variable 1 better than variable 3 does.

    r12: metric A vs human, r13: metric B vs human, r23: metric A vs metric B, n: number of systems.
    Formula as in docs/method.md §9 (Williams 1959, as used by Graham & Baldwin 2014).
    """
    if n <= 3:
        raise ValueError(f"the Williams test needs more than 3 systems, got {n}")
    for name, r in (("r12", r12), ("r13", r13), ("r23", r23)):
        if not -1.0 <= r <= 1.0:
            raise ValueError(f"{name} must be a correlation in [-1, 1], got {r}")
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denominator = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    if denominator <= 0:
        raise ValueError("the correlations given are inconsistent (no positive-definite correlation matrix)")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denominator)
    df = n - 3
    return WilliamsResult(statistic=t, pvalue=float(stats.t.sf(t, df)), df=df)
