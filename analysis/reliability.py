"""Reliability (SPEC §9): self-replication of a campaign and comparing metrics with the Williams test."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

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
