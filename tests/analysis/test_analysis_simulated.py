"""Simulated campaigns with known truth: QC separates honest from bad workers, ranking recovers truth."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.report import analyze
from da_platform.simulation.profiles import (
    WorkerProfile,
    honest_and_bad_crowd,
    simulate_campaign,
    slot_quality,
    systems_evenly_spaced,
)


@pytest.fixture(scope="module")
def campaign():
    workers = honest_and_bad_crowd(400, 400, 100, 100, seed=11)
    return simulate_campaign(systems_evenly_spaced(6, top=80, step=6), workers, n_questions=300,
                             hits_per_worker=1, seed=12)


@pytest.fixture(scope="module")
def result(campaign):
    return analyze(campaign.table)


def test_hit_structure(campaign):
    table = campaign.table
    counts = table.describe()
    assert (counts["SYSTEM"], counts["REPEAT"], counts["BAD_REF"], counts["REF"]) == (70_000, 10_000, 10_000, 10_000)
    checks = table.original >= 0
    assert checks.sum() == 30_000
    # every check links to a SYSTEM rating by the same worker in the same HIT, of the same item
    orig = table.original[checks]
    assert (table.slot_type[orig] == 0).all()
    assert (table.hit.codes[orig] == table.hit.codes[checks]).all()
    assert (table.item.codes[orig] == table.item.codes[checks]).all()


def pass_rates(result, campaign):
    rates: dict[str, list[bool]] = {}
    for w in result.qc["sim"].workers:
        assert w.n_pairs == 10
        rates.setdefault(campaign.workers[w.worker].kind, []).append(w.passed)
    return {kind: float(np.mean(v)) for kind, v in rates.items()}


def test_qc_passes_honest_and_fails_random_and_constant(result, campaign):
    rates = pass_rates(result, campaign)
    assert rates["honest"] >= 0.95
    assert rates["random"] <= 0.05
    assert rates["constant"] == 0.0
    assert rates["always_high"] <= 0.10


def test_ranking_recovers_the_truth(result, campaign):
    ranking = result.groups["sim"].ranking
    assert ranking.systems == campaign.true_order
    # 6-point steps with ~1300 ratings per system separate every neighbour
    assert len(ranking.clusters) == len(ranking.systems)


def test_best_and_worst_systems_are_far_apart_in_z(campaign):
    with_qc = analyze(campaign.table).groups["sim"].scores.by_system()
    spread = with_qc["S01"].z - with_qc["S06"].z
    assert spread > 0.5


def test_compat_qc_methods_on_the_same_crowd(campaign):
    for method in (QCMethod.ttest, QCMethod.mannwhitney):
        rates = pass_rates(analyze(campaign.table, qc=QCPolicy(method)), campaign)
        assert rates["honest"] >= 0.9, method
        assert rates["constant"] == 0.0, method


def test_worker_profiles_rate_within_range():
    rng = np.random.default_rng(0)
    for kind in ("honest", "random", "constant", "always_high"):
        profile = WorkerProfile(kind, bias=5, scale=1.2, noise=15)
        scores = profile.rate_many(np.linspace(0, 100, 500), rng)
        assert scores.min() >= 0 and scores.max() <= 100
        assert isinstance(profile.rate(50.0, rng), int)
    assert WorkerProfile("constant", bias=10).rate(3.0, rng) == 60
    assert WorkerProfile("always_high").rate(0.0, rng) >= 90
    honest = WorkerProfile("honest", noise=0)
    assert honest.rate(80.0, rng) == 80
    assert honest.rate(slot_quality("BAD_REF", 80.0), rng) < 80
    assert slot_quality("REF", 10.0) > 90
    with pytest.raises(ValueError):
        WorkerProfile("sloppy")


def test_single_hit_and_multi_hit_workers_pool_pairs():
    workers = honest_and_bad_crowd(10, seed=2)
    sim = simulate_campaign({"A": 70, "B": 50}, workers, n_questions=200, hits_per_worker=3, seed=3)
    report = analyze(sim.table).qc["sim"]
    assert all(w.n_hits == 3 and not w.single_hit and w.n_pairs == 30 for w in report.workers)
    assert all(len(w.hit_seconds) == 3 and all(s > 0 for s in w.hit_seconds) for w in report.workers)
