"""The beyond_automatic signal (analysis.behaviour_signals): do a worker's ratings carry information beyond the
automatic scores? Hand-computed peer values and partial correlations, and what it flags."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analysis.behaviour_signals import (
    MAX_AUTOMATIC_P,
    behaviour_signals,
    beyond_automatic,
    beyond_tests,
    peer_values,
)
from analysis.evidence import OVERLAP_MEASURES, RatingEvidence
from analysis.grouping import group_by
from analysis.table import RatingsTable


def _table(scores: dict[str, list[int]], items: list[tuple[str, str]], automatic: list[float],
           judge: list[float] | None = None) -> RatingsTable:
    """Every worker rates the same ordinary items (system, question) in order; every overlap measure of item
    i is automatic[i] (so one control variable), the judge's score judge[i] if given."""
    columns: dict[str, list] = {c: [] for c in ("group", "worker", "hit", "system", "item", "slot_type", "slot",
                                                "original_slot", "score")}
    for worker, given in scores.items():
        for k, ((system, question), score) in enumerate(zip(items, given)):
            for column, value in (("group", "g"), ("worker", worker), ("hit", worker), ("system", system),
                                  ("item", question), ("slot_type", "SYSTEM"), ("slot", f"{worker}{k}"),
                                  ("original_slot", ""), ("score", score)):
                columns[column].append(value)
    n = len(columns["score"])
    evidence = RatingEvidence.empty(n, judges=0 if judge is None else 1)
    overlap = np.repeat(np.tile(np.asarray(automatic, dtype=float), len(scores))[:, None], len(OVERLAP_MEASURES), 1)
    judges = (np.tile(np.asarray(judge, dtype=float), len(scores))[:, None] if judge is not None
              else np.zeros((n, 0)))
    evidence = RatingEvidence(**{**{f: getattr(evidence, f) for f in evidence.__dataclass_fields__},
                                 "overlap": overlap, "judge": judges})
    return RatingsTable.from_columns(**columns, evidence=evidence)  # type: ignore[arg-type]


def _z(x):
    x = np.asarray(x, dtype=float)
    return (x - x.mean()) / x.std(ddof=1)


def test_peer_values_are_the_other_workers_mean_z_of_the_same_answer():
    items = [("A", "q1"), ("A", "q2"), ("B", "q3")]
    given = {"u": [10, 20, 60], "v": [50, 70, 90], "w": [0, 0, 30], "x": [40, 10, 100]}
    table = _table(given, items, [0.1, 0.5, 0.9])
    peers = peer_values(table, group_by(table.group.codes, table.worker.codes))
    z = {w: _z(s) for w, s in given.items()}
    assert peers[:3] == pytest.approx([(z["v"][k] + z["w"][k] + z["x"][k]) / 3 for k in range(3)])
    # z of u: mean 30, sd sqrt(700) -> q1: -20/26.4575 = -0.75593
    assert z["u"][0] == pytest.approx(-0.755929, abs=1e-6)
    # With only two others per answer (one of them could be a bot): the same system's answers instead.
    fewer = _table({k: given[k] for k in "uvw"}, items, [0.1, 0.5, 0.9])
    peers = peer_values(fewer, group_by(fewer.group.codes, fewer.worker.codes))
    system_a = (z["v"][0] + z["v"][1] + z["w"][0] + z["w"][1]) / 4
    assert peers[:3] == pytest.approx([system_a, system_a, (z["v"][2] + z["w"][2]) / 2])


def test_peer_values_fall_back_to_the_systems_answers_when_nobody_else_rated_the_answer():
    table = _table({"u": [10, 20, 60], "v": [50, 70, 90]}, [("A", "q1"), ("A", "q2"), ("B", "q3")], [0.1, 0.5, 0.9])
    # v rated other questions of the same systems: give v different questions
    columns = {name: getattr(table, name).values() for name in ("group", "worker", "hit", "system", "item", "slot")}
    columns["item"] = ["q1", "q2", "q3", "q4", "q5", "q6"]
    other = RatingsTable.from_columns(**columns, slot_type=["SYSTEM"] * 6, original_slot=[""] * 6,
                                      score=table.score.tolist(), evidence=table.evidence)
    peers = peer_values(other, group_by(other.group.codes, other.worker.codes))
    zv = _z([50, 70, 90])
    assert peers[0] == pytest.approx((zv[0] + zv[1]) / 2)  # u's q1 (system A): v's mean z on system A
    assert peers[2] == pytest.approx(zv[2])  # u's q3 (system B)


