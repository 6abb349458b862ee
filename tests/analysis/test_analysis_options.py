"""Ties that stay ties, the sd-0 rules, WMT's numeric path, and the QC options (method none, scope, alpha)."""
from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod, QCScope
from analysis.quality import quality_control
from analysis.report import analyze
from analysis.scores import ScoreSettings, compute_scores
from analysis.summation import canonical_means, r_means, significant
from analysis.table import RatingRecord, RatingsTable


def _tied_table(seed: int) -> list[RatingRecord]:
    """Three systems whose items are rated by the same workers with the same scores in a shuffled
    order, so that their item z-scores are equal in exact arithmetic; a fourth system differs."""
    rng = random.Random(seed)
    rows = []
    workers = [f"w{i}" for i in range(7)]
    for q in range(40):
        raters = rng.sample(workers, 3)
        scores = [rng.randrange(0, 101) for _ in raters]
        for system in ("A", "B", "C"):
            pairs = list(zip(raters, scores))
            rng.shuffle(pairs)
            rows += [RatingRecord("g", w, f"h-{w}", system, f"q{q}", "SYSTEM", f"{system}{q}{w}", "", s, 1.0)
                     for w, s in pairs]
        rows += [RatingRecord("g", w, f"h-{w}", "D", f"q{q}", "SYSTEM", f"D{q}{w}", "", rng.randrange(0, 101), 1.0)
                 for w in raters]
    return rows


def _exact_item_z(rows: list[RatingRecord]) -> dict[tuple[str, str], float]:
    """Item z as a float computed from exact fractions (the sd is irrational: compare via its square)."""
    by_worker: dict[str, list[int]] = {}
    for r in rows:
        by_worker.setdefault(r.worker, []).append(r.score)
    stats = {}
    for w, xs in by_worker.items():
        mean = Fraction(sum(xs), len(xs))
        var = sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)
        stats[w] = (mean, math.sqrt(var))
    items: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        mean, sd = stats[r.worker]
        items.setdefault((r.system, r.item), []).append(float(r.score - mean) / sd)
    return {k: math.fsum(v) / len(v) for k, v in items.items()}


def test_item_scores_equal_in_exact_arithmetic_are_identical_and_tie():
    rows = _tied_table(0)
    table = RatingsTable.from_records(rows)
    items = compute_scores(table)["g"].items
    by_key = {(s, i): z for s, i, z in zip(items.system, items.item, items.z)}
    for q in range(40):
        assert by_key[("A", f"q{q}")] == by_key[("B", f"q{q}")] == by_key[("C", f"q{q}")]  # bit-identical
    exact = _exact_item_z(rows)
    assert max(abs(by_key[k] - v) for k, v in exact.items()) < 1e-12
    ranking = analyze(table).groups["g"].ranking
    # A, B and C have the same item scores: every comparison between them is a complete tie.
    u_centre = 40 * 40 / 2
    from analysis.ranking import rank_sum_greater

    assert rank_sum_greater(items.z_of("A"), items.z_of("B")).statistic == u_centre
    assert ranking.pvalue("A", "B") == ranking.pvalue("B", "A")


@pytest.mark.parametrize("seed", range(5))
def test_permuted_summation_orders_give_identical_p_values(seed):
    rows = _tied_table(1)
    reference = analyze(RatingsTable.from_records(rows)).groups["g"]
    shuffled = list(rows)
    random.Random(seed).shuffle(shuffled)
    again = analyze(RatingsTable.from_records(shuffled)).groups["g"]
    assert again.ranking.systems == reference.ranking.systems
    assert np.array_equal(again.ranking.pvalues, reference.ranking.pvalues, equal_nan=True)
    assert [s.z for s in again.scores.systems] == [s.z for s in reference.scores.systems]


def test_canonical_means_do_not_depend_on_order_where_plain_sums_do():
    values = np.array([0.1, 0.2, 0.3, 1e16, -1e16, 0.7])
    index = np.zeros(len(values), dtype=np.int64)
    results = set()
    plain = set()
    for seed in range(50):
        order = np.random.default_rng(seed).permutation(len(values))
        results.add(float(canonical_means(index[order], values[order], 1)[0]))
        plain.add(float(np.bincount(index, weights=values[order])[0]))
    assert len(results) == 1 and len(plain) > 1


def test_r_means_is_an_extended_precision_sum_with_a_correction_pass():
    values = np.array([1e16, 1.0, -1e16, 3.0])
    # in double: (1e16 + 1) - 1e16 = 0, so a plain left-to-right mean is 0.75; long double keeps the 1
    assert r_means(np.zeros(4, dtype=np.int64), values, 1)[0] == 1.0
    assert list(significant(np.array([1 / 3, 2 / 3 * 1e-5]), 7)) == [0.3333333, 6.666667e-06]


def _sd_zero_rows() -> list[RatingRecord]:
    rows = []
    for q, (a, b) in enumerate([(80, 60), (40, 70), (90, 20)]):
        rows.append(RatingRecord("g", "var", "h1", "S1", f"q{q}", "SYSTEM", f"v1{q}", "", a, 1.0))
        rows.append(RatingRecord("g", "var", "h1", "S2", f"q{q}", "SYSTEM", f"v2{q}", "", b, 1.0))
    rows.append(RatingRecord("g", "flat", "h2", "S1", "q9", "SYSTEM", "f1", "", 50, 1.0))
    rows.append(RatingRecord("g", "flat", "h2", "S2", "q0", "SYSTEM", "f2", "", 50, 1.0))
    return rows


