"""Unit tests of the statistics: QC tests, z-scores, rank-sum p-values, clusters, planning, Williams."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from analysis.correlation import williams_test
from analysis.power import sample_size_by_simulation, sample_size_normal, separation_progress
from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.quality import MIN_NONZERO_PAIRS, paired_ttest, quality_control, rank_sum_test, signed_rank_test
from analysis.ranking import clusters_from_wins, pairwise_pvalues, rank_sum_greater, rank_systems
from analysis.reliability import self_replication
from analysis.report import analyze
from analysis.scores import compute_scores
from analysis.table import RatingRecord, RatingsTable

# --- signed-rank test -------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_signed_rank_without_ties_equals_scipy_exact(seed):
    rng = np.random.default_rng(seed)
    d = rng.permutation(np.arange(1, 16)) * rng.choice([-1, 1], 15, p=[0.3, 0.7])
    ours = signed_rank_test(d)
    theirs = stats.wilcoxon(d, alternative="greater", zero_method="wilcox", method="exact")
    assert ours.method == "exact"
    assert ours.statistic == theirs.statistic
    assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-12)


def test_signed_rank_with_ties_and_zeros_is_the_permutation_distribution():
    d = np.array([3, 3, -3, 5, 0, 0, 7, 7, 2])
    nonzero = d[d != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    observed = ranks[nonzero > 0].sum()
    patterns = [sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product([0, 1], repeat=len(ranks))]
    expected = np.mean(np.array(patterns) >= observed - 1e-9)
    result = signed_rank_test(d)
    assert result.statistic == observed
    assert result.pvalue == pytest.approx(expected, rel=1e-12)


def test_five_positive_pairs_are_the_minimum_to_pass():
    assert signed_rank_test(np.array([1, 2, 3, 4, 5])).pvalue == pytest.approx(1 / 32)
    assert signed_rank_test(np.array([1, 2, 3, 4])).pvalue == pytest.approx(1 / 16)
    assert MIN_NONZERO_PAIRS == 5


def test_signed_rank_normal_approximation_for_many_pairs():
    rng = np.random.default_rng(1)
    d = rng.integers(-20, 40, 600)
    result = signed_rank_test(d)
    reference = stats.wilcoxon(d, alternative="greater", zero_method="wilcox", correction=True,
                               method="approx")
    assert result.method == "normal approximation"
    assert result.pvalue == pytest.approx(reference.pvalue, rel=1e-6)


def test_ttest_and_mannwhitney_compat_match_scipy():
    original = np.array([80, 70, 90, 60, 85, 75])
    degraded = np.array([40, 72, 50, 61, 30, 20])
    t = paired_ttest(original, degraded)
    ref = stats.ttest_rel(degraded, original, alternative="less")
    assert t.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert t.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert math.isnan(paired_ttest(np.array([5, 6, 7]), np.array([1, 2, 3])).pvalue)  # constant d
    u = rank_sum_test(original, degraded)
    assert u.pvalue == pytest.approx(stats.mannwhitneyu(degraded, original, alternative="less").pvalue)


# --- QC on hand-made tables ---------------------------------------------------------------------

def worker_rows(worker, pairs, hits=1, extra=(), group="g"):
    """Rows for one worker: per pair an original SYSTEM rating and its BAD_REF, spread over HITs."""
    rows = []
    for k, (orig, bad) in enumerate(pairs):
        hit = f"{worker}-h{k % hits}"
        rows.append(RatingRecord(group, worker, hit, "S1", f"q{k}", "SYSTEM", f"{worker}-s{k}", "", orig, 5.0))
        rows.append(RatingRecord(group, worker, hit, "S1", f"q{k}", "BAD_REF", f"{worker}-b{k}", f"{worker}-s{k}",
                                 bad, 4.0))
    rows.extend(extra)
    return rows


def test_qc_report_statuses_and_diagnostics():
    rows = (worker_rows("good", [(80, 20), (70, 30), (90, 10), (60, 50), (75, 35), (85, 45)], hits=2)
            + worker_rows("four", [(80, 20), (70, 30), (90, 10), (60, 50)])
            + worker_rows("flat", [(50, 50)] * 6)
            + worker_rows("bad", [(20, 80), (30, 70), (10, 90), (50, 60), (35, 75), (45, 85)]))
    rows.append(RatingRecord("g", "good", "good-h0", "S1", "q0", "REPEAT", "good-r0", "good-s0", 78, 3.0))
    rows.append(RatingRecord("g", "good", "good-h0", "S1", "q2", "REPEAT", "good-r2", "good-s2", 90, 3.0))
    rows.append(RatingRecord("g", "good", "good-h1", "S1", "q1", "REF", "good-f1", "good-s1", 99, 3.0))
    report = quality_control(RatingsTable.from_records(rows))["g"]
    by = {w.worker: w for w in report.workers}
    good = by["good"]
    assert good.passed and good.status == "passed" and good.p_method == "exact"
    assert good.pvalue == pytest.approx(1 / 64)
    assert (good.n_pairs, good.n_nonzero_pairs, good.n_hits, good.single_hit) == (6, 6, 2, False)
    assert good.mean_original == pytest.approx(np.mean([80, 70, 90, 60, 75, 85]))
    assert good.mean_degraded == pytest.approx(np.mean([20, 30, 10, 50, 35, 45]))
    assert good.n_repeat_pairs == 2 and good.repeat_mean_abs_diff == pytest.approx(1.0)
    assert good.repeat_correlation == pytest.approx(1.0)
    assert (good.n_ref, good.mean_ref) == (1, 99.0)
    assert sum(good.hit_seconds) == pytest.approx(12 * 4.5 + 3 * 3.0)
    assert by["four"].status == "too_few_pairs" and not by["four"].passed
    assert "at least 5" in by["four"].reason
    assert by["four"].single_hit
    assert by["flat"].status == "zero_variance" and "identical" in by["flat"].reason
    assert by["flat"].longest_identical_run == 12
    assert by["bad"].status == "failed" and by["bad"].pvalue > 0.5
    assert report.passed_workers == {"good"}


def test_qc_compat_methods_record_their_settings():
    rows = worker_rows("w", [(80, 20), (70, 30), (90, 10), (60, 50), (75, 35), (85, 45)])
    for method in (QCMethod.ttest, QCMethod.mannwhitney):
        result = analyze(RatingsTable.from_records(rows), qc=QCPolicy(method))
        assert result.settings.qc.policy.method is method
        worker = result.qc["g"].workers[0]
        assert worker.passed and worker.method == method
    assert "p <= alpha" == analyze(RatingsTable.from_records(rows), qc=QCPolicy(QCMethod.ttest)).settings.qc.pass_rule
    with pytest.raises(ValueError, match="unknown quality-control method"):
        analyze(RatingsTable.from_records(rows), qc=QCPolicy("magic"))  # type: ignore[arg-type]


# --- z-scores and system scores ------------------------------------------------------------------

def test_z_scores_use_all_ratings_but_count_only_system_and_repeat():
    rows = [
        RatingRecord("g", "a", "h", "S1", "q1", "SYSTEM", "1", "", 60, 1.0),
        RatingRecord("g", "a", "h", "S2", "q1", "SYSTEM", "2", "", 40, 1.0),
        RatingRecord("g", "a", "h", "S1", "q1", "REPEAT", "3", "1", 70, 1.0),
        RatingRecord("g", "a", "h", "S2", "q1", "BAD_REF", "4", "2", 10, 1.0),
        RatingRecord("g", "b", "h2", "S1", "q1", "SYSTEM", "5", "", 90, 1.0),
        RatingRecord("g", "b", "h2", "S2", "q2", "SYSTEM", "6", "", 30, 1.0),
        RatingRecord("g", "c", "h3", "S1", "q9", "SYSTEM", "7", "", 50, 1.0),  # sd 0: excluded
    ]
    scores = compute_scores(RatingsTable.from_records(rows))["g"]
    a = np.array([60, 40, 70, 10.0])
    za = (a - a.mean()) / a.std(ddof=1)
    b = np.array([90, 30.0])
    zb = (b - b.mean()) / b.std(ddof=1)
    s1 = scores.by_system()["S1"]
    # S1 item q1: ratings a:60, a:70 (repeat), b:90 → one item
    assert (s1.n_ratings, s1.n_items) == (3, 1)
    assert s1.raw == pytest.approx((60 + 70 + 90) / 3)
    assert s1.z == pytest.approx((za[0] + za[2] + zb[0]) / 3)
    s2 = scores.by_system()["S2"]
    assert (s2.n_ratings, s2.n_items) == (2, 2)
    assert s2.z == pytest.approx((za[1] + zb[1]) / 2)  # mean of item means
    excluded = {w.worker: w for w in scores.workers}["c"]
    assert not excluded.included and "standard deviation 0" in excluded.reason
    only_a = compute_scores(RatingsTable.from_records(rows), {"g": frozenset({"a"})})["g"]
    assert only_a.by_system()["S1"].n_ratings == 2


# --- rank-sum test and clusters ----------------------------------------------------------------

def test_rank_sum_matches_scipy_asymptotic_with_ties():
    rng = np.random.default_rng(3)
    a = np.round(rng.normal(0.3, 1, 80), 1)
    b = np.round(rng.normal(0, 1, 95), 1)
    ours = rank_sum_greater(a, b)
    ref = stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic", use_continuity=True)
    assert ours.statistic == ref.statistic
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    p = pairwise_pvalues([a, b])
    assert math.isnan(p[0, 0]) and p[0, 1] == pytest.approx(ours.pvalue, rel=1e-15)
    assert p[1, 0] == pytest.approx(rank_sum_greater(b, a).pvalue, rel=1e-15)


def test_rank_sum_degenerate_inputs():
    assert math.isnan(rank_sum_greater([], [1.0]).pvalue)
    assert math.isnan(rank_sum_greater([1.0, 1.0], [1.0]).pvalue)  # all tied: no variance


def test_clusters_follow_the_running_minimum_rule():
    assert clusters_from_wins("ABCD", [3, 2, 1, 0]) == (("A",), ("B",), ("C",), ("D",))
    assert clusters_from_wins("ABCD", [3, 1, 1, 0]) == (("A",), ("B", "C"), ("D",))
    assert clusters_from_wins("ABCD", [2, 3 - 1, 0, 0]) == (("A", "B"), ("C", "D"))
    assert clusters_from_wins("ABC", [0, 0, 0]) == (("A", "B", "C"),)


def test_wins_need_higher_z_but_plain_wins_do_not():
    rng = np.random.default_rng(0)
    # B has a higher mean z (outliers) but A wins on ranks.
    a = rng.normal(0.2, 0.1, 300)
    b = np.concatenate([rng.normal(0.0, 0.1, 280), np.full(20, 6.0)])
    ranking = rank_systems({"A": a, "B": b}, {"A": float(a.mean()), "B": float(b.mean())})
    assert ranking.systems == ("B", "A")
    assert ranking.pvalue("A", "B") < 0.05
    assert ranking.wins == (0, 0) and ranking.plain_wins == (0, 1)
    assert ranking.clusters == (("B", "A"),)
    assert ranking.rank_ranges == ((1, 2), (1, 2))


# --- reliability and planning --------------------------------------------------------------------

def test_williams_check_values_of_spec():
    first = williams_test(0.65, 0.55, 0.30, 50)
    assert first.pvalue == pytest.approx(0.2093, abs=5e-5)
    second = williams_test(0.9, 0.8, 0.85, 20)
    assert second.statistic == pytest.approx(1.729, abs=5e-4)
    assert second.pvalue == pytest.approx(0.0509, abs=5e-5)


def test_self_replication():
    a = {"S1": 0.5, "S2": 0.2, "S3": -0.1, "S4": -0.6}
    b = {"S1": 0.45, "S2": 0.25, "S3": -0.2, "S4": -0.5, "only-b": 1.0}
    result = self_replication(a, b)
    assert result.systems == ("S1", "S2", "S3", "S4")
    assert result.correlation.spearman == pytest.approx(1.0)
    assert result.correlation.pearson == pytest.approx(np.corrcoef([0.5, 0.2, -0.1, -0.6],
                                                                   [0.45, 0.25, -0.2, -0.5])[0, 1])
    with pytest.raises(ValueError, match="at least 3"):
        self_replication({"S1": 0.1}, {"S1": 0.2})


def test_planning_412_items_for_d_02():
    plan = sample_size_normal(0.2)
    assert plan.n_per_system == 412
    assert plan.n_normal == 411
    assert plan.n_t_test == pytest.approx(393.4057, abs=2e-3)  # R: power.t.test(delta=.2, power=.8)
    assert sample_size_normal(0.5).n_per_system < sample_size_normal(0.2).n_per_system
    with pytest.raises(ValueError):
        sample_size_normal(0)


def test_planning_by_simulation_agrees_roughly_with_the_formula():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.5, 1, 3000), rng.normal(0.0, 1, 3000)
    simulated = sample_size_by_simulation(a, b, repetitions=200, seed=1)
    formula = sample_size_normal(0.5, alternative="one-sided").n_per_system
    assert simulated.n_per_system is not None
    assert 0.6 * formula <= simulated.n_per_system <= 1.5 * formula
    assert simulated.power_at_n >= 0.8


def test_separation_progress_on_a_simulated_campaign():
    from da_platform.simulation.profiles import honest_and_bad_crowd, simulate_campaign

    sim = simulate_campaign({"A": 80, "B": 60, "C": 58}, honest_and_bad_crowd(12, seed=3), n_questions=40, seed=4)
    group = analyze(sim.table).groups["sim"]
    progress = separation_progress(group.ranking, group.scores)
    assert [(p.better, p.worse) for p in progress] == list(zip(group.ranking.systems, group.ranking.systems[1:]))
    first = progress[0]
    assert first.better == "A" and first.separated and first.more_items == 0
    last = progress[-1]
    if not last.separated and last.effect_size > 0:
        assert last.more_items > 0 and last.more_ratings > 0


def test_sample_size_for_a_huge_effect_is_the_smallest_experiment() -> None:
    from analysis.power import sample_size_normal

    huge = sample_size_normal(10.0)
    assert huge.n_t_test == 2.0  # two items per system already give the power
    assert huge.n_per_system == 3  # 2 / (3 / pi), rounded up
    assert sample_size_normal(4.0).n_per_system <= sample_size_normal(2.0).n_per_system