def test_the_test_is_the_rank_correlation_of_what_the_automatic_scores_leave():
    rng = np.random.default_rng(4)
    n = 30
    items = [(f"S{i % 3}", f"q{i}") for i in range(n)]
    automatic = rng.uniform(0, 1, n).round(3).tolist()
    truth = 100 * np.asarray(automatic) * 0.5 + rng.normal(0, 15, n)
    crowd = {f"p{k}": np.clip(np.rint(truth + rng.normal(0, 8, n)), 0, 100).astype(int).tolist() for k in range(4)}
    table = _table(crowd, items, automatic)
    workers = group_by(table.group.codes, table.worker.codes)
    test = beyond_tests(table, workers)[0]
    # Independently: what a quadratic in the one automatic score (all three overlap columns are equal here)
    # leaves of the worker's scores and of the crowd's values, by numpy's polyfit, and their Spearman r.
    x = np.asarray(crowd["p0"], dtype=float)
    y = peer_values(table, workers)[:n]
    zv = np.asarray(automatic)
    left_x = x - np.polyval(np.polyfit(zv, x, 2), zv)
    left_y = y - np.polyval(np.polyfit(zv, y, 2), zv)
    r = stats.spearmanr(left_x, left_y).statistic
    assert test.r == pytest.approx(r)
    df = n - 3 - 1  # n minus the regressors (1, z, z^2) minus one
    assert test.pvalue == pytest.approx(stats.t.sf(r * math.sqrt(df / (1 - r ** 2)), df))
    assert test.n == n


def test_a_rater_scoring_by_the_automatic_score_adds_nothing_and_people_do():
    rng = np.random.default_rng(8)
    n = 60
    items = [(f"S{i % 6}", f"q{i}") for i in range(n)]
    automatic = rng.uniform(0, 1, n)
    system_quality = np.array([90, 40, 70, 20, 60, 30])[[i % 6 for i in range(n)]]  # what overlap misses
    truth = 0.5 * system_quality + 50 * automatic
    people = {f"p{k}": np.clip(np.rint(truth + rng.normal(0, 10, n)), 0, 100).astype(int).tolist() for k in range(8)}
    bots = {f"b{k}": np.clip(np.rint(100 * automatic + rng.normal(0, 10, n)), 0, 100).astype(int).tolist()
            for k in range(2)}
    exact = {"exact": np.rint(100 * automatic).astype(int).tolist()}
    table = _table({**people, **bots, **exact}, items, np.round(automatic, 6).tolist())
    signals = {w: {s.name: s for s in v}["beyond_automatic"] for w, v in behaviour_signals(table)["g"].items()}
    assert all(signals[f"p{k}"].flagged is False for k in range(8))
    assert signals["b0"].flagged and signals["b1"].flagged and signals["exact"].flagged
    assert signals["b0"].value >= MAX_AUTOMATIC_P and "as a rater that scores by them" in signals["b0"].reason


def test_whether_people_can_be_told_from_bots_is_asked_of_the_workers_who_pass_the_checks():
    """A fifth of real workers' HITs carry no attention (lapses): counted in the crowd, 5 lapses beside 6 readers and
    4 overlap bots left fewer than half showing anything beyond the automatic scores (6 of 15), and the signal was
    withheld from everyone; the lapses fail the checks, and among those who pass (6 of 10) people can be told."""
    rng = np.random.default_rng(9)
    n = 60
    items = [(f"S{i % 6}", f"q{i}") for i in range(n)]
    automatic = rng.uniform(0, 1, n)
    system_quality = np.array([90, 40, 70, 20, 60, 30])[[i % 6 for i in range(n)]]
    truth = 0.5 * system_quality + 50 * automatic
    people = {f"p{k}": np.clip(np.rint(truth + rng.normal(0, 10, n)), 0, 100).astype(int).tolist() for k in range(6)}
    lapses = {f"l{k}": np.clip(np.rint(70 + rng.normal(0, 10, n)), 0, 100).astype(int).tolist() for k in range(5)}
    bots = {f"b{k}": np.clip(np.rint(100 * automatic + rng.normal(0, 10, n)), 0, 100).astype(int).tolist()
            for k in range(4)}
    table = _table({**people, **lapses, **bots}, items, np.round(automatic, 6).tolist())

    def beyond(checked=None):
        signals = behaviour_signals(table, checked)["g"]
        return {w: {s.name: s for s in v}["beyond_automatic"] for w, v in signals.items()}

    everyone = beyond()
    assert all(s.flagged is None for s in everyone.values())
    assert "of the group's workers show information" in everyone["b0"].reason
    passed = {"g": {**dict.fromkeys(people, True), **dict.fromkeys(lapses, False), **dict.fromkeys(bots, True)}}
    told = beyond(passed)
    assert all(told[f"b{k}"].flagged for k in range(4)) and all(told[f"p{k}"].flagged is False for k in range(6))
    assert all(told[f"l{k}"].flagged for k in range(5))  # (excluded by the checks already)


