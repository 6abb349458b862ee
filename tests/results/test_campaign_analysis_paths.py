"""Every number about a campaign comes from one analysis (da_platform.results.campaign_analysis).

After a review decision excludes a worker's data, ``analyze --campaign``, ``validate-metrics
--campaign``, the dashboard, the ranking / WMT exports and the bundle must give the same system
scores, and say which workers were excluded by the decision and which by quality control.
"""
from __future__ import annotations

import csv
import io
import json
import zipfile
from datetime import timedelta

from sqlalchemy import select

from analysis.report import analyze
from da_platform.db.models import Campaign, ReviewDecision, Worker
from da_platform.results.campaign_analysis import CampaignAnalysis
from hit_builder.storage import LocalImageStorage
from tests import dashboard_factories as factories


def test_every_path_agrees_after_an_exclusion(sessions, database_url, tmp_path, run):
    with sessions() as session:
        campaign = factories.build(session, LocalImageStorage(tmp_path / "images"), passes=2)
        for i, name in enumerate(["careful", "careless", "steady", "fourth"]):
            behaviour = factories.careless if name == "careless" else factories.good
            factories.rate_hit(session, campaign, i, name, behaviour, seed=i,
                               start=factories.START + timedelta(hours=i))
        campaign_id = campaign.id
    with sessions.begin() as session:
        worker = session.scalar(select(Worker).where(Worker.external_id == "steady"))
        session.add(ReviewDecision(campaign_id=campaign_id, worker_id=worker.id, action="approve", use_data=False,
                                   reason="approve but exclude", request_token="t-1", status="done"))
    with sessions() as session:  # what the dashboard's pages build (da_platform.web.admin.context)
        analysis = CampaignAnalysis(session, session.get(Campaign, campaign_id))
    dashboard = {s.system: (s.raw, s.z, s.n_ratings) for s in analysis.group.scores.systems}
    # The exclusion matters: without it, the same ratings give other numbers.
    everyone = analyze(analysis.table).groups["dash"].scores.by_system()
    assert sum(s.n_ratings for s in everyone.values()) > sum(n for _, _, n in dashboard.values())
    assert {(e.worker, e.excluded_by) for e in analysis.exclusions} == {
        ("pool:steady", "decision"), ("pool:careless", "quality control")}

    out = tmp_path / "analyze"
    result = run("analyze", "--campaign", "dash", "--out", str(out), "--no-plots")
    assert result.exit_code == 0, result.output
    assert "dash: 1 excluded by a review decision: pool:steady" in result.output
    assert "dash: 1 excluded by quality control: pool:careless" in result.output
    cli = {r["system"]: (float(r["raw"]), float(r["z"]), int(r["N"]))
           for r in csv.DictReader((out / "system-scores.csv").open(encoding="utf-8"))}
    assert cli == dashboard

    for args in (("ranking", "dash", "--out", str(tmp_path / "ranking.csv")),
                 ("ranking", "dash", "--out", str(tmp_path / "ranking.json")),
                 ("bundle", "dash", "--out", str(tmp_path / "bundle.zip"))):
        assert run("export", *args).exit_code == 0
    exported = {r["system"]: (float(r["raw"]), float(r["z"]), int(r["N"]))
                for r in csv.DictReader((tmp_path / "ranking.csv").open(encoding="utf-8"))}
    assert exported == dashboard
    document = json.loads((tmp_path / "ranking.json").read_text(encoding="utf-8"))
    assert {(e["worker"], e["excluded_by"]) for e in document["exclusions"]} == {
        ("pool:steady", "decision"), ("pool:careless", "quality control")}
    bundle = zipfile.ZipFile(tmp_path / "bundle.zip")
    assert bundle.read("results/system-scores.csv") == (out / "system-scores.csv").read_bytes()
    excluded = {row["worker"]: row["excluded_by"]
                for row in csv.DictReader(io.StringIO(bundle.read("excluded-workers.csv").decode()))}
    assert excluded == {"pool:steady": "decision", "pool:careless": "quality control"}

    scores = tmp_path / "metric.csv"
    scores.write_text("system,m1,m2\n" + "".join(f"{s},{0.9 - 0.1 * i},{0.1 * i}\n"
                                               for i, s in enumerate(factories.QUALITY)), encoding="utf-8")
    validation = run("validate-metrics", "--campaign", "dash", "--metric-scores", str(scores),
                     "--out", str(tmp_path / "validation"))
    assert validation.exit_code == 0, validation.output
    assert "excluded by a review decision: pool:steady" in validation.output
    human = json.loads((tmp_path / "validation" / "metric-validation.json").read_text(encoding="utf-8"))
    assert dict(zip(human["systems"], human["human"])) == {s: z for s, (_, z, _) in dashboard.items()}
