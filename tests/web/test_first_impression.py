"""First impressions: the demo's serve hint works, ``/`` is a landing page, partial CSV
exports say they are partial, and the rejection confirmation says what the worker is really told."""
from __future__ import annotations

import csv
import io
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from da_platform.db.engine import upgrade
from da_platform.db.models import Campaign
from da_platform.exports import files as exports
from tests.admin_client import login
from tests.dashboard_factories import campaign_rated_in_part

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_the_demos_serve_hint_runs_and_slash_points_to_the_dashboard(tmp_path):
    """`da-platform serve --demo --out FOLDER` (the demo's last line) serves FOLDER's demo."""
    folder = tmp_path / "my-demo"
    folder.mkdir()
    upgrade(f"sqlite:///{folder / 'demo.sqlite'}")  # a demo database (empty: serving needs no ratings)
    port = _free_port()
    environment = {**os.environ, "PYTHONPATH": str(REPO), "DA_INSTANCE_PATH": str(tmp_path / "elsewhere")}
    server = subprocess.Popen([sys.executable, "-m", "da_platform", "serve", "--demo", "--out", str(folder),
                               "--port", str(port)], cwd=tmp_path, env=environment,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        landing = None
        for _ in range(600):  # wait (up to a minute) for the server to listen
            try:
                landing = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except OSError:
                if server.poll() is not None:
                    break
                time.sleep(0.1)
        assert landing is not None, server.communicate()[0]
        page = landing.read().decode()
        assert landing.status == 200 and 'href="/admin/"' in page and "dashboard" in page
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert f"http://127.0.0.1:{port}/admin/  (user demo, password" in output
    assert not (tmp_path / "elsewhere").exists()  # the demo's database, not the instance's


def test_out_without_demo_is_a_usage_error(tmp_path):
    from click.testing import CliRunner

    from da_platform.cli import main

    result = CliRunner().invoke(main, ["serve", "--out", str(tmp_path)], env={"DA_DATABASE_URL": "sqlite://"})
    assert result.exit_code == 2 and "use it with --demo" in result.output


def test_partial_csv_exports_carry_their_status_on_every_row(sessions, tmp_path):
    campaign_id = campaign_rated_in_part(sessions, tmp_path, rated_hits=3)
    with sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        ratings = exports.ratings(session, campaign, partial=True)
        ranking = exports.ranking(session, campaign, "csv", partial=True)
    for made in (ratings, ranking):
        rows = list(csv.DictReader(io.StringIO(made.content.decode())))
        assert rows and {row["status"] for row in rows} == {"unfinished: 3 of 4 HITs done"}
    assert len(list(csv.reader(io.StringIO(ratings.content.decode())))) == 301  # header + 3 HITs of 100


def test_complete_csv_exports_have_no_status_column(sessions, tmp_path):
    campaign_id = campaign_rated_in_part(sessions, tmp_path, rated_hits=4)
    with sessions() as session:
        made = exports.ratings(session, session.get(Campaign, campaign_id))
    assert "status" not in made.content.decode().splitlines()[0].split(",")


def test_rejecting_an_own_pool_worker_does_not_promise_a_message(rated):
    client = rated.app.test_client()
    login(client)
    url = f"/admin/campaigns/{rated.campaign_id}/workers/{rated.workers['careless']}/decide?action=reject"
    page = client.get(url)
    assert page.status_code == 200
    text = re.sub(r"\s+", " ", page.text)
    assert "sees the rejection message" not in text
    assert "The worker is not told: the platform shows own-pool workers no rejection message" in text


def test_the_landing_page_is_public_and_escapes_nothing_from_data(admin_env):
    page = admin_env.app.test_client().get("/")
    assert page.status_code == 200 and 'href="/admin/"' in page.text
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


def test_ratings_with_texts_and_a_self_contained_bundle(sessions, tmp_path):
    import json
    import zipfile

    from analysis.readers import read_long_csv
    from da_platform.building.importers import import_system_answers, import_test_set
    from da_platform.db.models import Slot

    campaign_id = campaign_rated_in_part(sessions, tmp_path, rated_hits=4)
    with sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        made = exports.ratings(session, campaign, with_texts=True)
        bundle = zipfile.ZipFile(io.BytesIO(exports.bundle(session, campaign).content))
        slots = {str(s.id): s for s in session.query(Slot).all()}
        rows = list(csv.DictReader(io.StringIO(made.content.decode())))
        assert made.name == "dash-ratings-with-texts.csv" and len(rows) == 400
        for row in rows:
            slot = slots[row["slot"]]
            assert row["candidate"].lstrip("'") == slot.candidate_text
            assert row["reference"] == slot.reference_text and row["question"] == slot.question.text
            assert row["check_type"] == {"SYSTEM": "", "REPEAT": "repeat of an ordinary item",
                                         "BAD_REF": "degraded copy of an answer",
                                         "REF": "the reference shown as the answer"}[row["slot_type"]]
        manifest = json.loads(bundle.read("manifest.json"))
        assert {"test-set.jsonl", "answers.jsonl", "ratings-with-texts.csv"} <= set(manifest["files"])
        # self-contained: the bundle's test set and answers import as they were
        for name in ("test-set.jsonl", "answers.jsonl"):
            (tmp_path / name).write_bytes(bundle.read(name))
        again = import_test_set(session, tmp_path / "test-set.jsonl", name="from the bundle")
        systems = import_system_answers(session, again, tmp_path / "answers.jsonl")
        original = {(a.system.name, a.question.external_id): a.text for s in campaign.systems for a in s.answers}
        copied = {(s.name, a.question.external_id): a.text for s in systems for a in s.answers}
        assert copied == original and len(copied) == 4 * 35
        assert [q.text for q in again.questions] == [q.text for q in campaign.test_set.questions]
        session.rollback()
    path = tmp_path / "texts.csv"
    path.write_bytes(made.content)
    assert len(read_long_csv(path)) == 400  # still readable by the analysis
