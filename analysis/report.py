"""One entry point for the whole analysis of a ratings table: QC → z → system scores → ranking."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from analysis.quality import QC_METHODS, QCReport, QCSettings, quality_control
from analysis.ranking import Ranking, rank_systems
from analysis.scores import GroupScores, ItemScores, SystemScore, compute_scores
from analysis.table import RatingsTable
from analysis.verdict import WorkerVerdict, kept_workers, worker_verdicts

RANKING_TEST = ("one-sided Mann-Whitney U on item-level z-scores, normal approximation with continuity "
                "and tie correction (R wilcox.test exact=FALSE correct=TRUE)")


@dataclass(frozen=True)
class AnalysisSettings:
    """Everything that determines the numbers, recorded with them."""

    qc: QCSettings
    alpha: float
    z_digits: int | None
    counted_slot_types: tuple[str, ...] = ("SYSTEM", "REPEAT")
    z_scope: str = "per worker per group over all of the worker's ratings, sample sd (n - 1); sd 0 excluded"
    ranking_test: str = RANKING_TEST


@dataclass(frozen=True)
class GroupAnalysis:
    """The analysis of one group (campaign / language pair)."""

    group: str
    qc: QCReport
    scores: GroupScores
    ranking: Ranking
    verdicts: Mapping[str, WorkerVerdict] = field(default_factory=dict)  # worker -> combined verdict

    @property
    def system_scores(self) -> tuple[SystemScore, ...]:
        return self.scores.systems

    @property
    def item_scores(self) -> ItemScores:
        return self.scores.items


@dataclass(frozen=True)
class AnalysisResult:
    """Per-group QC reports, scores and rankings, the settings used and any warnings."""

    settings: AnalysisSettings
    groups: Mapping[str, GroupAnalysis]
    warnings: tuple[str, ...] = field(default=())

    @property
    def qc(self) -> dict[str, QCReport]:
        return {g: a.qc for g, a in self.groups.items()}

    @property
    def system_scores(self) -> dict[str, tuple[SystemScore, ...]]:
        return {g: a.scores.systems for g, a in self.groups.items()}

    @property
    def item_scores(self) -> dict[str, ItemScores]:
        return {g: a.scores.items for g, a in self.groups.items()}

    @property
    def pvalues(self) -> dict[str, np.ndarray]:
        return {g: a.ranking.pvalues for g, a in self.groups.items()}

    @property
    def wins(self) -> dict[str, dict[str, int]]:
        return {g: dict(zip(a.ranking.systems, a.ranking.wins)) for g, a in self.groups.items()}

    @property
    def clusters(self) -> dict[str, tuple[tuple[str, ...], ...]]:
        return {g: a.ranking.clusters for g, a in self.groups.items()}


def analyze(table: RatingsTable, *, qc_method: str = "wilcoxon", alpha: float = 0.05,
            qc_alpha: float | None = None, z_digits: int | None = None) -> AnalysisResult:
    """Analyse every group of the table (SPEC §6–§8); only workers whose combined verdict
    (``analysis.verdict``: BAD_REF and MEANING checks, behaviour signals) is ``kept`` are scored.

    qc_method: ``wilcoxon`` (default), ``ttest`` or ``mannwhitney`` (see ``analysis.quality``);
    alpha: significance level of the ranking (and of QC unless ``qc_alpha`` is given);
    z_digits: round each worker's mean and sd to that many significant digits before standardising
    (7 reproduces WMT's R scripts digit for digit; None = full precision).
    """
    if qc_method not in QC_METHODS:
        raise ValueError(f"unknown quality-control method {qc_method!r}; expected one of {', '.join(QC_METHODS)}")
    qc_alpha = alpha if qc_alpha is None else qc_alpha
    reports = quality_control(table, method=qc_method, alpha=qc_alpha)
    verdicts = worker_verdicts(table, reports, method=qc_method, alpha=qc_alpha)  # checks + behaviour
    scores = compute_scores(table, kept_workers(verdicts), z_digits=z_digits)
    warnings: list[str] = []
    groups: dict[str, GroupAnalysis] = {}
    for group in table.groups():
        report, group_scores = reports[group], scores[group]
        if not report.applicable:
            warnings.append(f"{group}: no BAD_REF checks, so no quality control; all "
                            f"{len(report.workers)} workers' ratings are used")
        if not group_scores.systems:
            warnings.append(f"{group}: no ratings left after quality control; nothing to rank")
        items = group_scores.items
        order = np.argsort(items.system, kind="stable")
        names, starts = np.unique(items.system[order], return_index=True)
        splits = np.split(items.z[order], starts[1:])
        item_z = dict(zip(names.tolist(), splits))
        ranking = rank_systems(item_z, {s.system: s.z for s in group_scores.systems}, alpha=alpha)
        groups[group] = GroupAnalysis(group, report, group_scores, ranking, verdicts.get(group, {}))
    settings = AnalysisSettings(QCSettings.for_method(qc_method, qc_alpha), alpha, z_digits)
    return AnalysisResult(settings, groups, tuple(warnings))
