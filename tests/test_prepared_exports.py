"""Large exports prepared off the request path (``da_platform.prepared_exports``): the campaign page's
export button (a POST) starts a spawned process that prepares the file and sends the researcher to a
status page, the download equals the CLI's export of the same campaign, and a new rating or decision
makes the prepared file stale (the export link, a GET, then leads to the status page, which offers to
prepare it again).

``EXPORT_BACKGROUND_FROM=0`` makes every campaign "large"; the campaign is the dashboard factory's.
"""
from __future__ import annotations

import re
import secrets
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.models import Campaign, ReviewDecision, Worker
from da_platform.prepared_exports import (
    ExportRequest,
    Job,
    JobState,
    _dumps,
    app_exports,
    campaign_folder,
    read_export_stamp,
)
from da_platform.web.admin.accounts import create_user
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD, csrf_token, login
from tests.web_factories import make_web_env


@pytest.fixture
def env(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path, EXPORT_BACKGROUND_FROM=0, EXPORT_FOLDER=str(tmp_path / "exports"))
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        campaign = factories.build(session, env.storage, passes=2, hostile=True)
        factories.rate_hit(session, campaign, 0, "first", seed=1)
        env.campaign_id = campaign.id
    env.database_url = database_url
    env.client = env.app.test_client()
    login(env.client)
    return env


def cli_export(env, tmp_path: Path, *args: str) -> bytes:
    """The file ``da-platform export <args> --out FILE`` writes for the test campaign."""
    out = tmp_path / f"cli-{secrets.token_hex(4)}"
    result = CliRunner().invoke(main, ["export", *args, "dash", "--out", str(out)],
                                env={"DA_DATABASE_URL": env.database_url, "DA_INSTANCE_PATH": str(tmp_path / "i")})
    assert result.exit_code == 0, result.output
    return out.read_bytes()


def state(page: str) -> str:
    return re.search(r'id="export-state" data-state="(\w+)"', page).group(1)


def wait(env) -> None:
    with env.app.app_context():
        app_exports(env.app).wait(env.campaign_id)


def start(env, url: str):
    """Press the status page's button that prepares the export (a POST with the page's CSRF token)."""
    status = url.replace("/export/", "/prepared/")
    return env.client.post(status, data={"csrf_token": csrf_token(env.client, status)})


def folder(env) -> Path:
    """The folder of the test campaign's prepared files."""
    with env.sessions() as session:
        return app_exports(env.app).folder / campaign_folder(session.get(Campaign, env.campaign_id))


@pytest.mark.slow
def test_the_bundle_is_prepared_off_the_request_path_and_equals_the_clis(env, tmp_path) -> None:
    base = f"/admin/campaigns/{env.campaign_id}"
    link = env.client.get(f"{base}/export/bundle?partial=1")
    assert link.status_code == 303 and link.headers["Location"] == f"{base}/prepared/bundle?partial=1"
    assert state(env.client.get(f"{base}/prepared/bundle?partial=1").text) == "idle"  # a GET starts nothing
    button = env.client.post(f"{base}/prepared/bundle?partial=1",
                             data={"csrf_token": csrf_token(env.client, base)})  # the campaign page's button
    assert button.status_code == 303 and button.headers["Location"] == f"{base}/prepared/bundle?partial=1"
    page = env.client.get(f"{base}/prepared/bundle?partial=1")
    assert page.status_code == 200
    assert state(page.text) in ("preparing", "ready")
    wait(env)
    ready = env.client.get(f"{base}/prepared/bundle?partial=1").text
    assert state(ready) == "ready" and "from 100 ratings; up to date" in ready
    assert 'http-equiv="refresh"' not in ready and f'href="{base}/export/bundle?partial=1"' in ready
    download = env.client.get(f"{base}/export/bundle?partial=1")
    assert download.status_code == 200 and download.mimetype == "application/zip"
    assert download.headers["Content-Disposition"].endswith("filename=dash-partial-bundle.zip")
    assert download.data == cli_export(env, tmp_path, "bundle", "--partial")
    assert zipfile.ZipFile(BytesIO(download.data)).read("manifest.json")  # a real zip


