"""One entry point for the whole analysis of a ratings table: QC → z → system scores → ranking."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from analysis.grouping import group_by
from analysis.qc_policy import DEFAULT_QC, QCPolicy
from analysis.qc_states import ExcludedBy
from analysis.quality import QCReport, QCSettings, WorkerQC, quality_control
from analysis.ranking import Ranking, rank_systems
from analysis.scores import GroupScores, ItemScores, ScoreSettings, SystemScore, compute_scores
from analysis.table import RatingsTable
from analysis.verdict import VerdictStatus, WorkerVerdict, kept_workers, worker_verdicts

RANKING_TEST = ("one-sided Mann-Whitney U on item-level z-scores, normal approximation with continuity "
                "and tie correction (R wilcox.test exact=FALSE correct=TRUE)")


@dataclass(frozen=True)
class AnalysisSettings:
    """Everything that determines the numbers, recorded with them."""

    qc: QCSettings
    alpha: float
    z_digits: int | None
    scores: ScoreSettings = field(default_factory=ScoreSettings)
    counted_slot_types: tuple[str, ...] = ("SYSTEM", "REPEAT")
    z_scope: str = "per worker per group over all of the worker's ratings, sample sd (n - 1); sd 0 excluded"
    ranking_test: str = RANKING_TEST

    def to_dict(self) -> dict[str, Any]:
        """The record written with the numbers (``analysis.json``, the bundle): quality control as
        ``QCSettings.to_dict`` writes it."""
        return {**asdict(self), "qc": self.qc.to_dict()}


EXCLUDED_BY_DECISION, EXCLUDED_BY_QC, FLAGGED_FOR_REVIEW, EXCLUDED_BY_SD = (
    ExcludedBy.decision, ExcludedBy.quality_control, ExcludedBy.flagged, ExcludedBy.standard_deviation_0)


@dataclass(frozen=True)
class Exclusion:
    """A worker whose ratings do not count in a group, and why: by a review decision, by quality control (the
    verdict ``excluded``), flagged for review by a signal (the verdict ``flagged``), or because their scores do
    not vary (no z-score)."""

    group: str
    worker: str
    excluded_by: ExcludedBy
    reason: str


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
class DecidedWorkers:
    """Quality control and combined verdicts of the workers a review decision excluded from one group: shown
    (the dashboard, the payment policy), never scored. They are judged on all ratings of the group, theirs
    included; everyone else is judged without them."""

    qc: tuple[WorkerQC, ...] = ()
    verdicts: Mapping[str, WorkerVerdict] = field(default_factory=dict)


@dataclass(frozen=True)
class AnalysisResult:
    """Per-group QC reports, scores and rankings, the settings used and any warnings."""

    settings: AnalysisSettings
    groups: Mapping[str, GroupAnalysis]
    warnings: tuple[str, ...] = field(default=())
    exclusions: tuple[Exclusion, ...] = field(default=())
    decided: Mapping[str, DecidedWorkers] = field(default_factory=dict)  # group -> workers a decision excluded

    def excluded(self, by: ExcludedBy | None = None) -> dict[str, dict[str, str]]:
        """group -> worker -> reason, for every exclusion (or those ``by`` one cause)."""
        out: dict[str, dict[str, str]] = {}
        for e in self.exclusions:
            if by is None or e.excluded_by == by:
                out.setdefault(e.group, {})[e.worker] = e.reason
        return out

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


def analyze(table: RatingsTable, *, qc: QCPolicy = DEFAULT_QC, alpha: float = 0.05, z_digits: int | None = None,
            scores: ScoreSettings | None = None,
            worker_stats: Mapping[tuple[str, str], tuple[float, float]] | None = None,
            excluded: Mapping[str, str] | None = None) -> AnalysisResult:
    """Analyse every group of the table (docs/method.md §6–§8): the one path for every number.
    Only workers whose combined verdict (``analysis.verdict``: BAD_REF and MEANING checks, behaviour
    signals) is ``kept`` are scored; with quality control off (method ``none``) every worker is.

    qc: the quality-control policy, whole (test, its level and scope: ``analysis.qc_policy``; a campaign's or a
    file's is resolved by ``analysis.qc_policy.resolve_policy``); alpha: the significance level of the ranking
    only; z_digits: round each worker's mean and sd to that many significant digits before standardising
    (7 reproduces WMT's R scripts; None = full precision); scores: the numeric path and the rule for
    raters with sd 0 (``ScoreSettings``; overrides ``z_digits``); worker_stats: published (mean, sd)
    per (group, worker); excluded: workers whose data a review decision excluded (label -> reason),
    left out before anything is computed and listed in ``exclusions`` (their own quality control and verdicts,
    judged on all ratings, are in ``decided``).
    """
    if table.given_z is not None and not qc.off:
        raise ValueError("the ratings are given as z-scores only (no raw scores): quality control cannot run on "
                         "them; they are normally already filtered (use --qc none)")
    score_settings = scores or ScoreSettings(z_digits=z_digits)
    decided = _decided(table, qc, excluded or {})
    table, exclusions, gone = _without_excluded(table, excluded or {})
    reports, verdicts = _judged(table, qc)
    kept = kept_workers(verdicts) if verdicts else {g: r.passed_workers for g, r in reports.items()}
    group_scores_all = compute_scores(table, kept, settings=score_settings, worker_stats=worker_stats)
    warnings: list[str] = [f"{g}: every worker was excluded by a review decision; nothing to rank" for g in gone]
    groups: dict[str, GroupAnalysis] = {}
    for group in table.groups():
        report, group_scores = reports[group], group_scores_all[group]
        if not report.applicable:
            why = "quality control off" if qc.off else "no BAD_REF checks, so no quality control"
            warnings.append(f"{group}: {why}; all {len(report.workers)} workers' ratings are used")
        exclusions += _group_exclusions(group, report, verdicts.get(group, {}), group_scores)
        if not group_scores.systems:
            warnings.append(f"{group}: no ratings left after quality control; nothing to rank")
        ranking = _rank(group_scores, alpha)
        groups[group] = GroupAnalysis(group, report, group_scores, ranking, verdicts.get(group, {}))
    settings = AnalysisSettings(QCSettings(qc), alpha, score_settings.z_digits, score_settings)
    return AnalysisResult(settings, groups, tuple(warnings), tuple(exclusions), decided)


def _judged(table: RatingsTable, policy: QCPolicy) -> tuple[dict[str, QCReport], dict[str, dict[str, WorkerVerdict]]]:
    """Quality control of every worker and, unless it is off (the ratings are already filtered: no checks,
    no behaviour signals), their combined verdicts."""
    reports = quality_control(table, policy)
    if policy.off:
        return reports, {}
    return reports, worker_verdicts(table, reports, policy)


def _decided(table: RatingsTable, policy: QCPolicy, excluded: Mapping[str, str]) -> dict[str, DecidedWorkers]:
    """Quality control and verdicts of the workers a decision excluded, judged on the whole table."""
    if not any(label in excluded for label in table.worker.labels):
        return {}
    reports, verdicts = _judged(table, policy)
    return {group: DecidedWorkers(tuple(w for w in report.workers if w.worker in excluded),
                                  {w: v for w, v in verdicts.get(group, {}).items() if w in excluded})
            for group, report in reports.items() if any(w.worker in excluded for w in report.workers)}


def _without_excluded(table: RatingsTable, excluded: Mapping[str, str]
                      ) -> tuple[RatingsTable, list[Exclusion], list[str]]:
    """The table without the workers a decision excluded, their exclusions (one per group and worker),
    and the groups left with no worker at all."""
    present = [label for label in table.worker.labels if label in excluded]
    if not present:
        return table, [], []
    exclusions: list[Exclusion] = []
    drop = np.array([label in excluded for label in table.worker.labels], dtype=bool)
    pairs = group_by(table.group.codes, table.worker.codes)
    for row in pairs.first.tolist():
        worker = table.worker.labels[table.worker.codes[row]]
        if worker in excluded:
            exclusions.append(Exclusion(table.group.labels[table.group.codes[row]], worker,
                                        EXCLUDED_BY_DECISION, excluded[worker]))
    all_groups = table.groups()
    table = table.select(~drop[table.worker.codes])
    gone = [g for g in all_groups if g not in table.groups()]
    return table, exclusions, gone


def _group_exclusions(group: str, report: QCReport, verdicts: Mapping[str, WorkerVerdict],
                      scores: GroupScores) -> list[Exclusion]:
    """The group's workers left out by quality control (their checks, or the combined verdict: ``excluded`` by a
    check, ``flagged`` for review by a signal) or sd 0."""
    exclusions: list[Exclusion] = []
    for qc in report.workers:
        verdict = verdicts.get(qc.worker)
        if not qc.passed:
            exclusions.append(Exclusion(group, qc.worker, EXCLUDED_BY_QC, qc.reason))
        elif verdict is not None and not verdict.kept:
            by = FLAGGED_FOR_REVIEW if verdict.status is VerdictStatus.flagged else EXCLUDED_BY_QC
            exclusions.append(Exclusion(group, qc.worker, by, f"{verdict.status.value}: {'; '.join(verdict.reasons)}"))
    for standardised in scores.workers:
        if standardised.reason.startswith("standard deviation 0") and not standardised.included:
            exclusions.append(Exclusion(group, standardised.worker, EXCLUDED_BY_SD, standardised.reason))
    return exclusions


def _rank(scores: GroupScores, alpha: float) -> Ranking:
    """The group's ranking: the systems' z-scores and the pairwise tests on their item z-scores."""
    items = scores.items
    keep = ~np.isnan(items.z)
    order = np.argsort(items.system[keep], kind="stable")
    names, starts = np.unique(items.system[keep][order], return_index=True)
    splits = np.split(items.z[keep][order], starts[1:])
    item_z = dict(zip(names.tolist(), splits))
    system_z = {s.system: s.z for s in scores.systems if s.system in item_z}
    return rank_systems(item_z, system_z, alpha=alpha)
