"""Quality control of workers (docs/method.md §6): degraded-answer tests and per-worker diagnostics.

Each ``BAD_REF`` rating is paired with the same worker's rating of its original ``SYSTEM`` slot in
the same HIT; pairs are pooled over all of the worker's HITs in the group (campaign).

Methods (``analysis.qc_states.QCMethod``; the default is ``analysis.qc_policy.DEFAULT_QC``):

- ``wilcoxon`` (default): Wilcoxon signed-rank test, one-sided (original > degraded), on the
  integer differences d = original − degraded. Zero differences are dropped before ranking
  (Wilcoxon's ``zero_method="wilcox"``); ties among |d| get mid-ranks. The p-value is exact: the
  permutation distribution of W+ given the observed ranks (all 2^n sign patterns, computed by
  convolution), which equals the classical exact test when there are no ties; above
  ``EXACT_MAX_PAIRS`` non-zero pairs, the normal approximation with tie and continuity correction.
  Passes when p < alpha. Needs at least 5 non-zero pairs: with 4, the smallest possible p is 1/16.
- ``ttest``: WMT's check up to 2021, paired t-test of degraded vs original with
  ``alternative="less"``; passes when p <= alpha. Needs 2 pairs; constant differences make t
  undefined (reported as zero variance, not passed).
- ``mannwhitney``: the unpaired rank-sum test of later tools: degraded scores < original scores,
  ``scipy.stats.mannwhitneyu(method="auto")``; passes when p < alpha.

- ``pooled``: one test over every check family of the worker's HITs (``BAD_REF``, ``MEANING`` and ``REF``
  pairs and ``REPEAT`` consistency, ``analysis.checks``), the power one HIT allows; passes when p < alpha.
  Needs 5 non-zero directional pairs.
- ``weighted``: the same pairs and null, each pair weighed by what real people do (``analysis.checks``,
  ``analysis.people_checks``); passes when p < alpha. Its p-value is exact however few the pairs, so one
  non-zero directional pair is enough to compute it (how many it takes to pass depends on their weights).

- ``none``: no test; the ratings are taken as already filtered and every worker counts
  (status ``not_quality_controlled``, reason "quality control off").

Scope (``analysis.qc_states.QCScope``): ``group`` pools a worker's pairs over their HITs in one group (campaign);
``worker`` pools them over all of the worker's HITs in every group of the table, as WMT did across
language pairs, and gives that one verdict in each group. Diagnostics stay per group.

The same test runs on any check type paired with its original: ``check=MEANING`` tests that the
worker scores meaning-changed answers lower than their originals (docs/quality-control.md#meaning-checks), exactly as
for BAD_REF.

A group without any ``BAD_REF`` rating cannot be quality-controlled (e.g. WMT releases rated by
pre-screened professionals); every worker there is reported as ``not_quality_controlled`` and kept.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats

from analysis.checks import (
    MIN_DIRECTIONAL_PAIRS,
    MIN_WEIGHTED_PAIRS,
    directional_differences,
    pooled_test,
    weighted_test,
)
from analysis.grouping import Grouping, group_by
from analysis.qc_policy import DEFAULT_QC, QCPolicy
from analysis.qc_states import QCMethod, QCScope, QCStatus
from analysis.table import BAD_REF, MEANING, NO_LINK, REF, REPEAT, SLOT_TYPES, SYSTEM, RatingsTable

EXACT_MAX_PAIRS = 400
MIN_NONZERO_PAIRS = 5

PASSED, FAILED, TOO_FEW_PAIRS, ZERO_VARIANCE, NOT_CONTROLLED = (
    QCStatus.passed, QCStatus.failed, QCStatus.too_few_pairs, QCStatus.zero_variance, QCStatus.not_quality_controlled)


@dataclass(frozen=True)
class TestResult:
    """One worker's test: statistic, one-sided p-value and how it was computed."""

    statistic: float
    pvalue: float
    method: str


