"""The next wave's plan (analysis.sequential_plan): the mix of systems, checked against hand-solved cases and
against the moments of pooled samples; the stopping reasons."""
from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.ranking import Ranking
from analysis.sequential import Look, SequentialDesign, sequential_decisions
from analysis.sequential_plan import (
    Moments,
    StopReason,
    WaveDesign,
    WaveMix,
    first_wave,
    plan_next_wave,
    rating_moments,
    wave_mix,
)
from analysis.table import RatingsTable

# A in the middle, B below, C above, equal shares in the fixed design: a fixed HIT has mean 50 and variance
# 100 + (900 + 0 + 900)/3 = 700.
THREE = {"A": Moments(50.0, 100.0), "B": Moments(20.0, 100.0), "C": Moments(80.0, 100.0)}
EQUAL = {"A": 1.0, "B": 1.0, "C": 1.0}


def test_everything_in_contention_or_the_balanced_mix_is_the_fixed_design():
    for contention, mix in ((["A", "B", "C"], WaveMix.matched), (["A"], WaveMix.balanced)):
        found = wave_mix(contention, THREE, EQUAL, mix=mix)
        assert found.shares == pytest.approx({"A": 1 / 3, "B": 1 / 3, "C": 1 / 3})
        assert (found.target_mean, found.target_sd) == pytest.approx((50.0, math.sqrt(700)))


def test_the_matched_mix_takes_as_much_of_the_middle_system_as_the_spread_allows():
    # By hand: with u for A and (1 − u) shared by B and C, the variance about 50 is 100u + 1000(1 − u); it may
    # fall 2·sd·0.5 = √700 below 700, so u = (1000 − 700 + √700) / 900 = 0.36273.
    found = wave_mix(["A"], THREE, EQUAL, floor=0.0, tolerance=0.5)
    assert found.contention_share == pytest.approx((300 + math.sqrt(700)) / 900, abs=1e-6)
    assert abs(found.mean - 50) <= 0.5 + 1e-9
    assert abs(found.sd - math.sqrt(700)) <= 0.5 + 0.01


def test_with_no_tolerance_the_middle_system_keeps_its_fixed_share():
    found = wave_mix(["A"], THREE, EQUAL, floor=0.0, tolerance=0.0)
    assert found.contention_share == pytest.approx(1 / 3, abs=1e-6)


def test_the_contention_mix_gives_everything_above_the_floor_to_the_contention():
    found = wave_mix(["A"], THREE, EQUAL, mix=WaveMix.contention, floor=0.3)
    assert found.shares == pytest.approx({"A": 1 - 0.2, "B": 0.1, "C": 0.1})


def test_a_matched_mix_has_the_fixed_designs_mean_and_sd_in_pooled_samples():
    # Independent check: draw each system's ratings, pool them in the mix's proportions, compare the pooled
    # sample's mean and sd with a pool in the fixed design's proportions.
    rng = np.random.default_rng(7)
    samples = {"W": rng.normal(90, 8, 40_000), "X": rng.normal(55, 15, 40_000), "Y": rng.normal(45, 15, 40_000),
               "Z": rng.normal(10, 6, 40_000)}
    moments = {s: Moments(float(v.mean()), float(v.var(ddof=1))) for s, v in samples.items()}
    shares = {"W": 1.0, "X": 1.0, "Y": 1.0, "Z": 1.0}
    found = wave_mix(["X", "Y"], moments, shares, floor=0.1, tolerance=0.5)
    assert found.contention_share > 0.5  # the two middle systems get more than their fixed half

    def pooled(weights: dict[str, float]) -> np.ndarray:
        return np.concatenate([samples[s][: int(round(weights[s] * 40_000))] for s in samples])

    fixed, wave = pooled({s: 0.25 for s in samples}), pooled(dict(found.shares))
    assert abs(wave.mean() - fixed.mean()) < 0.5 + 0.3
    assert abs(wave.std() - fixed.std()) < 0.5 + 0.3
    assert all(found.shares[s] >= 0.1 * 0.25 - 1e-12 for s in samples)  # the floor


def test_a_top_system_in_contention_is_balanced_by_the_lowest():
    # A (90) in contention, B (50) and C (40), variances 50: the fixed mean is 60 and the variances about it are
    # 950, 150, 450, so the fixed one is 1550/3 and its sd 22.73, which is also the variance's tolerance
    # (2 · sd · 0.5). With wC = 1 − u − wB: the mean 40 + 50u + 10wB ≤ 60.5 gives wB ≤ 2.05 − 5u; the variance
    # 450 + 500u − 300wB ≤ 1550/3 + sd gives wB ≥ (500u − 200/3 − sd)/300. Both hold up to
    # 2000u = 615 + 200/3 + sd.
    moments = {"A": Moments(90.0, 50.0), "B": Moments(50.0, 50.0), "C": Moments(40.0, 50.0)}
    sd = math.sqrt(1550 / 3)
    found = wave_mix(["A"], moments, EQUAL, floor=0.0, tolerance=0.5)
    assert found.contention_share == pytest.approx((615 + 200 / 3 + sd) / 2000, abs=1e-6)
    assert found.shares["C"] > found.shares["B"]


