"""Exports (``da_platform.exports``) from the CLI and the dashboard, progress, and dashboard accounts."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from analysis.readers import read_long_csv
from da_platform.campaigns.progress import campaign_progress
from da_platform.config.accounts import authenticate
from da_platform.db.models import Campaign, ReviewDecision, Worker
from da_platform.exports import files as exports
from da_platform.results.campaign_analysis import CampaignAnalysis
from tests import dashboard_factories as factories


def test_an_empty_campaign_is_not_exported(sessions, tmp_path, run):
    campaign_id = factories.campaign_rated_in_part(sessions, tmp_path, rated_hits=0)
    with sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        for export in (exports.ratings, exports.wmt, exports.bundle, exports.ranking):
            with pytest.raises(exports.ExportError, match=r"has no ratings yet \(unfinished: 0 of 4 HITs done\)"):
                export(session, campaign, partial=True)
    out = tmp_path / "out" / "ranking.csv"
    result = run("export", "ranking", "dash", "--out", str(out), "--partial")
    assert result.exit_code == 1 and "has no ratings yet" in result.output
    assert not out.exists()
    assert run("export", "bundle", "nope", "--out", str(out)).output.strip().startswith(
        "Error: no campaign named 'nope' (campaigns: dash) in database ")


def test_an_unfinished_campaign_needs_partial_and_then_says_so(sessions, tmp_path, run):
    campaign_id = factories.campaign_rated_in_part(sessions, tmp_path, rated_hits=3)
    with sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        with pytest.raises(exports.ExportError, match="is unfinished: 3 of 4 HITs done; export it anyway"):
            exports.bundle(session, campaign)
        made = exports.bundle(session, campaign, partial=True)
    assert made.name == "dash-partial-bundle.zip"
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(made.content)).read("manifest.json"))
    assert manifest["status"] == "unfinished: 3 of 4 HITs done" and manifest["complete"] is False
    assert manifest["hits"] == {"total": 4, "done": 3, "in_progress": 0, "open": 1}
    refused = run("export", "ranking", "dash", "--out", str(tmp_path / "r.tex"))
    assert refused.exit_code == 1 and "--partial" in refused.output and not (tmp_path / "r.tex").exists()
    assert run("export", "ranking", "dash", "--out", str(tmp_path / "r.tex"), "--partial").exit_code == 0
    latex = (tmp_path / "r.tex").read_text()
    assert latex.startswith("% unfinished: 3 of 4 HITs done: provisional ranking\n\\begin{tabular}")


def test_a_complete_campaign_exports_everything(sessions, tmp_path, run):
    campaign_id = factories.campaign_rated_in_part(sessions, tmp_path, rated_hits=4)
    with sessions.begin() as session:  # the researcher excluded one careful worker's data
        worker = session.scalar(select(Worker).where(Worker.external_id == "steady"))
        session.add(ReviewDecision(campaign_id=campaign_id, worker_id=worker.id, action="exclude_data",
                                   use_data=False, reason="asked to withdraw", request_token="t-1", status="done"))
    out = tmp_path / "out"
    for args in (("ranking", "dash", "--out", str(out / "ranking.csv")),
                 ("ranking", "dash", "--out", str(out / "ranking.json")),
                 ("ranking", "dash", "--out", str(out / "ranking.tex")),
                 ("ratings", "dash", "--out", str(out / "ratings.csv")),
                 ("wmt", "dash", "--out", str(out / "wmt")),
                 ("bundle", "dash", "--out", str(out / "bundle.zip"))):
        result = run("export", *args)
        assert result.exit_code == 0, result.output
    with sessions() as session:
        analysis = CampaignAnalysis(session, session.get(Campaign, campaign_id))
    order = list(analysis.group.ranking.systems)
    assert order == list(factories.QUALITY)  # the known quality order
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    assert [r["system"] for r in rows] == order and [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
    assert sum(int(r["N"]) for r in rows) == sum(s.n_ratings for s in analysis.group.scores.systems)
    ranking = json.loads((out / "ranking.json").read_text())
    assert ranking["status"] == "complete: 4 of 4 HITs"
    assert ranking["excluded_workers"] == {"pool:steady": "asked to withdraw"}
    assert (out / "ranking.tex").read_text().startswith("\\begin{tabular}")
    assert len(read_long_csv(out / "ratings.csv")) == 400  # every rating, excluded workers too
    assert sorted(p.name for p in (out / "wmt").iterdir()) == [
        "ad-seg-scores-dash.csv", "ad-sys-scores-dash.csv", "adwilcox-dash.csv", "clusters.csv"]

    bundle = zipfile.ZipFile(out / "bundle.zip")
    names = set(bundle.namelist())
    assert {"manifest.json", "campaign.json", "settings.json", "hits.csv", "degradation.jsonl",
            "quality-control.json", "excluded-workers.csv", "decisions.csv", "ratings.csv",
            "results/analysis.json", "results/system-scores.csv", "results/wmt/clusters.csv"} <= names
    # every CSV is plain, header first (no comment lines before it), as spreadsheets and pandas read them
    for name in [n for n in names if n.endswith(".csv") and "/wmt/" not in n]:
        assert bundle.read(name).decode().split("\n", 1)[0].split(",")[0].isidentifier(), name
    manifest = json.loads(bundle.read("manifest.json"))
    assert manifest["status"] == "complete: 4 of 4 HITs" and manifest["ratings"] == 400
    assert manifest["software"]["da-platform"] == __import__("da_platform").__version__
    assert manifest["files"] == {n: hashlib.sha256(bundle.read(n)).hexdigest() for n in names - {"manifest.json"}}
    settings = json.loads(bundle.read("settings.json"))
    assert settings["id_salt"] == "(redacted)" and settings["assembly"]["seed"] == 1
    assert json.loads(bundle.read("campaign.json"))["seed"] == 1
    hits = list(csv.DictReader(io.StringIO(bundle.read("hits.csv").decode())))
    assert len(hits) == 400
    for hit in range(4):
        types = [h["slot_type"] for h in hits if h["hit"] == str(hit)]
        assert {t: types.count(t) for t in set(types)} == {"SYSTEM": 70, "REPEAT": 10, "BAD_REF": 10, "REF": 10}
    degradations = bundle.read("degradation.jsonl").decode().splitlines()
    assert len(degradations) == 40 and all(json.loads(line)["degradation"] for line in degradations)
    qc = json.loads(bundle.read("quality-control.json"))["analysis"]["qc"]
    assert qc["method"] == "wilcoxon" and qc["alpha"] == 0.05
    excluded = {row["worker"]: row for row in csv.DictReader(io.StringIO(bundle.read("excluded-workers.csv").decode()))}
    assert excluded["pool:steady"]["reason"] == "asked to withdraw"
    assert excluded["pool:careless"]["excluded_by"].startswith("quality control")
    assert set(excluded) == {"pool:steady", "pool:careless"}
    assert bundle.read("results/system-scores.csv") == (out / "ranking.csv").read_bytes()


def test_progress_projects_completion_time_and_cost(sessions, tmp_path):
    campaign_id = factories.campaign_rated_in_part(sessions, tmp_path, rated_hits=2)
    with sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        factories.rate_hit(session, campaign, 2, "slow", slots=30, start=factories.START + timedelta(hours=2))
        campaign.settings = {**campaign.settings, "mturk": {"reward": "2.00"}}
        session.commit()
        now = factories.START + timedelta(hours=3)
        progress = campaign_progress(session, campaign, now=now)
    assert (progress.hits_done, progress.hits_in_progress, progress.hits_open) == (2, 1, 1)
    assert progress.ratings_total == 230 and sum(n for _, n in progress.ratings_by_system) == 230
    # 2 assignments finished between 09:00 and 10:10 (600 s each, an hour apart): 2 / (70/60) per hour
    assert progress.assignments_per_hour == pytest.approx(2 / (70 / 60))
    assert progress.projected_finish == now + timedelta(hours=2 / progress.assignments_per_hour)
    # 4 assignments at 2.00 + 20 % MTurk fee; 2 of them still to come
    assert progress.cost.total == Decimal("9.60") and progress.cost.remaining == Decimal("4.80")
    assert progress.describe() == "unfinished: 2 of 4 HITs done"


def test_progress_counts_a_pool_hit_past_its_time_limit_as_open(sessions, tmp_path):
    """The next arrival gets such a HIT (see da_platform.providers.pool.arrival), so nobody is rating it."""
    campaign_id = factories.campaign_rated_in_part(sessions, tmp_path, rated_hits=2)
    started = factories.START + timedelta(hours=2)
    with sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        factories.rate_hit(session, campaign, 2, "walked-away", slots=30, start=started)
        factories.rate_hit(session, campaign, 3, "mturk-worker", slots=10, start=started, source="mturk")
        campaign.settings = {**campaign.settings, "pool_time_limit_minutes": 60}
        session.commit()
        within = campaign_progress(session, campaign, now=started + timedelta(minutes=59))
        past = campaign_progress(session, campaign, now=started + timedelta(minutes=61))
    assert (within.hits_done, within.hits_in_progress, within.hits_open) == (2, 2, 0)
    assert within.assignments_in_progress == 2
    # The pool HIT is open again; the MTurk one keeps MTurk's own clock (synced from MTurk).
    assert (past.hits_done, past.hits_in_progress, past.hits_open) == (2, 1, 1)
    assert past.assignments_in_progress == 1
    assert past.ratings_total == within.ratings_total == 240  # the ratings given stay


def test_admin_users_are_created_from_the_cli(run, sessions):
    created = run("admin", "create-user", "ana", input="a long enough secret\na long enough secret\n")
    assert created.exit_code == 0 and "user ana created" in created.output
    assert run("admin", "create-user", "ana", input="another long secret\nanother long secret\n").exit_code == 1
    short = run("admin", "create-user", "bea", input="short\nshort\n")
    assert short.exit_code == 1 and "at least 12 characters" in short.output
    mismatch = run("admin", "create-user", "cleo", input="a long enough secret\nsomething else entirely\n")
    assert mismatch.exit_code == 1 and "do not match" in mismatch.output
    assert run("admin", "create-user", "with space", input="").exit_code == 1
    changed = run("admin", "set-password", "ana", input="a brand new password\na brand new password\n")
    assert changed.exit_code == 0
    assert "ana" in run("admin", "list-users").output
    with sessions() as session:
        assert authenticate(session, "ana", "a brand new password") is not None
        assert authenticate(session, "ana", "a long enough secret") is None
        user = authenticate(session, "ana", "a brand new password")
        assert user.password_hash.startswith("scrypt:") and "a brand new password" not in user.password_hash
        assert authenticate(session, "bea", "short") is None and authenticate(session, "cleo", "x" * 20) is None
