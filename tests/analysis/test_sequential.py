"""The group sequential test over waves (analysis.sequential), checked against published boundaries, the exact
bivariate normal, Monte Carlo and hand-derived formulas."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analysis.ranking import Ranking, rank_systems
from analysis.sequential import (
    Look,
    PairState,
    SequentialDesign,
    Spending,
    classical_bounds,
    information,
    sequential_bounds,
    sequential_decisions,
    spent,
    stagewise_pvalue,
)

FIVE = [0.2, 0.4, 0.6, 0.8, 1.0]


# --- boundaries against published tables --------------------------------------------------------

def test_lan_demets_obrien_fleming_type_five_looks_matches_the_published_boundaries():
    # Five equally spaced looks, two-sided 0.05 (0.025 per side), Lan-DeMets O'Brien-Fleming-type spending:
    # 4.8769, 3.3569, 2.6803, 2.2898, 2.0310 as printed by R's ldbounds and gsDesign (sfLDOF) for this design.
    bounds = sequential_bounds(FIVE, 0.025, Spending.obrien_fleming)
    assert bounds.critical == pytest.approx([4.8769, 3.3569, 2.6803, 2.2898, 2.0310], abs=2e-4)
    assert bounds.cumulative[-1] == pytest.approx(0.025, abs=1e-12)


def test_lan_demets_pocock_type_five_looks_matches_the_published_boundaries():
    # The same with the Pocock-type function α ln(1 + (e − 1)t): 2.438, 2.427, 2.410, 2.397, 2.386.
    bounds = sequential_bounds(FIVE, 0.025, Spending.pocock)
    assert bounds.critical == pytest.approx([2.438, 2.427, 2.410, 2.397, 2.386], abs=1.5e-3)


@pytest.mark.parametrize(("looks", "pocock", "obrien_fleming"), [
    (1, 1.960, 1.960), (2, 2.178, 1.977), (3, 2.289, 2.004), (4, 2.361, 2.024), (5, 2.413, 2.040)])
def test_classical_designs_match_jennison_and_turnbull_tables_2_1_and_2_3(looks, pocock, obrien_fleming):
    # Jennison & Turnbull (2000) Table 2.1 (Pocock's C_P(K, 0.05)) and Table 2.3 (O'Brien-Fleming's C_B(K, 0.05)).
    assert classical_bounds(looks, 0.025, "pocock").critical == pytest.approx([pocock] * looks, abs=1e-3)
    flat = classical_bounds(looks, 0.025, "obrien-fleming")
    assert flat.critical[-1] == pytest.approx(obrien_fleming, abs=1e-3)
    assert flat.critical[0] == pytest.approx(obrien_fleming * math.sqrt(looks), abs=3e-3)


def test_one_look_is_the_fixed_test():
    # A single look at t = 1 spends all of α: the critical value of the ordinary one-sided test.
    bounds = sequential_bounds([1.0], 0.05)
    assert bounds.critical[0] == pytest.approx(stats.norm.isf(0.05), abs=1e-8)
    assert bounds.nominal[0] == pytest.approx(0.05, abs=1e-9)


# --- the recursion against independent computations -------------------------------------------

def test_two_looks_spend_what_the_bivariate_normal_says():
    fractions = [0.35, 1.0]
    bounds = sequential_bounds(fractions, 0.05, Spending.pocock)
    c1, c2 = bounds.critical
    rho = math.sqrt(fractions[0] / fractions[1])
    mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])
    # P(|Z1| < c1, |Z2| < c2) by the exact bivariate normal, then the two-sided size.
    inside = (mvn.cdf([c1, c2]) - mvn.cdf([-c1, c2]) - mvn.cdf([c1, -c2]) + mvn.cdf([-c1, -c2]))
    assert 1 - inside == pytest.approx(2 * 0.05, abs=2e-6)
    assert 2 * stats.norm.sf(c1) == pytest.approx(2 * 0.05 * math.log1p((math.e - 1) * 0.35), abs=1e-9)


def test_uneven_looks_keep_their_size_by_monte_carlo():
    fractions = [0.3, 0.55, 0.8, 1.0]
    bounds = sequential_bounds(fractions, 0.05)
    rng = np.random.default_rng(11)
    paths = 400_000
    increments = np.diff(np.r_[0.0, fractions])
    score = np.cumsum(rng.standard_normal((paths, len(fractions))) * np.sqrt(increments), axis=1)
    z = score / np.sqrt(fractions)
    crossed_up = (z >= np.array(bounds.critical)).any(axis=1)
    crossed = (np.abs(z) >= np.array(bounds.critical)).any(axis=1)
    se = math.sqrt(0.05 * 0.95 / paths)
    assert abs(crossed_up.mean() - 0.05) < 4 * se
    assert abs(crossed.mean() - 0.10) < 4 * math.sqrt(0.1 * 0.9 / paths)


def test_spending_functions_by_hand():
    # O'Brien-Fleming type at t = 1/4: 2 − 2Φ(Φ⁻¹(1 − α/2) / (1/2)), α = 0.05: z = 1.95996... → 2·Φ̄(3.91993).
    assert spent(0.25, 0.05) == pytest.approx(2 * stats.norm.sf(2 * 1.959963984540054), rel=1e-9)
    assert spent(1.0, 0.05) == pytest.approx(0.05, rel=1e-12)
    assert spent(0.5, 0.05, Spending.pocock) == pytest.approx(0.05 * math.log(1 + (math.e - 1) / 2), rel=1e-12)
    assert spent(0.0, 0.05) == 0.0


def test_stagewise_pvalue_at_the_first_look_is_the_ordinary_p_and_later_the_bivariate_normal():
    fractions = [0.5, 1.0]
    bounds = sequential_bounds(fractions, 0.05)
    assert stagewise_pvalue(bounds, 0, 3.1) == pytest.approx(stats.norm.sf(3.1), rel=1e-9)
    c1 = bounds.critical[0]
    z = 1.9
    rho = math.sqrt(0.5)
    mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])
    # P(Z1 ≥ c1) + P(|Z1| < c1, Z2 ≥ z)
    continuing = (stats.norm.cdf(c1) - stats.norm.cdf(-c1)) - (mvn.cdf([c1, z]) - mvn.cdf([-c1, z]))
    assert stagewise_pvalue(bounds, 1, z) == pytest.approx(stats.norm.sf(c1) + continuing, abs=2e-6)


@pytest.mark.parametrize("fractions", [[], [0.5, 0.4], [0.0, 1.0], [0.5, 1.2]])
def test_bad_fractions_are_refused(fractions):
    with pytest.raises(ValueError, match="information fractions|at least one look"):
        sequential_bounds(fractions, 0.05)


def test_bad_alpha_and_design_are_refused():
    with pytest.raises(ValueError, match="alpha"):
        spent(0.5, 0.7)
    with pytest.raises(ValueError, match="planned rating"):
        SequentialDesign({"A": 0, "B": 10})
    with pytest.raises(ValueError, match="information_ratio"):
        SequentialDesign({"A": 5, "B": 10}, information_ratio=0)


# --- decisions over looks ----------------------------------------------------------------------

def ranking(p_ab: float, z_a: float = 0.3, z_b: float = 0.1, alpha: float = 0.05) -> Ranking:
    """A two-system ranking whose one-sided p(A > B) is ``p_ab`` (and p(B > A) = 1 − p_ab)."""
    systems, z = (("A", "B"), (z_a, z_b)) if z_a >= z_b else (("B", "A"), (z_b, z_a))
    p = np.full((2, 2), np.nan)
    index = {s: i for i, s in enumerate(systems)}
    p[index["A"], index["B"]], p[index["B"], index["A"]] = p_ab, 1 - p_ab
    return Ranking(systems, z, p, alpha, (0, 0), (0, 0), (0, 0), ((1, 2), (1, 2)), (systems,))


DESIGN = SequentialDesign({"A": 400, "B": 400}, alpha=0.05)  # planned information 200


def test_a_pair_is_decided_at_the_look_whose_z_crosses_and_stays_decided():
    # Fractions 0.25 (n = 100 each: information 50 of 200) and 0.5 (200 each).
    bounds = sequential_bounds([0.25, 0.5], 0.05)
    z_first, z_second = bounds.critical[0] - 0.2, bounds.critical[1] + 0.1
    looks = [Look.of(1, ranking(stats.norm.sf(z_first)), {"A": 100, "B": 100}),
             Look.of(2, ranking(stats.norm.sf(z_second)), {"A": 200, "B": 200}),
             Look.of(3, ranking(0.4), {"A": 300, "B": 300})]
    result = sequential_decisions(looks, DESIGN)
    pair = result.decision("A", "B")
    assert (pair.state, pair.wave, pair.better, pair.first) == (PairState.decided, 2, "A", "A")
    assert pair.fraction == pytest.approx(0.5)
    assert pair.nominal == pytest.approx(stats.norm.sf(bounds.critical[1]), rel=1e-9)
    assert pair.pvalue == pytest.approx(stagewise_pvalue(bounds, 1, z_second), rel=1e-9)
    assert pair.pvalue < 0.05
    assert result.in_contention() == frozenset()


def test_the_better_system_must_also_have_the_higher_z():
    # The test crosses for A, but B has the higher z-score: no decision (the rule of wins).
    looks = [Look.of(1, ranking(1e-6, z_a=0.1, z_b=0.3), {"A": 400, "B": 400})]
    assert sequential_decisions(looks, DESIGN).decision("A", "B").state is PairState.undecided


def test_a_decision_for_the_second_system_counts_as_well():
    looks = [Look.of(1, ranking(1 - 1e-9, z_a=0.1, z_b=0.5), {"A": 400, "B": 400})]
    pair = sequential_decisions(looks, DESIGN).decision("A", "B")
    assert (pair.better, pair.first, pair.second) == ("B", "B", "A")


def test_a_look_without_new_information_is_no_look():
    same = {"A": 100, "B": 100}
    looks = [Look.of(1, ranking(0.3), same), Look.of(2, ranking(0.2), same)]
    pair = sequential_decisions(looks, DESIGN).decision("A", "B")
    assert [look.wave for look in pair.looks] == [1]
    assert pair.state is PairState.open
    # 101 ratings each: information 50.5 of 200, 0.25 % more than 50: less than 1 %, no look either, but the
    # campaign's last look counts (at t = 1).
    almost = [*looks, Look.of(3, ranking(0.2), {"A": 101, "B": 101})]
    assert [look.wave for look in sequential_decisions(almost, DESIGN).decision("A", "B").looks] == [1]
    closing = sequential_decisions(almost, DESIGN, final=True).decision("A", "B")
    assert [(look.wave, look.fraction) for look in closing.looks] == [(1, 0.25), (3, 1.0)]


def test_the_last_look_spends_what_is_left():
    # Stopping at t = 0.5 with a final look: the boundary of looks (0.25, 1.0), not of (0.25, 0.5).
    z = 1.9
    looks = [Look.of(1, ranking(0.3), {"A": 100, "B": 100}),
             Look.of(2, ranking(stats.norm.sf(z)), {"A": 200, "B": 200})]
    open_ = sequential_decisions(looks, DESIGN)
    final = sequential_decisions(looks, DESIGN, final=True)
    assert open_.decision("A", "B").state is PairState.open  # 1.9 is below the boundary at t = 0.5 (about 2.5)
    assert final.decision("A", "B").looks[-1].critical == pytest.approx(
        sequential_bounds([0.25, 1.0], 0.05).critical[1], rel=1e-9)
    assert final.decision("A", "B").state is PairState.decided
    assert final.final and final.settled


def test_an_undecided_pair_says_how_many_ratings_a_decision_would_need():
    # At t = 1 with Z = 1.0 (information 200): drift 1/√200; the final critical value c = Φ⁻¹(0.95); power 0.8:
    # information needed ((c + 0.8416) / drift)² = 200 (c + 0.8416)², per system twice that, less 400 each.
    looks = [Look.of(1, ranking(stats.norm.sf(1.0)), {"A": 400, "B": 400})]
    pair = sequential_decisions(looks, DESIGN).decision("A", "B")
    assert pair.state is PairState.undecided
    needed_information = 200 * (stats.norm.isf(0.05) + stats.norm.isf(0.2)) ** 2
    assert pair.more_ratings == math.ceil(2 * (2 * needed_information - 400))


def test_conditional_power_of_an_open_pair_by_hand():
    # t = 0.25, Z = 0.8: Φ((0.8/0.5 − c)/√0.75) with c the critical value of a last look after 0.25.
    looks = [Look.of(1, ranking(stats.norm.sf(0.8)), {"A": 100, "B": 100})]
    pair = sequential_decisions(looks, DESIGN).decision("A", "B")
    c = sequential_bounds([0.25, 1.0], 0.05).critical[1]
    assert pair.conditional_power == pytest.approx(stats.norm.cdf((1.6 - c) / math.sqrt(0.75)), rel=1e-9)
    result = sequential_decisions(looks, DESIGN)
    assert result.in_contention(futility=0.0) == {"A", "B"}
    assert result.in_contention(futility=pair.conditional_power + 0.01) == frozenset()


def test_decisions_from_real_rank_sum_tests_follow_the_ranking():
    rng = np.random.default_rng(3)
    a, b, c = rng.normal(0.5, 1, 300), rng.normal(0.0, 1, 300), rng.normal(0.02, 1, 300)
    full = rank_systems({"A": a, "B": b, "C": c}, {"A": a.mean(), "B": b.mean(), "C": c.mean()})
    design = SequentialDesign({"A": 300, "B": 300, "C": 300})
    result = sequential_decisions([Look.of(1, full, {"A": 300, "B": 300, "C": 300})], design, final=True)
    # One final look at t = 1 is the fixed ranking's rule: p < α and the higher z.
    for pair in result.pairs:
        i, j = full.systems.index(pair.first), full.systems.index(pair.second)
        fixed = full.pvalues[i, j] < 0.05 and full.z[i] > full.z[j]
        assert (pair.state is PairState.decided) == fixed
    assert information(300, 300) == 150


def test_a_system_the_design_does_not_plan_is_refused():
    looks = [Look.of(1, ranking(0.3), {"A": 100, "B": 100})]
    with pytest.raises(ValueError, match="plans no ratings for B"):
        sequential_decisions(looks, SequentialDesign({"A": 100}))
    with pytest.raises(ValueError, match="no look"):
        sequential_decisions([], DESIGN)
