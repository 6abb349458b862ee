"""``da-platform reliability``: self-replication between two runs (ratings files here; campaigns share
the path of ``analyze --campaign``), with confidence intervals and a scatter plot."""
from __future__ import annotations

import csv
import json
import math

import pytest
from click.testing import CliRunner
from scipy import stats

from analysis.readers import write_long_csv
from analysis.reliability import replication_intervals, self_replication
from da_platform.cli import main
from da_platform.simulation.profiles import honest_and_bad_crowd, simulate_campaign, systems_evenly_spaced


def test_reliability_of_two_simulated_runs(tmp_path):
    systems = systems_evenly_spaced(6, step=6)
    systems["=HYPERLINK(1)$x$"] = 20.0  # a hostile name: no formula in the CSV, no mathtext in the plot
    paths = []
    for seed in (1, 2):
        run = simulate_campaign(systems, honest_and_bad_crowd(10, 1, seed=seed), n_questions=30, seed=seed)
        paths.append(write_long_csv(run.table, tmp_path / f"run{seed}.csv"))
    out = tmp_path / "rel"
    result = CliRunner().invoke(main, ["reliability", "--ratings", str(paths[0]), "--ratings", str(paths[1]),
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "7 systems in both runs" in result.output
    rows = list(csv.DictReader((out / "reliability.csv").open(encoding="utf-8")))
    assert len(rows) == 7 and "'=HYPERLINK(1)$x$" in [r["system"] for r in rows]
    document = json.loads((out / "reliability.json").read_text(encoding="utf-8"))
    a, b = document["z_run_a"], document["z_run_b"]
    pearson = next(c for c in document["coefficients"] if c["name"] == "pearson")
    assert pearson["estimate"] == pytest.approx(stats.pearsonr(a, b).statistic)
    assert pearson["estimate"] > 0.9  # the same systems, fresh workers
    low = math.tanh(math.atanh(pearson["estimate"]) - 1.959963984540054 / math.sqrt(7 - 3))
    assert pearson["low"] == pytest.approx(low) and pearson["low"] < pearson["estimate"] < pearson["high"]
    assert (out / "reliability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_intervals_are_not_defined_for_too_few_systems_or_perfect_correlation():
    few = replication_intervals(self_replication({"a": 1.0, "b": 2.0, "c": 3.5}, {"a": 0.9, "b": 2.2, "c": 3.0}))
    assert all(math.isnan(i.low) for i in few)
    perfect = replication_intervals(self_replication({k: float(i) for i, k in enumerate("abcdef")},
                                                     {k: 2.0 * i for i, k in enumerate("abcdef")}))
    assert perfect[1].estimate == 1.0 and math.isnan(perfect[1].low)  # Spearman: exactly 1
    assert perfect[0].low == pytest.approx(1.0)  # Pearson: 1 up to rounding, interval [1, 1]


def test_reliability_usage_errors(tmp_path):
    result = CliRunner().invoke(main, ["reliability", "--campaign", "x"])
    assert result.exit_code == 2 and "exactly two runs" in result.output
    help_text = CliRunner().invoke(main, ["reliability", "--help"]).output
    assert "Self-replication" in help_text and "--confidence" in help_text


@pytest.mark.slow
def test_reliability_between_two_campaigns(sessions, database_url, tmp_path):
    """Two runs of the same systems in the database, each through the campaign's one analysis."""
    from datetime import timedelta

    from hit_builder.storage import LocalImageStorage
    from tests import dashboard_factories as factories

    with sessions() as session:
        for name, offset in (("run-a", 0), ("run-b", 10)):
            campaign = factories.build(session, LocalImageStorage(tmp_path / name), name=name, hostile=False)
            for i in range(2):
                factories.rate_hit(session, campaign, i, f"{name}-w{i}", factories.good, seed=offset + i,
                                   start=factories.START + timedelta(hours=i))
    env = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}
    result = CliRunner().invoke(main, ["reliability", "--campaign", "run-a", "--campaign", "run-b",
                                       "--out", str(tmp_path / "rel")], env=env)
    assert result.exit_code == 0, result.output
    assert "4 systems in both runs: run-a and run-b" in result.output
    document = json.loads((tmp_path / "rel" / "reliability.json").read_text(encoding="utf-8"))
    assert document["systems"] == sorted(factories.QUALITY)
    spearman = next(c for c in document["coefficients"] if c["name"] == "spearman")
    assert spearman["estimate"] == 1.0  # both runs recover the known quality order
