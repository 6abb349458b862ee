"""Attack suite, prepared exports of large campaigns: no preparation from a link, no files piling up.

- A GET of an export link (or of the status page) started a preparation process, so a page on another
  site could start them in a logged-in researcher's browser by navigation (cookies are SameSite=Lax,
  which lets top-level GETs through). Only a POST with the form's CSRF token starts one now.
- A refused export (an unfinished campaign without ``partial``) left one state file per request that
  was never removed; the newest refusal now replaces the older ones.

On SQLite and PostgreSQL. ``EXPORT_BACKGROUND_FROM=0`` makes every campaign "large".
"""
from __future__ import annotations

import re

import pytest

from da_platform.models import Campaign
from da_platform.prepared_exports import ExportRequest, JobState, app_exports
from da_platform.web.admin.accounts import create_user
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD, csrf_token, login
from tests.web_factories import make_web_env


@pytest.fixture
def env(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path, EXPORT_BACKGROUND_FROM=0, EXPORT_FOLDER=str(tmp_path / "exports"))
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        campaign = factories.build(session, env.storage, hostile=False)
        factories.rate_hit(session, campaign, 0, "first", seed=1)
        env.campaign_id = campaign.id
    env.exports = tmp_path / "exports"
    env.client = env.app.test_client()
    login(env.client)
    return env


def _state_files(env) -> list[str]:
    return sorted(p.name for p in env.exports.rglob("*.json"))


@pytest.mark.slow
def test_no_get_starts_a_preparation(env):
    base = f"/admin/campaigns/{env.campaign_id}"
    link = env.client.get(f"{base}/export/bundle?partial=1")  # as a cross-site navigation would
    assert link.status_code == 303 and link.headers["Location"].endswith("/prepared/bundle?partial=1")
    for url in (f"{base}/prepared/bundle?partial=1", f"{base}/prepared/bundle?partial=1&retry=1",
                f"{base}/export/ratings?partial=1&texts=1", f"{base}/export/wmt?partial=1"):
        assert env.client.get(url).status_code in (200, 303), url
    assert not env.exports.exists() or not list(env.exports.rglob("*"))
    page = env.client.get(f"{base}/prepared/bundle?partial=1").text
    assert 'data-state="idle"' in page and 'http-equiv="refresh"' not in page  # nothing to wait for

    forged = env.client.post(f"{base}/prepared/bundle?partial=1")  # a cross-site form: no CSRF token
    assert forged.status_code == 400 and _state_files(env) == []

    started = env.client.post(f"{base}/prepared/bundle?partial=1",
                              data={"csrf_token": csrf_token(env.client, f"{base}/prepared/bundle?partial=1")})
    assert started.status_code == 303 and started.headers["Location"].endswith("/prepared/bundle?partial=1")
    assert len(_state_files(env)) == 1
    app_exports(env.app).wait(env.campaign_id)
    download = env.client.get(f"{base}/export/bundle?partial=1")
    assert download.status_code == 200 and download.mimetype == "application/zip"


@pytest.mark.slow
def test_refused_exports_leave_one_state_file(env):
    """Three requests of an export the campaign refuses (unfinished, not partial), ratings arriving in
    between: one state file is left, the newest refusal's."""
    prepared, wanted = app_exports(env.app), ExportRequest("ratings")
    for i in range(3):
        with env.sessions() as session:
            campaign = session.get(Campaign, env.campaign_id)
            factories.rate_hit(session, campaign, 1, f"late-{i}", slots=i + 1, seed=i)
            prepared.ensure(session, campaign, wanted)
        prepared.wait(env.campaign_id)
    with env.sessions() as session:
        status = prepared.status(session, session.get(Campaign, env.campaign_id), wanted)
    assert status.current is not None and status.current.state is JobState.FAILED
    assert "ExportError" in status.current.error
    assert _state_files(env) == [f"ratings--{status.stamp}.json"]
    assert not list(env.exports.rglob("*.data"))
    refused = env.client.get(f"/admin/campaigns/{env.campaign_id}/prepared/ratings")
    assert refused.status_code == 409 and re.search("partial", refused.text)