@pytest.mark.slow
def test_a_new_rating_makes_the_prepared_bundle_stale(env, tmp_path) -> None:
    base = f"/admin/campaigns/{env.campaign_id}"
    start(env, f"{base}/export/bundle?partial=1")
    wait(env)
    first = env.client.get(f"{base}/export/bundle?partial=1").data
    with env.sessions() as session:
        factories.rate_hit(session, session.get(Campaign, env.campaign_id), 1, "second", seed=2)
    # another server is preparing the new one (its state file exists): nothing is started here
    wanted = ExportRequest("bundle", partial=True)
    with env.sessions() as session:
        stamp = read_export_stamp(session, session.get(Campaign, env.campaign_id))
    claim = folder(env) / f"{wanted.variant}--{stamp}.json"
    claim.write_text(_dumps(Job(JobState.PREPARING, stamp, "2026-01-01T00:00:00+00:00", step="ratings", step_index=2,
                                steps=7, host="another-server")))
    assert env.client.get(f"{base}/export/bundle?partial=1").status_code == 303  # never the old file as current
    page = env.client.get(f"{base}/prepared/bundle?partial=1").text
    assert state(page) == "preparing" and "step 3 of 7, ratings" in page
    assert '<meta http-equiv="refresh" content="3">' in page and 'max="7" value="2"' in page
    older = re.search(r'id="export-older">.*?from 100 ratings.*?href="([^"]+)"', page, re.DOTALL)
    assert older is not None  # the old file, offered marked out of date
    old = env.client.get(older.group(1).replace("&amp;", "&"))
    assert old.data == first and old.headers["Content-Disposition"].endswith("dash-partial-bundle-out-of-date.zip")
    claim.unlink()  # that server went away: this one prepares it, when asked
    assert state(env.client.get(f"{base}/prepared/bundle?partial=1").text) == "idle"
    start(env, f"{base}/export/bundle?partial=1")
    assert state(env.client.get(f"{base}/prepared/bundle?partial=1").text) in ("preparing", "ready")
    wait(env)
    assert state(env.client.get(f"{base}/prepared/bundle?partial=1").text) == "ready"
    second = env.client.get(f"{base}/export/bundle?partial=1").data
    manifest = zipfile.ZipFile(BytesIO(second)).read("manifest.json").decode()
    assert '"ratings": 200' in manifest and second != first
    assert second == cli_export(env, tmp_path, "bundle", "--partial")
    assert len(list(folder(env).glob("*.data"))) == 1  # the old one removed


@pytest.mark.slow
def test_one_preparation_at_a_time_and_a_silent_one_is_taken_as_dead(env) -> None:
    """While a preparation for older inputs runs (here: another server's), none is started for the
    new inputs; once its state file has been silent for SILENT_AFTER it counts as failed."""
    import os

    from da_platform.prepared_exports import SILENT_AFTER

    base = f"/admin/campaigns/{env.campaign_id}"
    prepared, wanted = app_exports(env.app), ExportRequest("wmt", partial=True)
    campaign_files = folder(env)
    campaign_files.mkdir(parents=True)
    running = campaign_files / f"{wanted.variant}--{'1' * 24}.json"
    running.write_text(_dumps(Job(JobState.PREPARING, "1" * 24, "2026-01-01T00:00:00+00:00", host="another-server")))
    start(env, f"{base}/export/wmt?partial=1")
    page = env.client.get(f"{base}/prepared/wmt?partial=1").text
    assert state(page) == "preparing" and "as they were when it started" in page
    assert sorted(p.name for p in campaign_files.iterdir()) == [running.name]  # nothing started here
    silent = running.stat().st_mtime - SILENT_AFTER - 1
    os.utime(running, (silent, silent))
    with env.sessions() as session:
        assert prepared.job(session.get(Campaign, env.campaign_id), wanted, "1" * 24).state is JobState.FAILED
    start(env, f"{base}/export/wmt?partial=1")
    wait(env)
    download = env.client.get(f"{base}/export/wmt?partial=1")
    assert download.status_code == 200 and download.headers["Content-Disposition"].endswith("dash-partial-wmt.zip")
    assert not running.exists()  # the dead one's state removed once a newer file is ready


