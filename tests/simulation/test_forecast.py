"""Forecasts of how soon a ranking is decided (da_platform.simulation.forecast), and the same measure on real
ratings."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis.readers import read_wmt
from da_platform.simulation.forecast import Design, forecast_recovery, same_clusters, subsample_recovery

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