@dataclass(frozen=True)
class WorkerQC:
    """Quality control of one worker in one group, with every diagnostic of docs/method.md §6."""

    group: str
    worker: str
    passed: bool
    status: QCStatus
    reason: str
    method: str
    pvalue: float
    statistic: float
    p_method: str
    n_pairs: int
    n_nonzero_pairs: int
    mean_original: float
    mean_degraded: float
    n_repeat_pairs: int
    repeat_mean_abs_diff: float
    repeat_correlation: float
    n_ref: int
    mean_ref: float
    n_ratings: int
    score_sd: float
    n_hits: int
    single_hit: bool
    hit_seconds: tuple[float, ...]
    longest_identical_run: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class QCTest:
    """A quality-control test in words: what it tests, how, and when a worker passes."""

    alternative: str
    zero_method: str
    distribution: str
    pass_rule: str
    min_pairs: str


QC_TESTS: dict[QCMethod, QCTest] = {
    QCMethod.wilcoxon: QCTest(
        "original > degraded (one-sided)", "wilcox (zero differences dropped)",
        f"exact permutation distribution with mid-ranks for ties (<= {EXACT_MAX_PAIRS} non-zero pairs), else "
        "normal approximation with tie and continuity correction", "p < alpha", f"{MIN_NONZERO_PAIRS} non-zero pairs"),
    QCMethod.ttest: QCTest("degraded < original (paired t-test, alternative='less')", "zero differences kept",
                           "Student's t with n - 1 df", "p <= alpha", "2 pairs"),
    QCMethod.mannwhitney: QCTest("degraded < original (unpaired Mann-Whitney, alternative='less')",
                                 "not applicable (unpaired)", "scipy.stats.mannwhitneyu method='auto'", "p < alpha",
                                 "1 pair"),
    QCMethod.pooled: QCTest(
        "original > BAD_REF and MEANING copies, REF > original, REPEAT close to its original (one-sided, pooled)",
        "wilcox (zero differences dropped)", "exact signed-rank on the directional pairs, exact repeat-consistency "
        "test, Fisher's combination (chi-square, 4 df)", "p < alpha", "5 non-zero directional pairs"),
    QCMethod.weighted: QCTest(
        "original > BAD_REF and MEANING copies, REF > original, REPEAT close to its original (one-sided, every pair "
        "weighed by what real people do)", "wilcox (zero differences dropped)",
        "exact distribution of the people-weighted sum (analysis.people_checks)", "p < alpha",
        f"{MIN_WEIGHTED_PAIRS} non-zero directional pair"),
    QCMethod.none: QCTest("none: quality control off", "not applicable", "not applicable",
                          "every worker counts (ratings already filtered)", "none"),
}
"""Each method's test in words (every ``QCMethod`` has one)."""


@dataclass(frozen=True)
class QCSettings:
    """What was run, recorded with every result: the policy, and its test in words (:data:`QC_TESTS`)."""

    policy: QCPolicy = DEFAULT_QC

    @property
    def test(self) -> QCTest:
        return QC_TESTS[self.policy.method]

    @property
    def pass_rule(self) -> str:
        return self.test.pass_rule

    def to_dict(self) -> dict[str, Any]:
        """The record as written to ``analysis.json`` and the bundle: the policy's parts and the test's words."""
        policy = self.policy
        return {"method": policy.method.value, "alpha": policy.alpha, **asdict(self.test), "scope": policy.scope.value}


@dataclass(frozen=True)
class QCReport:
    """Quality control of every worker of one group."""

    group: str
    settings: QCSettings
    applicable: bool  # False when the group has no BAD_REF ratings at all
    workers: tuple[WorkerQC, ...] = field(default=())

    @property
    def passed_workers(self) -> frozenset[str]:
        return frozenset(w.worker for w in self.workers if w.passed)

    def summary(self) -> dict[str, int]:
        """Workers per status."""
        counts: dict[str, int] = {}
        for w in self.workers:
            counts[w.status] = counts.get(w.status, 0) + 1
        return counts


