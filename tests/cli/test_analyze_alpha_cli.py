"""The ranking's level (``--alpha``) and quality control's (``--qc-alpha``, else the policy's) are two settings:
``analyze --ratings`` on real WMT21 crowd ratings keeps the same workers whatever ``--alpha`` says."""
from __future__ import annotations

import csv
import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import rankdata

from da_platform.cli import main

SLICE = Path(__file__).resolve().parents[1] / "data" / "wmt21-toen-crowd-csen" / "raw-csen-5-workers.csv"


def _bad_ref_differences() -> dict[str, list[int]]:
    """Worker -> original minus degraded score of each BAD_REF pair, paired as WMT's scripts pair them: with the
    worker's SYSTEM rating of the same segment and system in the same HIT."""
    header, *lines = SLICE.read_text(encoding="utf-8").splitlines()
    rows = [dict(zip(header.split(), line.split())) for line in lines]
    original = {(r["WorkerId"], r["HITId"], r["sid"], r["sys_id"]): int(r["score"])
                for r in rows if r["type"] == "SYSTEM"}
    differences: dict[str, list[int]] = {}
    for r in rows:
        if r["type"] == "BAD_REF":
            key = (r["WorkerId"], r["HITId"], r["sid"], r["sys_id"])
            differences.setdefault(r["WorkerId"], []).append(original[key] - int(r["score"]))
    return differences


def _exact_signed_rank_p(differences: list[int]) -> Fraction:
    """One-sided exact p of Wilcoxon's signed-rank test (zeros dropped, mid-ranks), by enumerating every sign
    pattern of the ranks."""
    nonzero = [d for d in differences if d != 0]
    ranks = [Fraction(r).limit_denominator(2) for r in rankdata([abs(d) for d in nonzero])]
    observed = sum(r for r, d in zip(ranks, nonzero) if d > 0)
    patterns = list(itertools.product((0, 1), repeat=len(ranks)))
    at_least = sum(1 for signs in patterns if sum(r for r, s in zip(ranks, signs) if s) >= observed)
    return Fraction(at_least, len(patterns))


def _analyse(tmp_path: Path, name: str, *options: str) -> tuple[set[str], dict]:
    out = tmp_path / name
    result = CliRunner().invoke(main, ["analyze", "--ratings", str(SLICE), "--format", "wmt", "--qc", "wilcoxon",
                                       "--no-plots", "--out", str(out), *options],
                                env={"DA_INSTANCE_PATH": str(tmp_path / "instance")}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    with (out / "qc-workers.csv").open(encoding="utf-8", newline="") as handle:
        passed = {row["worker"] for row in csv.DictReader(handle) if row["passed"] == "True"}
    return passed, json.loads((out / "analysis.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pvalues() -> dict[str, Fraction]:
    return {worker: _exact_signed_rank_p(d) for worker, d in _bad_ref_differences().items()}


def test_the_slice_has_workers_between_the_two_levels(pvalues):
    assert len(pvalues) == 5
    assert [w for w, p in pvalues.items() if Fraction(1, 100) <= p < Fraction(5, 100)]  # the level matters


def test_the_rankings_alpha_leaves_quality_control_at_its_own_level(tmp_path, pvalues):
    """Failed before: ``--alpha 0.01`` made quality control of a file test at 0.01 (2 of these 5 workers kept,
    and on the whole WMT21 cs-en file 33 of 92 workers instead of 58)."""
    at_5 = {w for w, p in pvalues.items() if p < Fraction(5, 100)}
    at_1 = {w for w, p in pvalues.items() if p < Fraction(1, 100)}
    assert at_1 < at_5
    default, _ = _analyse(tmp_path, "default")
    ranked_at_1, document = _analyse(tmp_path, "alpha", "--alpha", "0.01")
    assert default == ranked_at_1 == at_5
    assert document["settings"]["alpha"] == 0.01 and document["settings"]["qc"]["alpha"] == 0.05
    strict, document = _analyse(tmp_path, "qc-alpha", "--qc-alpha", "0.01")
    assert strict == at_1
    assert document["settings"]["alpha"] == 0.05 and document["settings"]["qc"]["alpha"] == 0.01
