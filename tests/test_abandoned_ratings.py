"""Ratings of abandoned (released, timed-out, returned) assignments tell one story everywhere: stored and
counted as stored, never analysed or exported, and said so in the same words by `campaign list`, the
dashboard's lists, campaign, workers and worker pages, the exports and `analyze` (both databases).

Campaign: 4 HITs (tests/dashboard_factories.py). "full" rates HIT 0; "leaver" rates 14 items of HIT 1
and is released; "both" rates HIT 2 and 10 items of HIT 3 and is released from HIT 3. Stored: 100 + 14 +
100 + 10 = 224 ratings, 24 of them abandoned; the analysis and the exports hold the other 200.
"""
from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.lifecycle import release_assignment
from da_platform.models import Assignment, Worker
from tests import dashboard_factories as factories
from tests.admin_client import login


@pytest.fixture
def env(admin_env, database_url):
    env = admin_env  # the app and its dashboard user ana (tests/conftest.py)
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2, hostile=False)
        factories.rate_hit(session, campaign, 0, "full", seed=1)
        factories.rate_hit(session, campaign, 1, "leaver", slots=14, seed=2)
        factories.rate_hit(session, campaign, 2, "both", seed=3)
        factories.rate_hit(session, campaign, 3, "both", slots=10, seed=4)
        env.campaign_id, env.name = campaign.id, campaign.name
    env.url = database_url
    return env


def release_the_unfinished(env) -> None:
    with env.sessions() as session:
        for assignment in session.scalars(select(Assignment).where(Assignment.completed_at.is_(None))):
            release_assignment(session, assignment, actor="test")
        session.commit()


def cli(env, tmp_path, *args: str):
    return CliRunner().invoke(main, list(args), env={"DA_DATABASE_URL": env.url,
                                                     "DA_INSTANCE_PATH": str(tmp_path / "instance")})


def row_of(page: str, worker: str) -> str:
    return re.search(rf"<tr>\s*<td><a [^>]*>{worker}</a>.*?</tr>", page, re.DOTALL).group(0)


def test_every_page_and_command_tells_the_same_story(env, tmp_path):
    client = env.app.test_client()
    login(client)
    base = f"/admin/campaigns/{env.campaign_id}"
    before = client.get(f"{base}/workers").text  # the analysis is cached now, the leaver still rating
    assert "no ratings yet" not in row_of(before, "leaver")
    release_the_unfinished(env)

    listing = cli(env, tmp_path, "campaign", "list")
    assert listing.exit_code == 0 and "224 (24 ratings, abandoned, not analysed)" in listing.output
    assert "224 (24 ratings, abandoned, not analysed)" in client.get("/admin/").text

    page = client.get(base).text
    assert '<span class="big">224</span> ratings' in page
    assert re.search(r'id="ratings-abandoned">24 ratings, abandoned, not analysed<', page)
    assert "leave out 24 ratings, abandoned, not analysed" in page

    workers = client.get(f"{base}/workers").text  # the cached analysis is not reused: a HIT was abandoned
    assert "14 ratings, abandoned, not analysed" in row_of(workers, "leaver")
    assert '<span class="tag warn">10 ratings, abandoned, not analysed</span>' in row_of(workers, "both")
    assert "abandoned" not in row_of(workers, "full")
    with env.sessions() as session:
        leaver = session.scalar(select(Worker.id).where(Worker.external_id == "leaver"))
    worker_page = client.get(f"{base}/workers/{leaver}").text
    assert "No ratings analysed: 14 ratings, abandoned, not analysed" in worker_page

    exported = cli(env, tmp_path, "export", "ratings", env.name, "--partial", "--out", str(tmp_path / "r.csv"))
    assert exported.exit_code == 0, exported.output
    assert "note: left out: 24 ratings, abandoned, not analysed" in exported.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text(encoding="utf-8"))))
    assert len(rows) == 200 and {r["worker"] for r in rows} == {"pool:full", "pool:both"}
    bundle = cli(env, tmp_path, "export", "bundle", env.name, "--partial", "--out", str(tmp_path / "b.zip"))
    assert bundle.exit_code == 0 and "left out: 24 ratings, abandoned, not analysed" in bundle.stderr
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert (manifest["ratings"], manifest["ratings_abandoned"]) == (200, 24)

    analysed = cli(env, tmp_path, "analyze", "--campaign", env.name, "--out", str(tmp_path / "a"), "--no-plots")
    assert analysed.exit_code == 0, analysed.output
    assert "note: 24 ratings, abandoned, not analysed" in analysed.stderr


def test_a_campaign_without_abandoned_work_says_nothing_of_it(env, tmp_path):
    listing = cli(env, tmp_path, "campaign", "list")
    assert "224" in listing.output and "abandoned" not in listing.output
    client = env.app.test_client()
    login(client)
    assert "abandoned" not in client.get(f"/admin/campaigns/{env.campaign_id}").text
