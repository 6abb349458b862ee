"""Forecasts of how soon a ranking is decided (da_platform.simulation.forecast), and the same measure on real
ratings."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from analysis.readers import read_wmt
from analysis.table import RatingsTable
from da_platform.simulation.forecast import (
    NO_QC,
    Design,
    GivenForecast,
    SlotRow,
    campaign_design,
    clusters_of,
    forecast_given,
    forecast_recovery,
    same_clusters,
    shrink,
    subsample_recovery,
    system_estimates,
)
from da_platform.simulation.people import fitted_model

SLICE = Path(__file__).resolve().parents[1] / "data" / "wmt21-toen-crowd-slice" / "raw-jaen-slice.csv"


def test_the_same_clusters_are_the_same_partition_in_the_same_order() -> None:
    assert same_clusters((("a", "b"), ("c",)), (("b", "a"), ("c",)))
    assert not same_clusters((("a",), ("b", "c")), (("a", "b"), ("c",)))
    assert not same_clusters((("c",), ("a", "b")), (("a", "b"), ("c",)))


def test_every_hit_recovers_the_whole_and_fewer_give_a_share() -> None:
    table = read_wmt(SLICE)  # four real HITs (WMT21 ja-en)
    shares = subsample_recovery(table, [4, 2], draws=5, seed=3)["ja-en"]
    assert shares[4] == 1.0  # all four HITs: the whole table itself
    assert 0.0 <= shares[2] <= 1.0


def _design(hits: int) -> Design:
    """Classic-like HITs of 20 slots: 14 ordinary (two systems far apart), 2 each of BAD_REF, REF, REPEAT."""
    columns: dict[str, list] = {c: [] for c in ("hit", "slot_type", "original", "system", "item", "quality")}
    for h in range(hits):
        start = len(columns["hit"])
        kinds = ["SYSTEM"] * 14 + ["BAD_REF", "BAD_REF", "REF", "REF", "REPEAT", "REPEAT"]
        for k, kind in enumerate(kinds):
            original = -1 if kind == "SYSTEM" else start + (k - 14)
            shown = k if kind == "SYSTEM" else k - 14
            system = "good" if shown % 2 == 0 else "poor"
            for column, value in (("hit", f"h{h}"), ("slot_type", kind), ("original", original), ("system", system),
                                  ("item", f"q{h}-{shown}"), ("quality", 90.0 if system == "good" else 15.0)):
                columns[column].append(value)
    n = len(columns["hit"])
    return Design(["g"] * n, columns["hit"], columns["hit"], columns["slot_type"], np.array(columns["original"]),
                  columns["system"], columns["item"], np.array(columns["quality"]))


def test_a_forecast_of_all_assignments_is_certain_and_of_two_systems_far_apart_likely() -> None:
    shares = forecast_recovery(_design(12), [12, 6], runs=6, seed=2)["g"]
    assert shares[12] == 1.0
    assert shares[6] >= 0.5  # 75 points apart: half the campaign nearly always separates them too


# ---- what a release says of the systems' true scores: shrunk towards their mean by their sampling error ----------

def test_three_systems_with_equal_errors_are_shrunk_as_computed_by_hand() -> None:
    # mean 0.3; sample variance (0.3² + 0 + 0.3²) / 2 = 0.09; true spread² = 0.09 − 0.1² = 0.08;
    # reliability 0.08 / (0.08 + 0.01) = 8/9; shrunk: 0.3 ∓ 0.3 · 8/9
    estimates = shrink({"a": 0.0, "b": 0.3, "c": 0.6}, {"a": 0.1, "b": 0.1, "c": 0.1})
    assert estimates.mean == pytest.approx(0.3)
    assert estimates.spread == pytest.approx(math.sqrt(0.08))
    assert estimates.reliability("a") == pytest.approx(8 / 9)
    assert estimates.shrunk() == pytest.approx({"a": 0.3 - 0.8 / 3, "b": 0.3, "c": 0.3 + 0.8 / 3})


def test_each_system_is_shrunk_by_its_own_reliability() -> None:
    # mean squared error (0.01 + 0.04 + 0.09) / 3 = 0.14/3; true spread² = 0.09 − 0.14/3 = 0.13/3;
    # reliabilities (0.13/3) / (0.13/3 + se²) = 0.13 / (0.13 + 3 se²): 13/16, 13/25, 13/40
    estimates = shrink({"a": 0.0, "b": 0.3, "c": 0.6}, {"a": 0.1, "b": 0.2, "c": 0.3})
    assert estimates.spread ** 2 == pytest.approx(0.13 / 3)
    assert [estimates.reliability(s) for s in "abc"] == pytest.approx([13 / 16, 13 / 25, 13 / 40])
    assert estimates.shrunk() == pytest.approx({"a": 0.3 - 0.3 * 13 / 16, "b": 0.3, "c": 0.3 + 0.3 * 13 / 40})


def test_a_spread_no_wider_than_the_noise_is_no_true_difference() -> None:
    # sample variance 0.01 (0.1² spread) below the mean squared error 0.15²: no true spread, every system the mean
    estimates = shrink({"a": 0.4, "b": 0.5, "c": 0.6}, {"a": 0.15, "b": 0.15, "c": 0.15})
    assert estimates.spread == 0.0
    assert estimates.shrunk() == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.5})


def test_posterior_draws_centre_on_the_shrunk_scores_with_the_posterior_variance() -> None:
    estimates = shrink({"a": 0.0, "b": 0.3, "c": 0.6}, {"a": 0.1, "b": 0.2, "c": 0.3})
    rng = np.random.default_rng(4)
    draws = np.array([list(estimates.drawn(rng).values()) for _ in range(20000)])
    shrunk = np.array(list(estimates.shrunk().values()))
    # posterior variance reliability · se² (normal means): 13/16 · 0.01, 13/25 · 0.04, 13/40 · 0.09
    variance = np.array([13 / 16 * 0.01, 13 / 25 * 0.04, 13 / 40 * 0.09])
    assert np.all(np.abs(draws.mean(axis=0) - shrunk) < 4 * np.sqrt(variance / 20000))
    assert np.all(np.abs(draws.var(axis=0) / variance - 1) < 4 * math.sqrt(2 / 20000))


def _release(scores: list[list[int]]) -> RatingsTable:
    """A release of HITs each rated by its own worker: per HIT three items of system A, then three of system B."""
    columns: dict[str, list] = {c: [] for c in ("hit", "system", "item", "score")}
    for h, hit_scores in enumerate(scores):
        for k, score in enumerate(hit_scores):
            for column, value in (("hit", f"h{h}"), ("system", "A" if k < 3 else "B"), ("item", f"i{h}-{k % 3}"),
                                  ("score", score)):
                columns[column].append(value)
    n = len(columns["hit"])
    return RatingsTable.from_columns(
        group=["g"] * n, worker=columns["hit"], hit=columns["hit"], system=columns["system"], item=columns["item"],
        slot_type=["SYSTEM"] * n, slot=[str(i) for i in range(n)], original_slot=[""] * n, score=columns["score"])


def test_a_systems_standard_error_takes_the_hits_as_the_units_drawn() -> None:
    scores = [[70, 72, 75, 40, 44, 50], [90, 88, 85, 60, 66, 61], [55, 60, 52, 58, 50, 57],
              [80, 81, 79, 30, 35, 33], [65, 70, 68, 62, 61, 69], [95, 90, 99, 70, 72, 71]]
    [estimates] = system_estimates(_release(scores)).values()
    # by hand: each worker's ratings standardised (scipy, sample SD); every item rated once, three of a system in
    # each HIT, so the system's score is the mean of its HITs' means and its standard error their SD / √HITs
    z = np.array([stats.zscore(hit, ddof=1) for hit in scores])
    for system, columns in (("A", slice(0, 3)), ("B", slice(3, 6))):
        means = z[:, columns].mean(axis=1)
        assert estimates.observed[system] == pytest.approx(means.mean())
        assert estimates.standard_error[system] == pytest.approx(means.std(ddof=1) / math.sqrt(len(scores)))
    # were the 18 items of a system independent: the SD of its items' z over √18; the design effect compares
    independent = [z[:, columns].std(ddof=1) / math.sqrt(18) for columns in (slice(0, 3), slice(3, 6))]
    assert estimates.design_effect == pytest.approx(
        np.mean([estimates.standard_error[s] ** 2 for s in "AB"]) / np.mean(np.square(independent)))


def _alike(hits: int, quality: dict[str, float]) -> Design:
    """HITs of 16 ordinary slots, four of each system, each item shown once."""
    columns: dict[str, list] = {c: [] for c in ("hit", "system", "item", "quality")}
    for h in range(hits):
        for k in range(16):
            system = "abcd"[k % 4]
            for column, value in (("hit", f"h{h}"), ("system", system), ("item", f"q{h}-{k}"),
                                  ("quality", quality[system])):
                columns[column].append(value)
    n = len(columns["hit"])
    return Design(["g"] * n, columns["hit"], columns["hit"], ["SYSTEM"] * n, np.full(n, -1), columns["system"],
                  columns["item"], np.array(columns["quality"]))


def test_a_release_whose_systems_barely_differ_forecasts_one_cluster() -> None:
    # A release of four systems of the same true quality (60): whatever spread its z-scores show is noise, so the
    # forecast's campaigns, their qualities drawn from what the release says, mostly keep one cluster, and so do
    # their halves: a false split needs every system above a cut to beat every one below it at p < 0.05.
    release = _alike(24, dict.fromkeys("abcd", 60.0)).rated(fitted_model(), np.random.default_rng(8))
    [clusters] = clusters_of(release, NO_QC).values()
    assert len(clusters) == 1
    [estimates] = system_estimates(release).values()
    # one z: a worker's SD of scores (the median worker's in the release)
    unit = float(np.median([np.std(release.score[release.worker.codes == w], ddof=1)
                            for w in range(len(release.worker.labels))]))

    def drawn(rng: np.random.Generator) -> Design:
        z = estimates.drawn(rng)
        return _alike(24, {s: 60.0 + unit * (z[s] - estimates.mean) for s in "abcd"})

    given = forecast_given(drawn, "g", clusters, [12], runs=100, tries=100, seed=3)
    # the whole campaign: one cluster (81-94 % of 200 tries for releases rated with seeds 8-10; the share of 100
    # tries has an SE of 4 points; people who sometimes lapse, as real ones do, split equal systems now and then)
    assert given.matched / given.tried >= 0.75
    assert given.shares[12] >= 0.8  # and half of it too
    assert forecast_recovery(drawn, [12], runs=20, seed=3)["g"][12] >= 0.8


def test_a_forecast_given_clusters_no_campaign_gives_has_no_share() -> None:
    design = _design(12)  # "good" (90) far above "poor" (15)
    assert forecast_given(design, "g", (("poor",), ("good",)), [6], runs=3, tries=4, seed=2) == GivenForecast({}, 0, 4)
    given = forecast_given(design, "g", (("good",), ("poor",)), [12, 6], runs=3, tries=4, seed=2)
    assert given.matched == 3 and given.shares[12] == 1.0


# ---- a stored campaign's design, grouped per HIT in one pass ----------------------------------------------------

def _design_by_rescanning(group: str, rows: list[SlotRow], quality: dict[str, dict[str, float]]) -> tuple[Design, int]:
    """The former construction (rehearsal.campaign_forecast): every row scanned again for each HIT."""
    columns: dict[str, list] = {c: [] for c in ("group", "hit", "worker", "slot_type", "original", "system", "item",
                                                "quality")}
    places = 0
    for public_id in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == public_id]
        index = {r[2]: k for k, r in enumerate(mine)}
        for copy in range(max(1, mine[0][1])):
            place = f"{public_id}/{copy}"
            start = len(columns["hit"])
            places += 1
            for r in mine:
                for column, value in (("group", group), ("hit", place), ("worker", place), ("slot_type", r[3]),
                                      ("system", r[5]), ("item", r[6]), ("quality", quality[r[5]][r[6]]),
                                      ("original", -1 if r[4] is None else start + index[r[4]])):
                    columns[column].append(value)
    return Design(columns["group"], columns["hit"], columns["worker"], columns["slot_type"],
                  np.array(columns["original"], dtype=np.int64), columns["system"], columns["item"],
                  np.array(columns["quality"], dtype=np.float64)), places


def test_a_campaigns_design_is_the_former_one_and_forecasts_alike() -> None:
    rng = np.random.default_rng(11)
    quality = {s: {f"q{i}": float(rng.uniform(0, 100)) for i in range(40)} for s in ("good", "fair", "poor")}
    rows: list[SlotRow] = []
    slot_id = 0
    for h in range(9):
        first = slot_id
        for k in range(12):
            system = ("good", "fair", "poor")[k % 3]
            rows.append((f"H{h}", 1 + h % 3, slot_id, "SYSTEM", None, system, f"q{(h + k) % 40}"))
            slot_id += 1
        for k, kind in enumerate(("REPEAT", "BAD_REF", "REF")):
            original = rows[first + k]
            rows.append((f"H{h}", 1 + h % 3, slot_id, kind, original[2], original[5], original[6]))
            slot_id += 1
    built, places = campaign_design("c", rows, quality)
    former, former_places = _design_by_rescanning("c", rows, quality)
    assert places == former_places == sum(1 + h % 3 for h in range(9))
    for name in ("group", "hit", "worker", "slot_type", "system", "item"):
        assert list(getattr(built, name)) == list(getattr(former, name))
    assert np.array_equal(built.original, former.original) and np.array_equal(built.quality, former.quality)
    assert forecast_recovery(built, [5, 9], runs=4, seed=6) == forecast_recovery(former, [5, 9], runs=4, seed=6)