def test_unknown_systems_and_no_moments_are_refused():
    with pytest.raises(ValueError, match="does not rate: Z"):
        wave_mix(["Z"], THREE, EQUAL)
    with pytest.raises(ValueError, match="no system has ratings"):
        wave_mix(["A"], {}, EQUAL)


def test_rating_moments_pool_every_slot_type_of_a_systems_items():
    table = RatingsTable.from_columns(
        group=["g"] * 6, worker=["w1", "w1", "w1", "w2", "w2", "w2"], hit=["h1"] * 3 + ["h2"] * 3,
        system=["A", "A", "B", "A", "B", "B"], item=["q1", "q1", "q1", "q2", "q2", "q3"],
        slot_type=["SYSTEM", "BAD_REF", "SYSTEM", "SYSTEM", "SYSTEM", "REF"],
        slot=["s1", "s2", "s3", "s4", "s5", "s6"], original_slot=["", "s1", "", "", "", "s5"],
        score=[80, 30, 50, 70, 40, 100])
    found = rating_moments(table, "g")
    assert found["A"].mean == pytest.approx(60.0) and found["A"].variance == pytest.approx(700.0)  # 80, 30, 70
    assert found["B"].mean == pytest.approx(190 / 3) and found["B"].variance == pytest.approx(
        np.var([50, 40, 100], ddof=1))
    only_w2 = rating_moments(table, "g", frozenset({"w2"}))
    assert only_w2["A"] == Moments(70.0, 0.0)
    assert rating_moments(table, "other") == {}


def two_system_look(p_ab: float, n: int) -> Look:
    p = np.array([[np.nan, p_ab], [1 - p_ab, np.nan]])
    ranking = Ranking(("A", "B"), (0.3, 0.1), p, 0.05, (0, 0), (0, 0), (0, 0), ((1, 2), (1, 2)), (("A", "B"),))
    return Look.of(1, ranking, {"A": n, "B": n})


def test_the_plan_stops_when_settled_futile_or_out_of_budget_and_otherwise_rates_the_contention():
    design = WaveDesign(first_wave=0.25, wave=0.2, futility=0.1)
    sequential = SequentialDesign({"A": 400, "B": 400})
    moments = {"A": Moments(60.0, 300.0), "B": Moments(55.0, 300.0)}
    kwargs = {"balanced": {"A": 1.0, "B": 1.0}, "reference_hits": 20, "wave": 2}
    decided = sequential_decisions([two_system_look(1e-12, 100)], sequential)
    assert plan_next_wave(decided, moments, design, hits_so_far=5, **kwargs).stop is StopReason.settled
    hopeless = sequential_decisions([two_system_look(0.5, 100)], sequential)  # Z = 0: no drift at all
    assert plan_next_wave(hopeless, moments, design, hits_so_far=5, **kwargs).stop is StopReason.futile
    promising = sequential_decisions([two_system_look(0.05, 100)], sequential)
    assert plan_next_wave(promising, moments, design, hits_so_far=20, **kwargs).stop is StopReason.budget
    plan = plan_next_wave(promising, moments, design, hits_so_far=5, **kwargs)
    assert (plan.stop, plan.hits, plan.contention) == (None, 4, ("A", "B"))  # 0.2 × 20 HITs
    near_end = plan_next_wave(promising, moments, design, hits_so_far=18, **kwargs)
    assert near_end.hits == 2  # what is left of the budget


def test_the_first_wave_is_the_fixed_mix():
    plan = first_wave(WaveDesign(first_wave=0.3), balanced={"A": 300.0, "B": 100.0}, reference_hits=20)
    assert (plan.wave, plan.hits) == (1, 6)
    assert plan.shares == pytest.approx({"A": 0.75, "B": 0.25})


@pytest.mark.parametrize(("field", "value", "message"), [
    ("first_wave", 0.0, "first_wave must be positive"), ("floor", 1.5, "floor must lie"),
    ("futility", 1.0, "futility must lie"), ("first_wave", 2.0, "larger than the budget"),
    ("tolerance", -1.0, "tolerance must be")])
def test_bad_designs_are_refused(field, value, message):
    with pytest.raises(ValueError, match=message):
        WaveDesign(**{field: value})
