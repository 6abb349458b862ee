"""z-scores with merged identical answers: a worker's mean and sd are over the ratings they gave, and each copy
of a rating for another system that gave the same answer gets its source rating's z (hand-computed numbers)."""
from __future__ import annotations

import math

import pytest

from analysis.scores import ScoreSettings, compute_scores
from analysis.table import RatingsTable
from da_platform.config.build_record import MergeRecord
from da_platform.rating.merged import expand

# q1: systems A and B gave the same answer, rated once as A's (the build's identical_answers record).
MERGED = MergeRecord.from_json({"groups": [{"question": "q1", "rated_as": "A", "also": ["B"]}]})
# (worker, system, item, score): what each worker gave. w1: 80, 40, 60; w2: 50, 50, 20.
GIVEN = [("w1", "A", "q1", 80), ("w1", "A", "q2", 40), ("w1", "B", "q2", 60),
         ("w2", "A", "q1", 50), ("w2", "A", "q2", 50), ("w2", "B", "q2", 20)]


def _table() -> RatingsTable:
    columns = dict(group=["g"] * len(GIVEN), worker=[w for w, *_ in GIVEN],
                   hit=[f"h-{w}" for w, *_ in GIVEN], system=[s for _, s, _, _ in GIVEN],
                   item=[i for _, _, i, _ in GIVEN], slot_type=["SYSTEM"] * len(GIVEN),
                   slot=[str(k) for k in range(len(GIVEN))], original_slot=[""] * len(GIVEN),
                   score=[x for *_, x in GIVEN], seconds=[10.0] * len(GIVEN))
    return RatingsTable.from_columns(**expand(columns, MERGED))


@pytest.mark.parametrize("numeric", ["exact", "wmt"])
def test_copies_do_not_weigh_their_rating_again_in_the_workers_mean_and_sd(numeric):
    table = _table()
    assert len(table) == 8 and int(table.copies().sum()) == 2  # B's q1 copied from each worker's A q1
    scores = compute_scores(table, settings=ScoreSettings(numeric=numeric))["g"]
    # By hand, over the ratings given: w1 mean 60, sd sqrt((20² + 20² + 0²) / 2) = 20;
    # w2 mean 40, sd sqrt((10² + 10² + 20²) / 2) = sqrt(300).
    workers = {w.worker: w for w in scores.workers}
    assert (workers["w1"].n_ratings, workers["w1"].mean, workers["w1"].sd) == (3, 60.0, 20.0)
    assert workers["w2"].n_ratings == 3 and workers["w2"].mean == 40.0
    assert workers["w2"].sd == pytest.approx(math.sqrt(300), rel=1e-12)
    # z: w1 A q1 +1, A q2 -1, B q2 0, B q1 (copy) +1; w2 A q1 10/sqrt(300), A q2 10/sqrt(300),
    # B q2 -20/sqrt(300), B q1 (copy) 10/sqrt(300). Items average their two workers; systems their items.
    r = 1 / math.sqrt(300)
    item_z = {(s, i): z for s, i, z in zip(scores.items.system, scores.items.item, scores.items.z)}
    expected = {("A", "q1"): (1 + 10 * r) / 2, ("A", "q2"): (-1 + 10 * r) / 2,
                ("B", "q1"): (1 + 10 * r) / 2, ("B", "q2"): (0 - 20 * r) / 2}
    assert item_z == pytest.approx(expected, rel=1e-12)
    systems = scores.by_system()
    assert systems["A"].z == pytest.approx(5 * r, rel=1e-12)  # ((1 + 10r) + (-1 + 10r)) / 4
    assert systems["B"].z == pytest.approx((1 - 10 * r) / 4, rel=1e-12)
    assert (systems["A"].raw, systems["B"].raw) == (pytest.approx(55.0), pytest.approx(52.5))
    assert (systems["A"].n_ratings, systems["B"].n_ratings) == (4, 4)  # N counts the copies: they are B's ratings
