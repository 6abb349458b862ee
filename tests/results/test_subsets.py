"""Rankings per subset (``da_platform.results.subsets``, ``da-platform subsets``) equal the ranking of the
ratings filtered to the subset (QC and each worker's z-standardisation over the whole campaign)."""
from __future__ import annotations

import csv
import io
from collections import defaultdict
from statistics import mean, stdev

from click.testing import CliRunner
from sqlalchemy import select

from analysis.ranking import rank_systems
from da_platform.cli import main
from da_platform.db.models import AnswerType, Campaign, Question
from da_platform.results.campaign_analysis import CampaignAnalysis
from da_platform.results.subsets import question_values, subset_rankings
from hit_builder.storage import LocalImageStorage
from tests import dashboard_factories as factories
from tests.admin_client import login


def _expected(records, passed: frozenset[str], items: set[str]) -> dict[str, float]:
    """System z of the subset from the rating rows alone: z per worker over all their ratings,
    SYSTEM and REPEAT rows of the subset's items, mean per item, then mean per system."""
    by_worker = defaultdict(list)
    for r in records:
        by_worker[r.worker].append(r.score)
    per_item = defaultdict(list)
    for r in records:
        if r.worker in passed and r.slot_type in ("SYSTEM", "REPEAT") and r.item in items:
            scores = by_worker[r.worker]
            per_item[r.system, r.item].append((r.score - mean(scores)) / stdev(scores))
    per_system = defaultdict(list)
    for (system, _item), zs in per_item.items():
        per_system[system].append(mean(zs))
    return {s: mean(v) for s, v in per_system.items()}


def test_subset_rankings_equal_the_ranking_of_the_filtered_ratings(database_url, sessions, tmp_path, monkeypatch):
    with sessions() as session:
        campaign = factories.build(session, LocalImageStorage(tmp_path / "images"), passes=2)
        for worker, index in (("w0", 0), ("w1", 1), ("w2", 2), ("w3", 3)):
            factories.rate_hit(session, campaign, index, worker, seed=index)
        questions = session.scalars(select(Question).where(Question.test_set_id == campaign.test_set_id)
                                    .order_by(Question.external_id)).all()
        for i, question in enumerate(questions):
            question.answer_type = AnswerType.yes_no if i % 3 == 0 else AnswerType.description
        session.commit()
        campaign = session.get(Campaign, campaign.id)
        analysis = CampaignAnalysis(session, campaign)
        values = question_values(session, campaign, "answer_type")
    group = analysis.group
    rankings = {s.value: s for s in subset_rankings(group, values, alpha=0.05)}
    assert set(rankings) == {"yes_no", "description"}
    records = list(analysis.used.records())
    for value, subset in rankings.items():
        items = {q for q, v in values.items() if v == value}
        expected = _expected(records, group.qc.passed_workers, items)
        got = {s.system: s.z for s in subset.systems}
        assert got.keys() == expected.keys()
        for system in expected:
            assert abs(got[system] - expected[system]) < 1e-12
        order = sorted(expected, key=lambda s: (-expected[s], s))
        assert [s.system for s in subset.systems] == order
        assert subset.questions == len(items & {r.item for r in records})
    # the whole campaign as one subset is the campaign's own ranking
    (whole,) = subset_rankings(group, {}, alpha=0.05)
    assert list(whole.ranking.systems) == list(group.ranking.systems)
    assert whole.ranking.clusters == group.ranking.clusters
    item_z = {s: group.scores.items.z_of(s) for s in group.ranking.systems}
    assert rank_systems(item_z, {s.system: s.z for s in group.scores.systems}).clusters == group.ranking.clusters

    monkeypatch.setenv("DA_DATABASE_URL", database_url)
    out = tmp_path / "subsets.csv"
    result = CliRunner().invoke(main, ["subsets", campaign.name, "--by", "answer_type", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "answer_type = yes_no: 12 questions" in result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {(r["subset"], r["system"]): float(r["z"]) for r in rows} == {
        (v, s.system): s.z for v, sub in rankings.items() for s in sub.systems}
    metadata = tmp_path / "meta.jsonl"
    metadata.write_text("".join(f'{{"id": "{q.external_id}", "source": "{"web" if i < 20 else "books"}"}}\n'
                                for i, q in enumerate(questions)))
    by_file = CliRunner().invoke(main, ["subsets", campaign.name, "--file", str(metadata), "--column", "source"])
    assert by_file.exit_code == 0, by_file.output
    assert "source = books: 15 questions" in by_file.output and "source = web: 20 questions" in by_file.output
    bad = CliRunner().invoke(main, ["subsets", campaign.name, "--file", str(metadata), "--column", "lang"])
    assert bad.exit_code == 1 and "no column 'lang' (columns: id, source)" in bad.output

    from analysis.agreement import agreement

    expected = agreement(analysis.table, group.qc.passed_workers)
    assert expected.units > 0
    shown = CliRunner().invoke(main, ["agreement", campaign.name])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.strip() == expected.describe()
    assert f"= {expected.alpha_raw:.3f} on raw scores" in shown.stdout


def test_the_dashboard_shows_subsets_and_agreement(database_url, tmp_path):
    from analysis.agreement import agreement
    from da_platform.config.accounts import create_user
    from tests.web_factories import make_web_env

    env = make_web_env(database_url, tmp_path)
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2)
        for worker, index in (("w0", 0), ("w1", 1), ("w2", 2), ("w3", 3)):
            factories.rate_hit(session, campaign, index, worker, seed=index)
        create_user(session, "ana", "correct horse battery staple")
        session.commit()
        analysis = CampaignAnalysis(session, campaign)
        expected = agreement(analysis.table, analysis.group.qc.passed_workers)
        rankings = subset_rankings(analysis.group, question_values(session, campaign, "script"), alpha=0.05)
        campaign_id = campaign.id
    client = env.app.test_client()
    login(client)
    page = client.get(f"/admin/campaigns/{campaign_id}").text
    assert f"Agreement between raters: {expected.describe()}." in page.replace("&#39;", "'")
    subsets_page = client.get(f"/admin/campaigns/{campaign_id}/subsets?by=script").text
    assert subsets_page.count('class="compact subset-table"') == len(rankings) == 1
    assert "script: space-separated" in subsets_page
