"""Inter-rater agreement (``analysis.agreement``) against a hand-computed Krippendorff's α."""
from __future__ import annotations

import math

import pytest

from analysis.agreement import agreement
from analysis.table import RatingRecord, RatingsTable


def _table(ratings: list[tuple[str, str, int]], extra: list[RatingRecord] = ()) -> RatingsTable:
    records = [RatingRecord("g", worker, f"h-{worker}", "sys", item, "SYSTEM", f"{worker}-{item}", "", score,
                            math.nan) for worker, item, score in ratings]
    return RatingsTable.from_records([*records, *extra])


def test_alpha_matches_the_hand_computation():
    """Units u1 (a 10, b 20), u2 (a 50, b 60, c 40), u3 (b 90, c 80); interval δ² = (v − v')².

    n = 7 pairable values. D_o = (1/n) Σ_u Σ_{i≠j} δ²/(m_u − 1) = (200/1 + 1200/2 + 200/1)/7 = 1000/7.
    D_e = Σ_{i≠j over all 7 values} δ² / (n(n − 1)) = 2·7·5200/42 = 72800/42 (mean 50, Σ(v − 50)² = 5200).
    α = 1 − D_o/D_e = 1 − 15/182 = 167/182.
    """
    table = _table([("a", "u1", 10), ("b", "u1", 20), ("a", "u2", 50), ("b", "u2", 60), ("c", "u2", 40),
                    ("b", "u3", 90), ("c", "u3", 80), ("c", "u4", 70)])  # u4: one rater, no information
    result = agreement(table)
    assert result.alpha_raw == pytest.approx(167 / 182, abs=1e-12)
    assert (result.units, result.ratings, result.raters) == (3, 7, 3)
    assert "Krippendorff's α (interval) = 0.918 on raw scores" in result.describe()


def test_checks_repeats_and_merged_copies_do_not_count():
    repeat = RatingRecord("g", "a", "h-a", "sys", "u1", "REPEAT", "r1", "a-u1", 90, math.nan)
    copy = RatingRecord("g", "b", "h-b/other", "other", "u1", "SYSTEM", "b-u1/other", "", 20, math.nan)
    table = _table([("a", "u1", 10), ("b", "u1", 20), ("a", "u2", 50), ("b", "u2", 60), ("c", "u2", 40),
                    ("b", "u3", 90), ("c", "u3", 80)], [repeat, copy])
    assert agreement(table).alpha_raw == pytest.approx(167 / 182, abs=1e-12)


def test_no_item_rated_twice_is_not_enough_data():
    result = agreement(_table([("a", "u1", 10), ("b", "u2", 20)]))
    assert not result.enough and math.isnan(result.alpha_raw)
    assert result.describe().startswith("not enough data yet")


@pytest.mark.parametrize("seed", range(5))
def test_the_closed_form_equals_the_krippendorff_package(seed):
    """``_alpha`` against the ``krippendorff`` package on random raters × units matrices with gaps,
    integer scores and continuous (z-like) values."""
    import krippendorff
    import numpy as np

    from analysis.agreement import _alpha

    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 100, size=30)
    for values in (np.round(truth + rng.normal(0, 15, size=(8, 30))), rng.normal(size=(8, 30)) + truth / 50):
        matrix = np.where(rng.random((8, 30)) < 0.6, np.nan, values)
        expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
        assert _alpha(matrix) == pytest.approx(expected, abs=1e-10)