def signed_rank_test(differences: np.ndarray) -> TestResult:
    """One-sided Wilcoxon signed-rank test that the differences are > 0 (zeros dropped).

    Statistic: W+ (sum of the mid-ranks of |d| over positive d). P-value as in the module docstring.
    """
    d = np.asarray(differences, dtype=np.float64)
    d = d[d != 0]
    n = len(d)
    if n == 0:
        return TestResult(math.nan, math.nan, "no non-zero differences")
    ranks = midranks(np.abs(d))
    w_plus = float(ranks[d > 0].sum())
    if n <= EXACT_MAX_PAIRS:
        doubled = np.rint(2 * ranks).astype(np.int64)  # mid-ranks are multiples of 1/2
        return TestResult(w_plus, _upper_tail(doubled, int(round(2 * w_plus))), "exact")
    _, tie_counts = np.unique(np.abs(d), return_counts=True)
    mean = n * (n + 1) / 4
    variance = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(tie_counts**3 - tie_counts)) / 48
    z = (w_plus - mean - 0.5) / math.sqrt(variance)
    return TestResult(w_plus, float(special.ndtr(-z)), "normal approximation")


def midranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties getting the mean of the ranks they span (as scipy.stats.rankdata)."""
    unique, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse]


def _upper_tail(doubled_ranks: np.ndarray, observed: int) -> float:
    """P(sum of randomly signed ranks' positive part >= observed), every sign pattern equally likely.

    Counts the sign patterns by polynomial multiplication, one rank at a time; numpy evaluates the
    overlapping in-place addition as if from a copy, so each step is one vector operation.
    """
    counts = np.zeros(int(doubled_ranks.sum()) + 1)
    counts[0] = 1.0
    top = 0
    for r in doubled_ranks.tolist():
        counts[r: r + top + 1] += counts[: top + 1]
        top += r
    return float(min(1.0, counts[observed:].sum() / 2.0 ** len(doubled_ranks)))


def paired_ttest(original: np.ndarray, degraded: np.ndarray) -> TestResult:
    """WMT-compatible paired t-test: degraded vs original, alternative 'less' (NaN p for constant d)."""
    d = np.asarray(original, dtype=np.float64) - np.asarray(degraded, dtype=np.float64)
    n = len(d)
    if n < 2:
        return TestResult(math.nan, math.nan, "t-test needs 2 pairs")
    sd = float(np.std(d, ddof=1))
    if sd == 0:
        return TestResult(math.nan, math.nan, "t-test undefined: constant differences")
    t = float(np.mean(d)) / (sd / math.sqrt(n))  # = -t of ttest_rel(degraded, original)
    return TestResult(-t, float(stats.t.sf(t, n - 1)), "paired t-test")


def rank_sum_test(original: np.ndarray, degraded: np.ndarray) -> TestResult:
    """Compatibility mode: unpaired Mann-Whitney test that degraded scores are lower."""
    result = stats.mannwhitneyu(degraded, original, alternative="less", method="auto")
    return TestResult(float(result.statistic), float(result.pvalue), "mannwhitneyu auto")


def quality_control(table: RatingsTable, policy: QCPolicy = DEFAULT_QC, *, check: int = BAD_REF,
                    margin: int | Mapping[str, int] = 0) -> dict[str, QCReport]:
    """Quality control of every worker of every group of the table by ``policy`` (its test, level and scope:
    see the module docstring), on the pairs of ``check`` slots (an ``analysis.table`` slot-type code: BAD_REF by
    default, or MEANING) with their originals. ``margin``: the test asks that the check scores lower than its
    original by more than this many points (0 for BAD_REF, as published), one number or one per worker label
    (missing: 0); ``analysis.verdict`` sets it for meaning-change checks."""
    settings = QCSettings(policy)
    workers = group_by(table.group.codes, table.worker.codes)
    _, sd = _spread(workers, table.score.astype(np.float64))
    n_ratings = _given(table, workers)
    checks = _Pairs.of_type(table, workers, check)
    families = _Families.build(table, workers) if policy.pools_every_check else None
    groups_with_checks = set(table.group.codes[table.slot_type == check].tolist())
    pooled = (_pooled_verdicts(table, policy, groups_with_checks, check, margin)
              if policy.scope is QCScope.worker else {})

    reports: dict[str, list[WorkerQC]] = {}
    for w, diagnostics in enumerate(_diagnostics(table, workers, policy.method, checks, n_ratings, sd)):
        group_code = int(table.group.codes[workers.first[w]])
        original, degraded = checks.of(w)
        extra = _margin_of(margin, diagnostics["worker"])
        verdict = pooled.get(diagnostics["worker"]) or _with_margin(_verdict(
            policy, original, degraded + extra, float(sd[w]), int(n_ratings[w]),
            group_code in groups_with_checks, SLOT_TYPES[check], families.of(w) if families else None),
            SLOT_TYPES[check], extra)
        reports.setdefault(diagnostics["group"], []).append(WorkerQC(**verdict, **diagnostics))
    return {g: QCReport(g, settings, any(w.status != NOT_CONTROLLED for w in ws), tuple(ws))
            for g, ws in reports.items()}


def _given(table: RatingsTable, workers: Grouping) -> np.ndarray:
    """Ratings each worker gave: copies for merged identical answers (``RatingsTable.copies``) are not
    ratings of theirs, though they count in scores and in the spread of the worker's scores."""
    return np.bincount(workers.index[~table.copies()], minlength=workers.n)


def _spread(workers: Grouping, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratings per worker and the sample standard deviation of their scores (NaN for one rating)."""
    n_ratings = workers.counts()
    mean = workers.means(scores)
    sq = np.bincount(workers.index, weights=(scores - mean[workers.index]) ** 2, minlength=workers.n)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(sq / (n_ratings - 1))
    return n_ratings, sd


@dataclass(frozen=True)
class _Pairs:
    """Each worker's pairs of one check type: the original's score and the check's, by worker index."""

    original: np.ndarray
    score: np.ndarray
    bounds: np.ndarray  # worker w's pairs are [bounds[w], bounds[w + 1])

    @classmethod
    def of_type(cls, table: RatingsTable, workers: Grouping, slot_type: int) -> _Pairs:
        rows = np.flatnonzero((table.slot_type == slot_type) & (table.original != NO_LINK))
        rows = rows[np.argsort(workers.index[rows], kind="stable")]
        return cls(table.score[table.original[rows]].astype(np.int64), table.score[rows].astype(np.int64),
                   np.searchsorted(workers.index[rows], np.arange(workers.n + 1)))

    def of(self, w: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = self.bounds[w], self.bounds[w + 1]
        return self.original[start:end], self.score[start:end]


@dataclass(frozen=True)
class _Families:
    """Each worker's pairs of every check family and their ordinary scores, for the pooled test."""

    meaning: _Pairs
    ref: _Pairs
    repeat: _Pairs
    ordinary: _Pairs  # (score, score) of each SYSTEM rating, by worker

    @classmethod
    def build(cls, table: RatingsTable, workers: Grouping) -> _Families:
        rows = np.flatnonzero(table.slot_type == SYSTEM)
        rows = rows[np.argsort(workers.index[rows], kind="stable")]
        scores = table.score[rows].astype(np.int64)
        ordinary = _Pairs(scores, scores, np.searchsorted(workers.index[rows], np.arange(workers.n + 1)))
        return cls(_Pairs.of_type(table, workers, MEANING), _Pairs.of_type(table, workers, REF),
                   _Pairs.of_type(table, workers, REPEAT), ordinary)

    def of(self, w: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        return self.meaning.of(w), self.ref.of(w), self.repeat.of(w), self.ordinary.of(w)


def _diagnostics(table: RatingsTable, workers: Grouping, method: QCMethod, checks: _Pairs, n_ratings: np.ndarray,
                 sd: np.ndarray) -> Iterator[dict[str, Any]]:
    """What quality control reports of each worker besides the verdict (``WorkerQC``), in worker order."""
    w_index = workers.index
    repeats = _Pairs.of_type(table, workers, REPEAT)
    ref_rows = table.slot_type == REF
    n_ref = np.bincount(w_index[ref_rows], minlength=workers.n)
    ref_sum = np.bincount(w_index[ref_rows], weights=table.score.astype(np.float64)[ref_rows], minlength=workers.n)
    runs = _longest_runs(table, workers)
    given = np.flatnonzero(~table.copies())  # HITs and their times: only what the worker rated
    hits = group_by(w_index[given], table.hit.codes[given])
    hit_seconds = hits.sums(table.seconds[given])
    hit_owner = w_index[given][hits.first]
    hit_order = np.argsort(hit_owner, kind="stable")
    hit_bounds = np.searchsorted(hit_owner[hit_order], np.arange(workers.n + 1))
    for w in range(workers.n):
        row = workers.first[w]
        original, degraded = checks.of(w)
        rep_a, rep_b = repeats.of(w)
        seconds = tuple(float(s) for s in hit_seconds[hit_order[hit_bounds[w]:hit_bounds[w + 1]]])
        yield dict(
            group=table.group.labels[table.group.codes[row]], worker=table.worker.labels[table.worker.codes[row]],
            method=method, n_pairs=len(original), n_nonzero_pairs=int(np.count_nonzero(original - degraded)),
            mean_original=_mean(original), mean_degraded=_mean(degraded), n_repeat_pairs=len(rep_a),
            repeat_mean_abs_diff=_mean(np.abs(rep_a - rep_b)), repeat_correlation=_correlation(rep_a, rep_b),
            n_ref=int(n_ref[w]), mean_ref=float(ref_sum[w] / n_ref[w]) if n_ref[w] else math.nan,
            n_ratings=int(n_ratings[w]), score_sd=float(sd[w]), n_hits=len(seconds),
            single_hit=len(seconds) == 1, hit_seconds=seconds, longest_identical_run=int(runs[w]),
        )


def _pooled_verdicts(table: RatingsTable, policy: QCPolicy, groups_with_checks: set[int],
                     check: int = BAD_REF, margin: int | Mapping[str, int] = 0) -> dict:
    """Scope ``worker``: one verdict per worker from their pairs in every group (and their sd over all)."""
    by_worker = group_by(table.worker.codes)
    _, sd = _spread(by_worker, table.score.astype(np.float64))
    n = _given(table, by_worker)
    checks = _Pairs.of_type(table, by_worker, check)
    families = _Families.build(table, by_worker) if policy.pools_every_check else None
    verdicts = {}
    for w in range(by_worker.n):
        original, degraded = checks.of(w)
        own_groups = set(table.group.codes[by_worker.rows(w)].tolist())
        extra = _margin_of(margin, table.worker.labels[table.worker.codes[by_worker.first[w]]])
        verdict = _with_margin(_verdict(policy, original, degraded + extra, float(sd[w]), int(n[w]),
                                        bool(own_groups & groups_with_checks), SLOT_TYPES[check],
                                        families.of(w) if families else None),
                               SLOT_TYPES[check], extra)
        if verdict["status"] != NOT_CONTROLLED:
            verdict["reason"] += f" [pairs pooled over all groups: {len(original)}]"
        verdicts[table.worker.labels[table.worker.codes[by_worker.first[w]]]] = verdict
    return verdicts


def _margin_of(margin: int | Mapping[str, int], worker: str) -> int:
    return margin if isinstance(margin, int) else int(margin.get(worker, 0))


def _with_margin(verdict: dict, check: str, margin: int) -> dict:
    """Say in the reason that the test was on a drop of more than ``margin`` points."""
    if margin and verdict["status"] not in (NOT_CONTROLLED, ZERO_VARIANCE):
        verdict["reason"] += f" [tested: {check} scored more than {margin} points below its original]"
    return verdict


def _verdict(policy: QCPolicy, original: np.ndarray, degraded: np.ndarray, sd: float,
             n_ratings: int, group_has_checks: bool, check: str = "BAD_REF",
             families: tuple[tuple[np.ndarray, np.ndarray], ...] | None = None) -> dict:
    """passed / status / reason / p-value for one worker by ``policy`` (``check``: the slot type tested;
    ``families``: the worker's MEANING, REF, REPEAT pairs and ordinary scores, for the pooled test)."""
    method, alpha = policy.method, policy.alpha
    none = dict(pvalue=math.nan, statistic=math.nan, p_method="")
    if policy.off:
        return dict(passed=True, status=NOT_CONTROLLED, reason="quality control off (--qc none): the ratings "
                    "are taken as already filtered, all are kept", **none)
    if not group_has_checks:
        return dict(passed=True, status=NOT_CONTROLLED, reason=f"the group has no {check} checks: "
                    "quality control is not possible, all ratings are kept", **none)
    if not sd > 0:
        reason = (f"all {n_ratings} ratings are identical: no variance (also excluded from z-scores)"
                  if n_ratings > 1 else "only one rating: no variance (also excluded from z-scores)")
        return dict(passed=False, status=ZERO_VARIANCE, reason=reason, **none)
    if policy.pools_every_check:
        assert families is not None
        return _pooled_check_verdict(alpha, original, degraded, families, weighted=method is QCMethod.weighted)
    nonzero = int(np.count_nonzero(original - degraded))
    if method is QCMethod.wilcoxon:
        if nonzero < MIN_NONZERO_PAIRS:
            return dict(passed=False, status=TOO_FEW_PAIRS, reason=(
                f"{nonzero} non-zero {check} pair(s) of {len(original)}: a one-sided signed-rank test "
                f"needs at least {MIN_NONZERO_PAIRS} to reach p < 0.05 (with 4 the smallest p is 1/16)"), **none)
        result = signed_rank_test(original - degraded)
        passed = result.pvalue < alpha
        rule = f"p {'<' if passed else '>='} {alpha}"
    elif method is QCMethod.ttest:
        if len(original) < 2:
            return dict(passed=False, status=TOO_FEW_PAIRS,
                        reason=f"{len(original)} {check} pair(s): the t-test needs at least 2", **none)
        result = paired_ttest(original, degraded)
        if math.isnan(result.pvalue):
            return dict(passed=False, status=ZERO_VARIANCE, reason=(
                f"every {check} pair has the same difference: the t-test is undefined"),
                statistic=math.nan, pvalue=math.nan, p_method=result.method)
        passed = result.pvalue <= alpha
        rule = f"p {'<=' if passed else '>'} {alpha}"
    else:
        if len(original) < 1:
            return dict(passed=False, status=TOO_FEW_PAIRS, reason=f"no {check} pairs", **none)
        result = rank_sum_test(original, degraded)
        passed = result.pvalue < alpha
        rule = f"p {'<' if passed else '>='} {alpha}"
    changed = "degraded" if check == "BAD_REF" else f"{check} check"
    reason = (f"{changed} answers scored lower ({method}, {result.method}, p = {result.pvalue:.3g}, {rule})"
              if passed else
              f"{changed} answers not scored significantly lower ({method}, {result.method}, "
              f"p = {result.pvalue:.3g}, {rule})")
    return dict(passed=bool(passed), status=PASSED if passed else FAILED, reason=reason,
                pvalue=result.pvalue, statistic=result.statistic, p_method=result.method)


def _pooled_check_verdict(alpha: float, original: np.ndarray, degraded: np.ndarray,
                          families: tuple[tuple[np.ndarray, np.ndarray], ...], weighted: bool = False) -> dict:
    """The pooled (or ``weighted``) test's verdict (``analysis.checks``) from the BAD_REF pairs and the other
    families."""
    meaning, ref, repeat, ordinary = families
    directional = directional_differences((original, degraded), meaning, ref)
    counts = f"{len(original)} BAD_REF, {len(meaning[0])} MEANING, {len(ref[0])} REF, {len(repeat[0])} REPEAT pairs"
    nonzero = directional[directional != 0]
    name, needed = ("weighted", MIN_WEIGHTED_PAIRS) if weighted else ("pooled", MIN_DIRECTIONAL_PAIRS)
    if len(nonzero) < needed:
        return dict(passed=False, status=TOO_FEW_PAIRS, statistic=math.nan, pvalue=math.nan, p_method="", reason=(
            f"{int(np.count_nonzero(directional))} non-zero directional pair(s) ({counts}): the {name} test "
            f"needs at least {needed}"))
    if weighted:
        damaged = (np.concatenate([original, meaning[0]]), np.concatenate([degraded, meaning[1]]))
        found = weighted_test(damaged, ref, repeat, ordinary[0])
        passed = found.pvalue < alpha
        parts = (f"evidence {found.statistic:.2f} nats: {found.directional:.2f} from {found.n_directional} non-zero "
                 f"directional pairs, {found.repeat:.2f} from {found.n_repeat} repeats")
        reason = (f"checks {'' if passed else 'not '}scored as people do (weighted, p = {found.pvalue:.3g}, "
                  f"p {'<' if passed else '>='} {alpha}; {parts}; {counts})")
        return dict(passed=bool(passed), status=PASSED if passed else FAILED, reason=reason, pvalue=found.pvalue,
                    statistic=found.statistic, p_method=found.method)
    direction = signed_rank_test(nonzero)
    result = pooled_test(direction.pvalue, direction.statistic, len(nonzero), repeat[0], repeat[1], ordinary[0])
    passed = result.pvalue < alpha
    parts = f"directional p = {result.directional_p:.3g} over {result.n_directional} non-zero pairs"
    if result.n_repeat:
        parts += f", repeat consistency p = {result.repeat_p:.3g} over {result.n_repeat}"
    reason = (f"checks {'' if passed else 'not '}scored as a reader would (pooled, p = {result.pvalue:.3g}, "
              f"p {'<' if passed else '>='} {alpha}; {parts}; {counts})")
    return dict(passed=bool(passed), status=PASSED if passed else FAILED, reason=reason, pvalue=result.pvalue,
                statistic=result.statistic, p_method=result.method)


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson r of the repeat pairs; NaN with fewer than 2 pairs or no variance."""
    if len(a) < 2:
        return math.nan
    x, y = a - a.mean(), b - b.mean()
    sxx, syy = float(np.dot(x, x)), float(np.dot(y, y))
    if sxx == 0 or syy == 0:
        return math.nan
    return float(np.dot(x, y)) / math.sqrt(sxx * syy)


def _longest_runs(table: RatingsTable, workers: Grouping) -> np.ndarray:
    """Longest run of identical consecutive scores per worker, within a HIT, in rating order (a copy for
    a merged identical answer is a run of its own: the worker did not give it)."""
    if len(table) == 0:
        return np.zeros(0, dtype=np.int64)
    order = workers.order
    score, hit, owner = table.score[order], table.hit.codes[order], workers.index[order]
    copy = table.copies()[order]
    new_run = np.ones(len(order), dtype=bool)
    new_run[1:] = ((score[1:] != score[:-1]) | (hit[1:] != hit[:-1]) | (owner[1:] != owner[:-1])
                   | copy[1:] | copy[:-1])
    run_id = np.cumsum(new_run) - 1
    run_length = np.bincount(run_id)
    return np.maximum.reduceat(run_length[run_id], workers.starts)