@pytest.mark.slow
def test_a_decision_makes_the_prepared_ratings_stale(env, tmp_path) -> None:
    base = f"/admin/campaigns/{env.campaign_id}"
    url = f"{base}/export/ratings?partial=1&texts=1"
    assert env.client.get(url).status_code == 303
    assert start(env, url).status_code == 303
    wait(env)
    before = env.client.get(url)
    expected = cli_export(env, tmp_path, "ratings", "--partial", "--with-texts")
    assert before.status_code == 200 and before.data == expected
    with env.sessions() as session:
        worker = session.scalar(select(Worker.id).where(Worker.external_id == "first"))
        session.add(ReviewDecision(campaign_id=env.campaign_id, worker_id=worker, action="exclude_data",
                                   use_data=False, reason="test", request_token=secrets.token_hex(16), status="done"))
        session.commit()
    assert env.client.get(url).status_code == 303
    assert start(env, url).status_code == 303
    wait(env)
    assert env.client.get(url).status_code == 200


@pytest.mark.slow
def test_an_unfinished_campaign_without_partial_is_refused_by_the_preparation(env) -> None:
    base = f"/admin/campaigns/{env.campaign_id}"
    start(env, f"{base}/export/wmt")
    wait(env)
    refused = env.client.get(f"{base}/export/wmt")
    assert refused.status_code == 409 and "export it anyway as a partial export" in refused.text
    assert env.client.get(f"{base}/prepared/wmt").status_code == 409
    assert start(env, f"{base}/export/wmt").status_code == 409  # asked again: refused again, nothing started
    assert env.client.get(f"{base}/prepared/nope").status_code == 404


def test_the_job_records_its_steps_and_a_superseded_start(env) -> None:
    """The preparing function run in this process: a stale stamp is SUPERSEDED, a current one READY."""
    from da_platform.prepared_exports import prepare

    prepared = app_exports(env.app)
    wanted = ExportRequest("bundle", partial=True)
    with env.sessions() as session:
        stamp = read_export_stamp(session, session.get(Campaign, env.campaign_id))
        campaign = session.get(Campaign, env.campaign_id)
    base = folder(env) / f"{wanted.variant}--{stamp}"
    base.parent.mkdir(parents=True)
    prepare(env.database_url, str(base), env.campaign_id, wanted, "0" * 24)
    assert prepared.job(campaign, wanted, "0" * 24) is None  # written under its own name only
    prepare(env.database_url, str(base.with_name(f"{wanted.variant}--{'0' * 24}")), env.campaign_id, wanted, "0" * 24)
    assert prepared.job(campaign, wanted, "0" * 24).state is JobState.SUPERSEDED
    prepare(env.database_url, str(base), env.campaign_id, wanted, stamp)
    job = prepared.job(campaign, wanted, stamp)
    assert job.state is JobState.READY and job.step_index == job.steps == 7 and job.ratings == 100


@pytest.mark.browser
def test_in_chromium_the_status_page_reloads_itself_and_offers_the_download(tmp_path, browser) -> None:
    """No script: the meta refresh (allowed by the strict CSP) brings the download link when ready."""
    from da_platform.db import upgrade
    from da_platform.exports import bundle
    from tests.fakes.server import serve_wsgi

    database_url = f"sqlite:///{tmp_path / 'prepared.sqlite'}"
    upgrade(database_url)
    env = make_web_env(database_url, tmp_path, EXPORT_BACKGROUND_FROM=0, EXPORT_FOLDER=str(tmp_path / "exports"))
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        campaign = factories.build(session, env.storage, passes=2)
        factories.rate_hit(session, campaign, 0, "first", seed=1)
        campaign_id = campaign.id
    with env.sessions() as session:  # a fresh session, as the CLI's (the building one lists systems in build order)
        expected = bundle(session, session.get(Campaign, campaign_id), partial=True).content
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text else None)
    with serve_wsgi(env.app) as url:
        page.goto(f"{url}/admin/campaigns/{campaign_id}")
        page.fill("#username", "ana")
        page.fill("#password", PASSWORD)
        page.click("#login")
        page.click("#export-bundle")
        assert page.url == f"{url}/admin/campaigns/{campaign_id}/prepared/bundle?partial=1"
        page.wait_for_selector("#export-download", timeout=300_000)  # after one or more reloads
        with page.expect_download() as download:
            page.click("#export-download")
        assert Path(download.value.path()).read_bytes() == expected
    context.close()
    assert problems == []
