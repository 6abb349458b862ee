"""Item-level metric validation and the few-systems warning (``analysis.metrics.item_level``)."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.metrics.base import QuestionInfo
from analysis.metrics.item_level import (
    few_systems_warning,
    item_level,
    pearson_interval,
)
from analysis.metrics.scoring import SystemCorpus
from analysis.metrics.squad import ExactMatch


def test_the_interval_and_the_warning_for_five_systems():
    # Fisher: atanh(0.9) = 1.47222, half width 1.95996 / sqrt(5 - 3) = 1.38590 -> tanh(0.08632) = 0.0861,
    # tanh(2.85812) = 0.9934
    low, high = pearson_interval(0.9, 5)
    assert low == pytest.approx(0.0861, abs=5e-4) and high == pytest.approx(0.9934, abs=5e-4)
    warning = few_systems_warning(5, 0.9)
    assert warning.startswith("only 5 systems: a system-level correlation over 5 points is not a reliable")
    assert "[0.09, 0.99]" in warning
    assert few_systems_warning(8, 0.9) is None


def test_item_level_pairs_sentence_scores_with_item_z():
    info = QuestionInfo(None, None, ())
    refs = (("paris",), ("blue",), ("4",))
    corpora = [SystemCorpus("a", ("paris", "red", "4"), refs, (info,) * 3),
               SystemCorpus("b", ("lyon", "blue", "four"), refs, (info,) * 3)]
    z = {("a", "q1"): 1.0, ("a", "q2"): -0.5, ("a", "q3"): 0.8, ("b", "q1"): -1.2, ("b", "q2"): 0.4}  # b/q3 unrated
    metric = ExactMatch()
    found = item_level(corpora, [metric], ["q1", "q2", "q3"], z)
    em = [1, 0, 1, 0, 1]  # a: paris, red, 4; b: lyon, blue
    human = [1.0, -0.5, 0.8, -1.2, 0.4]
    result = found[metric.name]
    assert result.n == 5
    assert result.pearson == pytest.approx(np.corrcoef(em, human)[0, 1], abs=1e-12)


def test_item_level_pairs_a_corpus_of_fewer_answers_by_its_own_ids():
    """A HUMAN system that abstains on q1 (one reference only) answers q2 and q3: its scores pair with its own
    items, not with the first ids of the test set."""
    from analysis.metrics.scoring import QuestionEntry, system_corpus

    info = QuestionInfo(None, None, ())
    entries = [QuestionEntry("q2", ("blue",), info), QuestionEntry("q3", ("4",), info)]
    human = system_corpus("HUMAN", {"q2": "blue", "q3": "four"}, entries)
    assert human.ids == ("q2", "q3")
    z = {("HUMAN", "q1"): -2.0, ("HUMAN", "q2"): 1.0, ("HUMAN", "q3"): -1.0}
    a = SystemCorpus("a", ("paris",), (("paris",),), (info,), ids=("q1",))
    found = item_level([human, a], [ExactMatch()], ["q1", "q2", "q3"], {**z, ("a", "q1"): 0.5})
    # (exact match, z): HUMAN q2 (1, 1.0), q3 (0, -1.0); a q1 (1, 0.5). Paired by position it took q1's -2.0.
    assert found["exact-match"].pearson == pytest.approx(np.corrcoef([1, 0, 1], [1.0, -1.0, 0.5])[0, 1], abs=1e-12)


def test_validate_metrics_on_a_campaign_warns_and_adds_the_item_level_table(sessions, database_url, tmp_path):
    from click.testing import CliRunner

    from da_platform.cli import main
    from hit_builder.storage import LocalImageStorage
    from tests import dashboard_factories as factories

    with sessions() as session:
        campaign = factories.build(session, LocalImageStorage(tmp_path / "images"), hostile=False)
        for index in range(2):
            factories.rate_hit(session, campaign, index, f"w{index}", seed=index)
    out = tmp_path / "validation"
    result = CliRunner().invoke(main, ["validate-metrics", "--campaign", "dash", "--metric", "f1", "--out", str(out)],
                                env={"DA_DATABASE_URL": database_url})
    assert result.exit_code == 0, result.output
    assert "warning: only 4 systems: a system-level correlation over 4 points is not a reliable" in result.stderr
    assert "item level (" in result.stdout and "| f1 |" in result.stdout
    assert (out / "metric-validation-items.csv").read_text().startswith("metric,n,pearson")


def test_plots_also_as_svg_and_pdf(sessions, tmp_path):
    from click.testing import CliRunner

    from da_platform.cli import main
    from da_platform.db.models import Campaign
    from da_platform.exports import files as exports
    from hit_builder.storage import LocalImageStorage
    from tests import dashboard_factories as factories

    with sessions() as session:
        campaign = factories.build(session, LocalImageStorage(tmp_path / "images"))  # a system named <script>…
        for index in range(2):
            factories.rate_hit(session, campaign, index, f"w{index}", seed=index)
        ratings = exports.ratings(session, session.get(Campaign, campaign.id))
    path = tmp_path / "ratings.csv"
    path.write_bytes(ratings.content)
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["analyze", "--ratings", str(path), "--out", str(out), "--plot-format", "svg",
                                       "--plot-format", "pdf"])
    assert result.exit_code == 0, result.output
    svg = (out / "ranking-dash.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and "<script" not in svg
    assert (out / "pvalues-dash.svg").read_text().count("<svg") == 1
    assert (out / "ranking-dash.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "pvalues-dash.pdf").read_bytes().startswith(b"%PDF")
    assert not (out / "ranking-dash.png").exists()
