"""The weighted check test (analysis.checks.weighted_test, QC method "weighted"): its p-value against a brute-force
enumeration of the null, its size on content-blind raters, its weights, and real people's HITs it keeps."""
from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analysis.checks import WEIGHT_STEP, weighted_test
from analysis.people_checks import LEVEL_EDGES, PeopleWeights, count_pairs, people_weights
from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod, QCStatus
from analysis.quality import quality_control
from analysis.readers import read_wmt
from analysis.table import Categorical, RatingsTable

WEIGHTED = QCPolicy(QCMethod.weighted)


def _level(a: int, b: int) -> int:
    return sum(edge <= max(a, b) for edge in LEVEL_EDGES)


def _brute_force(damaged, reference, repeat, ordinary, weights: PeopleWeights) -> float:
    """P(T >= observed) by enumerating every sign of every directional pair and every original of every repeat,
    with each weight rounded to whole steps as the module docstring defines."""
    step = WEIGHT_STEP

    def units(value: float) -> int:
        return int(round(value / step))

    signed = [(units(weights.damaged[_level(a, b), abs(a - b)]), a > b) for a, b in zip(*damaged) if a != b]
    signed += [(units(weights.reference[_level(a, b), abs(a - b)]), b > a) for a, b in zip(*reference) if a != b]
    observed = sum(u if positive else -u for u, positive in signed)
    observed += sum(units(weights.repeat[abs(a - b)]) for a, b in zip(*repeat))
    at_least, total = Fraction(0), Fraction(0)
    choices = [list(ordinary)] * len(repeat[0])
    for signs in itertools.product((1, -1), repeat=len(signed)):
        directional = sum(s * u for s, (u, _) in zip(signs, signed))
        for originals in itertools.product(*choices):
            t = directional + sum(units(weights.repeat[abs(a - b)]) for a, b in zip(originals, repeat[1]))
            total += 1
            at_least += t >= observed
    return float(at_least / total)


def test_the_p_value_is_the_exact_tail_of_the_null() -> None:
    weights = people_weights()
    damaged = (np.array([80, 60, 95, 30]), np.array([20, 65, 95, 10]))  # one zero, dropped
    reference = (np.array([40, 90]), np.array([100, 85]))
    repeat = (np.array([70, 55]), np.array([72, 20]))
    ordinary = np.array([70, 30, 55, 90])
    result = weighted_test(damaged, reference, repeat, ordinary, weights)
    expected = _brute_force(damaged, reference, repeat, ordinary, weights)
    assert result.pvalue == pytest.approx(expected, rel=1e-12)
    assert result.n_directional == 5 and result.n_repeat == 2 and result.step == WEIGHT_STEP
    # without repeats: the sign-flip tail alone
    no_repeat = (np.zeros(0, dtype=int), np.zeros(0, dtype=int))
    assert weighted_test(damaged, reference, no_repeat, ordinary, weights).pvalue == pytest.approx(
        _brute_force(damaged, reference, no_repeat, ordinary, weights), rel=1e-12)


def test_a_reader_passes_and_a_reversed_reader_fails() -> None:
    originals = np.array([90, 85, 70, 95, 60, 88, 75, 92, 80, 65])
    copies = originals - np.array([60, 50, 40, 70, 30, 45, 35, 65, 55, 25])
    reference = (np.array([40, 55, 30, 60, 45, 50, 35, 70, 20, 65]), np.full(10, 98))
    repeat = (originals, originals + np.array([2, -3, 0, 5, -1, 0, 4, -2, 1, 0]))
    ordinary = np.arange(5, 100, 2)
    reader = weighted_test((originals, copies), reference, repeat, ordinary)
    assert reader.pvalue < 1e-6 and reader.directional > 0 and reader.repeat > 0
    reversed_ = weighted_test((copies, originals), (reference[1], reference[0]), repeat, ordinary)
    assert reversed_.pvalue > 0.5 and reversed_.directional < 0
    # nothing to test: every directional difference is zero
    nothing = weighted_test((originals, originals), (originals, originals), repeat, ordinary)
    assert math.isnan(nothing.pvalue) and nothing.n_directional == 0


def test_many_pairs_use_a_coarser_step_and_stay_a_probability() -> None:
    rng = np.random.default_rng(4)
    originals = rng.integers(0, 101, 3000)
    copies = rng.integers(0, 101, 3000)
    result = weighted_test((originals, copies), (originals[:10], copies[:10]), (originals[:200], copies[:200]),
                           rng.integers(0, 101, 500))
    assert result.step > WEIGHT_STEP and 0.0 <= result.pvalue <= 1.0


