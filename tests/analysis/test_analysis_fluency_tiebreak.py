"""docs/method.md §8: fluency breaks ties inside adequacy clusters and never moves a system across clusters."""
from __future__ import annotations

import math

import numpy as np

from analysis.ranking import break_ties_by_fluency, rank_systems


def _adequacy():
    rng = np.random.default_rng(7)
    # A and B indistinguishable at the top, C alone, D and E indistinguishable at the bottom.
    item_z = {"A": rng.normal(1.0, 0.5, 400), "B": rng.normal(0.98, 0.5, 400), "C": rng.normal(0.0, 0.5, 400),
              "D": rng.normal(-1.0, 0.5, 400), "E": rng.normal(-1.01, 0.5, 400)}
    system_z = {s: float(v.mean()) for s, v in item_z.items()}
    return rank_systems(item_z, system_z)


def test_fluency_reorders_only_inside_clusters() -> None:
    adequacy = _adequacy()
    assert [set(c) for c in adequacy.clusters] == [{"A", "B"}, {"C"}, {"D", "E"}]
    fluency = {"A": 0.1, "B": 0.4, "C": -2.0, "D": 0.9, "E": 0.95}
    result = break_ties_by_fluency(adequacy, fluency)
    # C's poor fluency cannot move it below D and E: adequacy separates them.
    assert result.systems == ("B", "A", "C", "E", "D")
    assert result.adequacy_cluster == (0, 0, 1, 2, 2)
    assert result.fluency_z == (0.4, 0.1, -2.0, 0.95, 0.9)


def test_systems_without_fluency_keep_adequacy_order_after_scored_ones() -> None:
    adequacy = _adequacy()
    first_of_top = adequacy.clusters[0][0]
    other = adequacy.clusters[0][1]
    result = break_ties_by_fluency(adequacy, {other: -5.0})
    assert result.systems[:2] == (other, first_of_top)
    assert math.isnan(result.fluency_z[1])
    assert result.systems[2:] == tuple(s for cluster in adequacy.clusters[1:] for s in cluster)
