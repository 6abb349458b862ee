"""Reliability (docs/method.md §9): self-replication of a campaign and comparing metrics with the Williams test.

Confidence intervals of the replication correlations use Fisher's z-transformation with the
standard error that suits each coefficient: Pearson 1/√(n−3); Spearman √((1 + ρ²/2)/(n−3))
(Bonett & Wright 2000); Kendall √(0.437/(n−4)) (Fieller, Hartley & Pearson 1957). They need
n > 3 (n > 4 for Kendall); below that, and for a coefficient of ±1, the interval is not defined (NaN).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from analysis.correlation import CorrelationResult, correlate, williams_test  # noqa: F401 (re-exported)
from analysis.scores import SystemScore


@dataclass(frozen=True)
class ReplicationResult:
    """Correlation of two runs' system z-scores over the systems both rated."""

    systems: tuple[str, ...]
    run_a: tuple[float, ...]
    run_b: tuple[float, ...]
    correlation: CorrelationResult


def system_z(scores: Mapping[str, float] | Iterable[SystemScore]) -> dict[str, float]:
    """System → z from a mapping or from ``SystemScore`` records."""
    if isinstance(scores, Mapping):
        return {str(k): float(v) for k, v in scores.items()}
    return {s.system: s.z for s in scores}


def self_replication(run_a: Mapping[str, float] | Iterable[SystemScore],
                     run_b: Mapping[str, float] | Iterable[SystemScore]) -> ReplicationResult:
    """Pearson r, Spearman ρ and Kendall τ between two runs (needs 3 common systems)."""
    a, b = system_z(run_a), system_z(run_b)
    common = tuple(sorted(set(a) & set(b)))
    if len(common) < 3:
        raise ValueError(f"the two runs share {len(common)} system(s); self-replication needs at least 3")
    xs, ys = tuple(a[s] for s in common), tuple(b[s] for s in common)
    return ReplicationResult(common, xs, ys, correlate(xs, ys))


@dataclass(frozen=True)
class Interval:
    """A correlation coefficient with its two-sided confidence interval."""

    name: str
    estimate: float
    low: float
    high: float
    pvalue: float
    method: str


def replication_intervals(result: ReplicationResult, confidence: float = 0.95) -> tuple[Interval, ...]:
    """Pearson r, Spearman ρ and Kendall τ of a replication with Fisher-z confidence intervals."""
    from scipy import stats

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    crit = float(stats.norm.isf((1 - confidence) / 2))
    c, n = result.correlation, result.correlation.n

    def interval(name: str, r: float, p: float, se: float | None, method: str) -> Interval:
        if se is None or not math.isfinite(r) or abs(r) >= 1:
            return Interval(name, r, math.nan, math.nan, p, method + " (not defined here)")
        centre = math.atanh(r)
        return Interval(name, r, math.tanh(centre - crit * se), math.tanh(centre + crit * se), p, method)

    return (
        interval("pearson", c.pearson, c.pearson_p, 1 / math.sqrt(n - 3) if n > 3 else None,
                 "Fisher z, se 1/sqrt(n-3)"),
        interval("spearman", c.spearman, c.spearman_p,
                 math.sqrt((1 + c.spearman**2 / 2) / (n - 3)) if n > 3 else None,
                 "Fisher z, se sqrt((1+rho^2/2)/(n-3)) (Bonett & Wright 2000)"),
        interval("kendall", c.kendall, c.kendall_p, math.sqrt(0.437 / (n - 4)) if n > 4 else None,
                 "Fisher z, se sqrt(0.437/(n-4)) (Fieller et al. 1957)"),
    )