def _null_table(kind: str, workers: int, rng: np.random.Generator) -> RatingsTable:
    """One classic HIT each (70 SYSTEM + 10 BAD_REF, REF, REPEAT), scored without looking."""
    columns: dict[str, list] = {c: [] for c in ("group", "worker", "hit", "system", "item", "slot_type", "slot",
                                                "original_slot", "score")}
    draw = {"random": lambda: rng.integers(0, 101, 100), "high": lambda: rng.integers(90, 101, 100),
            "tens": lambda: rng.integers(0, 11, 100) * 10,
            "noisy": lambda: np.clip(np.rint(rng.uniform(20, 80) + rng.normal(0, 10, 100)), 0, 100)}[kind]
    for w in range(workers):
        scores = draw()
        for k in range(100):
            kind_of = "SYSTEM" if k < 70 else ("BAD_REF", "REF", "REPEAT")[(k - 70) // 10]
            original = f"w{w}-{k % 10 * 7}" if k >= 70 else ""
            for column, value in (("group", "g"), ("worker", f"w{w}"), ("hit", f"h{w}"), ("system", "s"),
                                  ("item", str(k)), ("slot_type", kind_of), ("slot", f"w{w}-{k}"),
                                  ("original_slot", original), ("score", int(scores[k]))):
                columns[column].append(value)
    return RatingsTable.from_columns(**columns)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["random", "high", "tens", "noisy"])
def test_content_blind_raters_pass_at_most_alpha_of_the_time(kind: str) -> None:
    rng = np.random.default_rng(sum(map(ord, kind)))
    report = quality_control(_null_table(kind, 400, rng), WEIGHTED)["g"]
    passed = np.mean([w.passed for w in report.workers])
    assert passed <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)  # alpha plus three standard errors


def test_weights_say_what_people_do() -> None:
    weights = people_weights()
    top = len(LEVEL_EDGES)
    # a large drop of a damaged copy of a well-rated answer is far more often a person's than its reverse
    assert weights.damaged[top, 60] > 2 and weights.damaged[top, 60] > weights.damaged[top, 5] > 0
    assert weights.reference[top, 40] > 2  # a reference scored well above a poorer answer
    assert weights.repeat[0] > weights.repeat[30] > weights.repeat[80]  # repeats close to their originals
    assert "refit with" in weights.source


def test_the_fit_counts_each_pair_in_its_direction_and_level() -> None:
    counts = count_pairs([((np.array([90, 10]), np.array([30, 40])), (np.array([50]), np.array([95])),
                           (np.array([60, 60]), np.array([60, 67])))])
    assert counts.damaged[4, 0, 60] == 1 and counts.damaged[2, 1, 30] == 1  # 90-30 at level 4; 10-40 at level 2
    assert counts.reference[4, 0, 45] == 1  # the reference 95 beside 50: +45 at level 4
    assert counts.repeat[0] == 1 and counts.repeat[7] == 1
    assert counts.pairs == {"damaged": 2, "reference": 1, "repeat": 2}


def test_quality_control_names_the_weighted_test_and_its_evidence() -> None:
    rng = np.random.default_rng(1)
    report = quality_control(_null_table("random", 3, rng), WEIGHTED)["g"]
    assert report.settings.policy.method is QCMethod.weighted and "people" in report.settings.test.alternative
    worker = report.workers[0]
    assert worker.status in (QCStatus.passed, QCStatus.failed) and "weighted, p = " in worker.reason
    assert "nats" in worker.reason and worker.p_method.startswith("exact distribution")


SLICE = Path(__file__).resolve().parents[1] / "data" / "wmt21-toen-crowd-slice" / "raw-jaen-slice.csv"


def test_real_peoples_hits_the_pooled_test_lost_are_kept() -> None:
    """Three HITs of a worker reliable over their whole work (WMT21 ja-en, held out from the weights' fit), each
    judged alone: the pooled test keeps none of them, the weighted test all three."""
    table = read_wmt(SLICE)
    labels = [f"{w}|{h}" for w, h in zip(table.worker.values(), table.hit.values())]
    by_hit = dataclasses.replace(table, worker=Categorical.from_values(labels))
    verdicts = {method: {w.worker.split("|")[1][:10]: w.passed for w in quality_control(by_hit, QCPolicy(method))[
        "ja-en"].workers if w.worker.startswith("M0141")} for method in (QCMethod.pooled, QCMethod.weighted)}
    assert verdicts["pooled"] == {"34HEO7RUG6": False, "3UZUVSO3P7": False, "3OND0WXMHW": False}
    assert verdicts["weighted"] == {"34HEO7RUG6": True, "3UZUVSO3P7": True, "3OND0WXMHW": True}
    # over all three HITs, as the campaign's analysis pools a worker's HITs, both tests keep the worker
    whole = {method: {w.worker: w.passed for w in quality_control(table, QCPolicy(method))["ja-en"].workers}
             for method in (QCMethod.pooled, QCMethod.weighted)}
    assert whole["pooled"]["M0141"] and whole["weighted"]["M0141"]


