"""The pooled per-worker check test (analysis.checks, QC method "pooled"): hand-computed p-values, one
verdict per worker, and its size under raters whose score does not depend on what is shown."""
from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.checks import directional_differences, pooled_test, repeat_consistency
from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod, QCStatus
from analysis.quality import quality_control
from analysis.report import analyze
from analysis.table import RatingRecord, RatingsTable
from da_platform.simulation.profiles import WorkerProfile, simulate_campaign, systems_evenly_spaced


def test_repeat_consistency_by_hand():
    # Ordinary scores 0, 50, 100; the repeat is scored 50. Its original at 50 is at distance 0: v = 2*0 + 1 = 1.
    # Had the original been 0 or 100 (distance 50): v = 2*1 + 2 = 4. Each equally likely: P(v <= 1) = 1/3.
    assert repeat_consistency([50], [50], [0, 50, 100]) == pytest.approx(1 / 3)
    assert repeat_consistency([0], [50], [0, 50, 100]) == 1.0
    # Two repeats, each with P(v <= its value) = 1/3 and values {1, 4, 4}: P(sum <= 2) = 1/9.
    assert repeat_consistency([50, 50], [50, 50], [0, 50, 100]) == pytest.approx(1 / 9)
    assert math.isnan(repeat_consistency([], [], [1, 2]))


def test_directional_differences_point_the_way_a_person_scores():
    d = directional_differences(([80, 60], [20, 61]), ([90], [40]), ([30], [95]))
    assert d.tolist() == [60, -1, 50, 65]  # original - BAD_REF, original - MEANING, REF - original


def test_fisher_combination_by_hand():
    # Directional d = 10, 20, 5, 7, 3, -1: W+ = 21 - 1 = 20, P(W+ >= 20) = 2 / 2^6 = 0.03125.
    # With repeat p = 1/3: X = -2 (ln 0.03125 + ln 1/3) = 9.12870, chi-square(4) tail e^(-X/2) (1 + X/2).
    result = pooled_test(0.03125, 20.0, 6, [50], [50], [0, 50, 100])
    x = -2 * (math.log(0.03125) + math.log(1 / 3))
    assert result.statistic == pytest.approx(x)
    assert result.pvalue == pytest.approx(math.exp(-x / 2) * (1 + x / 2))
    assert result.pvalue == pytest.approx(0.0579620, abs=1e-7)
    alone = pooled_test(0.03125, 20.0, 6, [], [], [0, 50, 100])
    assert (alone.pvalue, alone.n_repeat) == (0.03125, 0)


def _one_hit(bad, meaning, ref, repeat, extra=()) -> RatingsTable:
    """One worker, one HIT: (original, check) score pairs per family, plus extra ordinary scores."""
    rows, n = [], 0

    def add(slot_type, score, original=""):
        nonlocal n
        n += 1
        rows.append(RatingRecord("g", "w", "h", "s", f"q{n}", slot_type, f"s{n}", original, score, 5.0))
        return f"s{n}"

    for kind, pairs in (("BAD_REF", bad), ("MEANING", meaning), ("REF", ref), ("REPEAT", repeat)):
        for original, check in pairs:
            add(kind, check, add("SYSTEM", original))
    for score in extra:
        add("SYSTEM", score)
    return RatingsTable.from_records(rows)


def test_one_worker_verdict_by_hand():
    # Directional: 80-20, 70-60, 90-85 (BAD_REF); 60-50 (MEANING); 100-40 (REF): d = 60, 10, 5, 10, 60, all
    # positive: W+ = 15 = the maximum, p = 1/32. No repeats: the pooled p is the directional one.
    table = _one_hit([(80, 20), (70, 60), (90, 85)], [(60, 50)], [(40, 100)], [])
    qc = quality_control(table, QCPolicy(QCMethod.pooled))["g"].workers[0]
    assert qc.status is QCStatus.passed and qc.pvalue == pytest.approx(1 / 32)
    assert "3 BAD_REF, 1 MEANING, 1 REF, 0 REPEAT pairs" in qc.reason
    # The published test alone has 3 pairs: too few.
    assert quality_control(table)["g"].workers[0].status is QCStatus.too_few_pairs
    few = _one_hit([(80, 20), (70, 70)], [], [(40, 100)], [])
    assert quality_control(few, QCPolicy(QCMethod.pooled))["g"].workers[0].status is QCStatus.too_few_pairs


def test_pooled_method_keeps_more_one_hit_readers_than_the_published_test():
    workers = {f"p{i}": WorkerProfile("honest", 0.0, 0.6, 18.0) for i in range(40)}
    campaign = simulate_campaign(systems_evenly_spaced(8, top=90, step=12), workers, n_questions=60, seed=4)
    pooled = analyze(campaign.table, qc=QCPolicy(QCMethod.pooled)).groups["sim"].qc
    published = analyze(campaign.table).groups["sim"].qc
    assert sum(w.passed for w in pooled.workers) > sum(w.passed for w in published.workers)
    assert pooled.settings.policy.method is QCMethod.pooled and "Fisher" in pooled.settings.test.distribution


def test_raters_whose_scores_ignore_the_text_pass_at_most_alpha_of_the_time():
    """The size: 400 one-HIT raters of four content-blind kinds; at alpha 0.05 the expected passes are 20,
    and 33 would be 3 standard errors above that."""
    rng = np.random.default_rng(12)
    workers = {f"random{i}": WorkerProfile("random") for i in range(200)}
    workers |= {f"high{i}": WorkerProfile("always_high") for i in range(200)}
    campaign = simulate_campaign(systems_evenly_spaced(8), workers, n_questions=100, seed=int(rng.integers(99)))
    report = quality_control(campaign.table, QCPolicy(QCMethod.pooled))["sim"]
    assert sum(w.passed for w in report.workers) <= 33