def test_raters_with_sd_zero_under_each_rule():
    table = RatingsTable.from_records(_sd_zero_rows())
    exclude = compute_scores(table)["g"].by_system()
    raw_only = compute_scores(table, settings=ScoreSettings(sd_zero="raw-only"))["g"].by_system()
    zero = compute_scores(table, settings=ScoreSettings(sd_zero="zero"))["g"].by_system()
    var = np.array([80, 60, 40, 70, 90, 20.0])
    z = (var - var.mean()) / var.std(ddof=1)
    z1, z2 = z[0::2], z[1::2]
    assert (exclude["S1"].n_ratings, exclude["S1"].n_items) == (3, 3)
    assert exclude["S1"].z == pytest.approx(z1.mean())
    # raw-only (WMT21): flat's ratings count in raw and N, not in z (item q9 has no z at all)
    assert (raw_only["S1"].n_ratings, raw_only["S1"].n_items) == (4, 4)
    assert raw_only["S1"].raw == pytest.approx((80 + 40 + 90 + 50) / 4)
    assert raw_only["S1"].z == pytest.approx(z1.mean())
    assert raw_only["S2"].raw == pytest.approx(((60 + 50) / 2 + 70 + 20) / 3)
    assert raw_only["S2"].z == pytest.approx(z2.mean())
    # zero (WMT22): flat's ratings are z = 0
    assert zero["S1"].z == pytest.approx((z1.sum() + 0) / 4)
    assert zero["S2"].z == pytest.approx(((z2[0] + 0) / 2 + z2[1] + z2[2]) / 3)
    result = analyze(table, scores=ScoreSettings(sd_zero="raw-only"))
    assert result.groups["g"].ranking.systems  # items without z are left out of the test, not NaN in it
    assert not any(e.worker == "flat" for e in result.exclusions)
    excluded = analyze(table).exclusions
    assert [(e.worker, e.excluded_by) for e in excluded] == [("flat", "standard deviation 0")]


def _qc_rows(groups: tuple[str, ...], pairs_per_group: int) -> list[RatingRecord]:
    """Worker 'w' scores degraded answers 30 or more lower; 'x' scores them higher (fails QC)."""
    rows = []
    for g in groups:
        for worker, drop in (("w", 30), ("x", 0)):
            for k in range(pairs_per_group):
                score = 50 + 7 * k
                rows.append(RatingRecord(g, worker, f"{g}-{worker}", "S", f"q{k}", "SYSTEM", f"{k}", "", score, 1.0))
                rows.append(RatingRecord(g, worker, f"{g}-{worker}", "T", f"q{k}", "SYSTEM", f"t{k}", "", 40 + k, 1.0))
                degraded = score - drop - k if drop else score + 1 + k
                rows.append(RatingRecord(g, worker, f"{g}-{worker}", "S", f"q{k}", "BAD_REF", f"b{k}", f"{k}",
                                         degraded, 1.0))
    return rows


def test_qc_scope_worker_pools_pairs_over_groups():
    table = RatingsTable.from_records(_qc_rows(("en-de", "en-fr"), 3))
    per_group = quality_control(table)
    assert {(g, w.worker): w.status for g, r in per_group.items() for w in r.workers} == {
        ("en-de", "w"): "too_few_pairs", ("en-de", "x"): "too_few_pairs",
        ("en-fr", "w"): "too_few_pairs", ("en-fr", "x"): "too_few_pairs"}
    pooled = quality_control(table, QCPolicy(scope=QCScope.worker))
    statuses = {(g, w.worker): w.status for g, r in pooled.items() for w in r.workers}
    assert statuses[("en-de", "w")] == statuses[("en-fr", "w")] == "passed"
    assert statuses[("en-de", "x")] == "failed"
    w = next(w for w in pooled["en-de"].workers if w.worker == "w")
    assert w.n_pairs == 3 and "pooled over all groups: 6" in w.reason  # diagnostics per group, verdict pooled
    assert w.pvalue == pytest.approx(1 / 64)  # 6 positive differences, all distinct: exact p = 2^-6


def test_qc_none_keeps_everyone_and_qc_alpha_is_separate_from_alpha():
    table = RatingsTable.from_records(_qc_rows(("g",), 6))
    off = analyze(table, qc=QCPolicy(QCMethod.none))
    assert all(w.passed and w.status == "not_quality_controlled" for w in off.groups["g"].qc.workers)
    assert not off.exclusions and "quality control off" in off.warnings[0]
    assert off.settings.qc.policy.method is QCMethod.none
    strict = analyze(table, qc=QCPolicy(alpha=0.01), alpha=0.2)
    assert strict.settings.qc.policy.alpha == 0.01
    assert (strict.settings.alpha, strict.groups["g"].ranking.alpha) == (0.2, 0.2)
    # w's exact p is 1/64 = 0.0156: passes at 0.05, fails at 0.01
    assert analyze(table).groups["g"].qc.passed_workers == frozenset({"w"})
    assert strict.groups["g"].qc.passed_workers == frozenset()
    assert {e.worker for e in strict.exclusions} == {"w", "x"}


def test_decision_exclusions_are_applied_and_reported():
    table = RatingsTable.from_records(_qc_rows(("g",), 6))
    result = analyze(table, qc=QCPolicy(QCMethod.none), excluded={"x": "asked to withdraw"})
    assert [(e.worker, e.excluded_by, e.reason) for e in result.exclusions] == [("x", "decision", "asked to withdraw")]
    assert {w.worker for w in result.groups["g"].qc.workers} == {"w"}
    assert result.excluded("decision") == {"g": {"x": "asked to withdraw"}}
