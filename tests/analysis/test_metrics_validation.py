"""Metric validation against human system scores: correlations, Williams tests, outputs, score files."""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from analysis.metrics.human_scores import read_human_scores
from analysis.metrics.validation import validate_metrics, write_validation
from da_core.errors import InputError
from tests.data_paths import WMT21


def _exactly_correlated(r12: float, r13: float, r23: float, n: int, seed: int = 0) -> np.ndarray:
    """n rows whose three columns have exactly the given sample Pearson correlations."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    q, _ = np.linalg.qr(x - x.mean(axis=0))  # centred orthonormal columns: sample correlations 0
    target = np.array([[1, r12, r13], [r12, 1, r23], [r13, r23, 1]])
    return q @ np.linalg.cholesky(target).T


def _validate(columns: np.ndarray):
    systems = [f"system-{i}" for i in range(len(columns))]
    human = dict(zip(systems, columns[:, 0]))
    metrics = {"a": dict(zip(systems, columns[:, 1])), "b": dict(zip(systems, columns[:, 2]))}
    return validate_metrics(human, metrics)


@pytest.mark.parametrize("r12, r13, r23, n, t, p", [
    (0.65, 0.55, 0.30, 50, None, 0.2093),
    (0.9, 0.8, 0.85, 20, 1.729, 0.0509),
])
def test_williams_check_values_of_spec_9_through_validation(r12, r13, r23, n, t, p):
    result = _validate(_exactly_correlated(r12, r13, r23, n))
    assert result.correlations["a"].pearson == pytest.approx(r12, abs=1e-12)
    assert result.correlations["b"].pearson == pytest.approx(r13, abs=1e-12)
    forward = next(w for w in result.williams if (w.better, w.worse) == ("a", "b"))
    assert forward.r23 == pytest.approx(r23, abs=1e-12) and forward.n == n
    assert forward.pvalue == pytest.approx(p, abs=5e-5)
    assert result.williams_pvalue("a", "b") == forward.pvalue
    if t is not None:
        assert forward.statistic == pytest.approx(t, abs=5e-4)
    # the reverse question has the mirrored statistic
    assert result.williams_pvalue("b", "a") == pytest.approx(1 - p, abs=5e-5)


def test_a_metric_equal_to_the_human_score_correlates_perfectly():
    human = {"A": 0.4, "B": 0.1, "C": -0.2, "D": -0.5, "E": 0.05}
    noisy = {"A": 0.9, "B": 0.2, "C": 0.5, "D": 0.1, "E": 0.3}
    result = validate_metrics(human, {"same": dict(human), "noisy": noisy, "flat": dict.fromkeys(human, 0.5)})
    perfect = result.correlations["same"]
    assert (perfect.pearson, perfect.spearman, perfect.kendall) == (pytest.approx(1.0),) * 3
    assert result.metrics == ("same", "noisy", "flat")           # best r first, undefined last
    assert math.isnan(result.correlations["flat"].pearson)
    assert math.isnan(result.williams_pvalue("same", "flat"))
    assert result.williams_pvalue("same", "noisy") < 0.5
    assert len(result.williams) == 3 * 2                          # every ordered pair


def test_systems_come_from_the_human_scores_and_every_metric_must_cover_them():
    human = {"A": 1.0, "B": 0.0, "C": 0.5}
    result = validate_metrics(human, {"m": {"A": 3.0, "B": 1.0, "C": 2.0, "extra": 9.0}})
    assert result.systems == ("A", "B", "C") and result.metric_scores["m"] == (3.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="no score for system"):
        validate_metrics(human, {"m": {"A": 1.0, "B": 2.0}})
    with pytest.raises(ValueError, match="at least 3"):
        validate_metrics({"A": 1.0, "B": 2.0}, {})


def test_outputs_in_the_published_layout(tmp_path):
    columns = _exactly_correlated(0.9, 0.8, 0.85, 20)
    result = _validate(columns)
    result = validate_metrics(dict(zip(result.systems, result.human)),
                              {m: dict(zip(result.systems, v)) for m, v in result.metric_scores.items()},
                              labels={"a": "ROUGE-L", "b": "BLEU_4 & co"})
    markdown = result.to_markdown().splitlines()
    assert markdown[0] == "| Metric | r | ρ | τ |"
    assert markdown[2].startswith("| ROUGE-L | 0.900 |")
    assert r"BLEU\_4 \& co & 0.800" in result.to_latex()
    paths = write_validation(result, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["metric-validation-williams.png", "metric-validation.csv",
                                             "metric-validation.json", "metric-validation.md",
                                             "metric-validation.tex"]
    rows = list(csv.DictReader((tmp_path / "out" / "metric-validation.csv").open()))
    assert [row["metric"] for row in rows] == ["a", "b"] and float(rows[0]["r"]) == pytest.approx(0.9)
    document = json.loads((tmp_path / "out" / "metric-validation.json").read_text())
    assert document["systems"] == list(result.systems) and len(document["williams"]) == 2
    assert (tmp_path / "out" / "metric-validation-williams.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_read_wmt_system_scores():
    path = WMT21 / "ad-sys-scores-bn-hi.csv"
    scores = read_human_scores(path)
    assert len(scores) == 9 and scores["GTCOM.0"] == 0.202193985925346


def test_read_csv_system_scores_and_errors(tmp_path):
    good = tmp_path / "human.csv"
    good.write_text("system,raw,z\nA,70.1,0.25\nB,60,-0.5\n")
    assert read_human_scores(good) == {"A": 0.25, "B": -0.5}
    bad = tmp_path / "bad.csv"
    bad.write_text("system,z\nA,0.1\nB,high\n")
    with pytest.raises(InputError) as error:
        read_human_scores(bad)
    assert (error.value.line, error.value.field) == (3, "z") and str(bad) in str(error.value)
    twice = tmp_path / "twice.csv"
    twice.write_text("system,z\nA,0.1\nA,0.2\n")
    with pytest.raises(InputError, match="twice"):
        read_human_scores(twice)
    headless = tmp_path / "headless.csv"
    headless.write_text("name,score\nA,1\n")
    with pytest.raises(InputError, match="no column 'system'"):
        read_human_scores(headless)