def test_a_judge_copier_is_flagged_only_once_the_judge_is_known():
    rng = np.random.default_rng(9)
    n = 60
    items = [(f"S{i % 6}", f"q{i}") for i in range(n)]
    overlap = rng.uniform(0, 1, n)
    truth = 60 * overlap + np.array([30, 0, 20, 5, 25, 10])[[i % 6 for i in range(n)]] + rng.normal(0, 12, n)
    judge = truth + rng.normal(0, 6, n)  # a judge that sees most of what people see
    people = {f"p{k}": np.clip(np.rint(truth + rng.normal(0, 8, n)), 0, 100).astype(int).tolist() for k in range(8)}
    copier = {"copier": np.clip(np.rint(judge + rng.normal(0, 5, n)), 0, 100).astype(int).tolist()}
    without = _table({**people, **copier}, items, np.round(overlap, 6).tolist())
    with_judge = _table({**people, **copier}, items, np.round(overlap, 6).tolist(), judge=judge.round(3).tolist())

    def flag(table):
        return {w: {s.name: s for s in v}["beyond_automatic"] for w, v in behaviour_signals(table)["g"].items()}

    assert flag(without)["copier"].flagged is False  # the judge knows more than overlap: it looks like a person
    assert flag(with_judge)["copier"].flagged is True
    assert "1 judge(s)" in flag(with_judge)["copier"].threshold


def _judged_crowd(judge_of):
    """Eight people and a judge copier (as above); the judge's scores are ``judge_of(scores)``."""
    rng = np.random.default_rng(9)
    n = 60
    items = [(f"S{i % 6}", f"q{i}") for i in range(n)]
    overlap = rng.uniform(0, 1, n)
    truth = 60 * overlap + np.array([30, 0, 20, 5, 25, 10])[[i % 6 for i in range(n)]] + rng.normal(0, 12, n)
    judge = truth + rng.normal(0, 6, n)
    people = {f"p{k}": np.clip(np.rint(truth + rng.normal(0, 8, n)), 0, 100).astype(int).tolist() for k in range(8)}
    copier = {"copier": np.clip(np.rint(judge + rng.normal(0, 5, n)), 0, 100).astype(int).tolist()}
    table = _table({**people, **copier}, items, np.round(overlap, 6).tolist(), judge=judge_of(judge.round(3)).tolist())
    return {w: {s.name: s for s in v}["beyond_automatic"] for w, v in behaviour_signals(table)["g"].items()}


@pytest.mark.parametrize("scale", [1e100, 1e300, -1e300, 1e-300])
def test_a_judge_on_any_scale_gives_the_same_test(scale):
    """A regression on a score, its square and its cube leaves the same residuals whatever the score's unit
    (the three span the same space), so the test cannot depend on it. It did: at 1e100 other p-values, at
    1e300 ``LinAlgError: SVD did not converge`` (the cube overflowed)."""
    own = _judged_crowd(lambda judge: judge)
    scaled = _judged_crowd(lambda judge: judge * scale)
    assert own["copier"].flagged is True
    for worker, signal in own.items():
        assert scaled[worker].flagged is signal.flagged
        assert scaled[worker].value == pytest.approx(signal.value, rel=1e-9)


def test_judge_scores_at_the_largest_floats_are_a_two_valued_judge():
    """±1e308 for the better and the worse answers is the judge that says ±1 (its unit is 1e308)."""
    at_limit = _judged_crowd(lambda judge: np.where(judge > 50, 1e308, -1e308))
    two_valued = _judged_crowd(lambda judge: np.where(judge > 50, 1.0, -1.0))
    assert {w: s.value for w, s in at_limit.items()} == pytest.approx({w: s.value for w, s in two_valued.items()})


def test_not_applicable_where_the_crowd_shows_nothing_beyond_the_automatic_scores():
    rng = np.random.default_rng(2)
    n = 40
    items = [(f"S{i % 4}", f"q{i}") for i in range(n)]
    automatic = rng.uniform(0, 1, n)
    crowd = {f"p{k}": np.clip(np.rint(100 * automatic + rng.normal(0, 10, n)), 0, 100).astype(int).tolist()
             for k in range(6)}  # people who agree with overlap entirely: nothing to tell bots by
    table = _table(crowd, items, np.round(automatic, 6).tolist())
    for signals in behaviour_signals(table)["g"].values():
        s = {x.name: x for x in signals}["beyond_automatic"]
        assert s.flagged is None and "people cannot be told from automatic raters here" in s.reason


def test_signal_wording_and_not_applicable_cases():
    from analysis.behaviour_signals import Beyond

    assert beyond_automatic(Beyond(math.nan, math.nan, 4, 3), 0.9, "3 text-overlap measures").flagged is None
    assert beyond_automatic(Beyond(0.5, 0.0, 40, 3), None, "x").flagged is None  # too few workers
    kept = beyond_automatic(Beyond(0.001, 0.5, 40, 3), 0.9, "3 text-overlap measures")
    assert kept.flagged is False and "r = 0.500 over 40 answers" in kept.reason