def _real_people_benchmark():
    """``benchmarks/real_people.py`` as a module (the benchmarks are scripts, not a package)."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "real_people.py"
    spec = importlib.util.spec_from_file_location("real_people_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def test_the_cross_validations_verdict_is_the_platforms(tmp_path: Path) -> None:
    """``real_people.py qc --cross-validate`` judges each held-out HIT with refitted weights through its own call of
    the weighted test: with the shipped weights that call gives the platform's verdict (``quality_control``, each
    worker-HIT alone) on every real HIT of the slice, and refitted weights judge the same pairs."""
    benchmark = _real_people_benchmark()
    (tmp_path / "raw-jaen.csv").write_bytes(SLICE.read_bytes())
    tables = benchmark.read_release(tmp_path)
    hits = benchmark.real_hits(tables)
    platform = benchmark.kept_at_one_hit(tables, ("weighted",))["weighted"]
    assert len(hits) == 4 and set(platform) == {h.label for h in hits}
    assert {h.label: benchmark.weighted_kept(h, people_weights())[0] for h in hits} == platform
    assert sum(platform.values()) >= 3  # M0141's three HITs (the test above)
    refitted = benchmark.fit_weights(hits, "the slice")
    for hit in hits:
        kept, p = benchmark.weighted_kept(hit, refitted)
        found = weighted_test(hit.damaged, hit.reference, hit.repeat, hit.ordinary, refitted)
        assert kept == (found.pvalue < 0.05) and p == found.pvalue


def test_the_cross_validation_judges_every_pair_on_weights_that_never_saw_it() -> None:
    """Each pair left out once (fitted on the other five), then the two halves swapped: in each fold the judged
    pairs and the fitted ones are disjoint, every pair is judged once by the leave-one-out folds and once by the
    halves."""
    benchmark = _real_people_benchmark()
    pairs = ["cs-en", "de-en", "ha-en", "is-en", "ja-en", "ru-en"]
    folds = list(benchmark.folds(pairs))
    assert len(folds) == 8
    judged = [[p for p in pairs if p not in fitted] for _, fitted in folds]
    assert judged[:6] == [[p] for p in pairs]
    assert all(len(fitted) == 5 for _, fitted in folds[:6])
    assert sorted(judged[6] + judged[7]) == pairs and not set(judged[6]) & set(judged[7])
    assert set(folds[7][1]) == {"cs-en", "de-en", "ha-en"}  # the shipped weights' pairs (their file's source)
    assert "cs-en, de-en, ha-en" in people_weights().source


def test_the_model_fits_shares_kept_are_the_platforms_verdicts(tmp_path: Path) -> None:
    """``real_people.py fit-model`` puts each test's share kept in its loss through a fast path (the verdict on each
    HIT's pairs, no ratings table): on the slice's real HITs it gives the platform's verdicts (``quality_control``
    on each worker-HIT alone) for the published, the pooled and the weighted test alike."""
    benchmark = _real_people_benchmark()
    (tmp_path / "raw-jaen.csv").write_bytes(SLICE.read_bytes())
    tables = benchmark.read_release(tmp_path)
    hits = benchmark.real_hits(tables)
    platform = benchmark.kept_at_one_hit(tables)
    shares = benchmark.shares_kept(hits)
    assert set(shares) == set(benchmark.TESTS) == {"wilcoxon", "pooled", "weighted"}
    for hit in hits:
        alone = benchmark.shares_kept([hit])
        assert {test: share == 1.0 for test, share in alone.items()} == {t: platform[t][hit.label] for t in platform}
    # M0141's three HITs: the pooled test keeps none, the weighted all three (the test above)
    assert shares["pooled"] <= 0.25 and shares["weighted"] >= 0.75


def test_the_forecast_check_sums_up_its_cells_as_a_probability() -> None:
    """``real_people.py forecast`` ends with the forecast's calibration over every cell (worked by hand: forecasts
    50 % and 20 % against real 30 % and 40 %: means 35.0 % and 35.0 %, gaps 20 and 20 points, none within 10)."""
    line = _real_people_benchmark().calibration([(0.5, 0.3), (0.2, 0.4)])
    assert line == ("over the 2 cells: mean forecast 35.0%, mean real share 35.0% (+0.0 points); mean absolute gap "
                    "20.0 points; cells within 10 points 0 of 2")
