"""``da-platform invite`` and ``serve`` (the parts that can run without blocking)."""
from __future__ import annotations

from urllib.parse import urlsplit

from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.db.models import AuditLog, Campaign, CampaignStatus
from tests.web_factories import make_web_env


def test_invite_mints_working_links_and_opens_the_campaign(database_url, tmp_path, monkeypatch):
    monkeypatch.setenv("DA_DATABASE_URL", database_url)
    monkeypatch.setenv("DA_SECRET_KEY", "test-secret-key")
    monkeypatch.setenv("DA_PUBLIC_URL", "https://rate.example.org")
    env = make_web_env(database_url, tmp_path)
    campaign = env.campaign(hits=3, slots=2, status=CampaignStatus.built)
    runner = CliRunner()

    closed = runner.invoke(main, ["invite", campaign.name, "--count", "2"])
    assert closed.exit_code == 0 and "add --open" in closed.stderr
    result = runner.invoke(main, ["invite", campaign.name, "--count", "3", "--open"])
    assert result.exit_code == 0, result.output
    # It opened the campaign without a word.
    assert f"opened campaign {campaign.name!r} (built → running): workers who follow a link get its HITs" \
        in result.stderr
    links = result.stdout.split()
    assert len(links) == 3 == len(set(links))
    assert all(link.startswith("https://rate.example.org/pool/") for link in links)
    with env.sessions() as s:
        assert s.scalar(select(Campaign.status)) == CampaignStatus.running
        assert s.scalar(select(AuditLog.action)) == "campaign.open"
    client = env.app.test_client()  # the server shares the secret key: the links work
    assert all(client.get(urlsplit(link).path).status_code == 303 for link in links)

    again = runner.invoke(main, ["invite", campaign.name, "--open"])  # running already: nothing opened, nothing said
    assert again.exit_code == 0 and "opened" not in again.stderr
    missing = runner.invoke(main, ["invite", "no-such-campaign"])
    assert missing.exit_code == 1 and f"campaigns: {campaign.name}" in missing.output


def test_invite_refuses_a_closed_campaign_and_says_how_a_paused_one_reopens(database_url, tmp_path, monkeypatch):
    monkeypatch.setenv("DA_DATABASE_URL", database_url)
    monkeypatch.setenv("DA_SECRET_KEY", "test-secret-key")
    env = make_web_env(database_url, tmp_path)
    closed = env.campaign(hits=1, slots=2, status=CampaignStatus.closed)
    paused = env.campaign(hits=1, slots=2, status=CampaignStatus.paused)
    runner = CliRunner()
    for args in ([], ["--open"], ["--label", "Ana"]):
        refused = runner.invoke(main, ["invite", closed.name, *args])
        assert refused.exit_code == 1 and refused.stdout == ""
        assert f"campaign {closed.name!r} is closed for good: links to it would never work; no link was made" \
            in refused.stderr
    warned = runner.invoke(main, ["invite", paused.name])
    assert warned.exit_code == 0 and warned.stdout.startswith("http")
    assert f"paused; the links work once it is resumed (`da-platform campaign resume {paused.name}`)" in warned.stderr
    reopened = runner.invoke(main, ["invite", paused.name, "--open"])
    assert reopened.exit_code == 1 and "resume it with `da-platform campaign resume" in reopened.stderr
    with env.sessions() as s:  # nothing changed: no labelled worker, no status change, no audit record
        from da_platform.db.models import Worker

        assert s.scalar(select(Worker.id)) is None and s.scalar(select(AuditLog.id)) is None
        assert {name: status for name, status in s.execute(select(Campaign.name, Campaign.status))} == {
            closed.name: CampaignStatus.closed, paused.name: CampaignStatus.paused}


def test_invite_needs_the_secret_key(tmp_path, monkeypatch):
    monkeypatch.setenv("DA_DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite'}")
    monkeypatch.delenv("DA_SECRET_KEY", raising=False)
    result = CliRunner().invoke(main, ["invite", "anything"])
    assert result.exit_code == 1 and "DA_SECRET_KEY is not set" in result.output


def test_serve_refuses_the_debugger_on_a_public_interface(tmp_path, monkeypatch):
    monkeypatch.setenv("DA_DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite'}")
    result = CliRunner().invoke(main, ["serve", "--debug", "--host", "0.0.0.0"])
    assert result.exit_code == 1 and "127.0.0.1 only" in result.output


def test_invite_sets_the_pool_time_limit(database_url, tmp_path, monkeypatch):
    monkeypatch.setenv("DA_DATABASE_URL", database_url)
    monkeypatch.setenv("DA_SECRET_KEY", "test-secret-key")
    env = make_web_env(database_url, tmp_path)
    campaign = env.campaign(hits=1, slots=2)
    runner = CliRunner()
    default = runner.invoke(main, ["invite", campaign.name])
    assert default.exit_code == 0 and "time limit per HIT: 180 minutes" in default.stderr
    assert "--time-limit" in runner.invoke(main, ["invite", "--help"]).output
    result = runner.invoke(main, ["invite", campaign.name, "--time-limit", "45"])
    assert result.exit_code == 0, result.output
    again = runner.invoke(main, ["invite", campaign.name])  # kept with the campaign
    assert "time limit per HIT: 45 minutes" in again.stderr
    with env.sessions() as s:
        assert s.scalar(select(Campaign.settings))["pool_time_limit_minutes"] == 45
        assert s.scalars(select(AuditLog.action)).all() == ["campaign.pool_time_limit"]
    too_short = runner.invoke(main, ["invite", campaign.name, "--time-limit", "0"])
    assert too_short.exit_code == 2 and "--time-limit" in too_short.output
