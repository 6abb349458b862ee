"""Campaign lifecycle (``da_platform.campaigns.lifecycle`` and its CLI): pause / resume / close and their effect
on arrivals, releasing a stuck assignment, deletion guards, replacing a system's answers."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from da_platform.campaigns.assignments import assignments_in_progress
from da_platform.cli import main
from da_platform.db import models
from da_platform.db.models import (
    Answer,
    Assignment,
    AssignmentStatus,
    AuditLog,
    Campaign,
    CampaignStatus,
    Hit,
    Rating,
    Slot,
    System,
)
from da_platform.providers.pool.arrival import mint_invites
from da_platform.providers.tokens import Tokens
from tests.admin_client import PASSWORD, login
from tests.web_factories import make_web_env


@pytest.fixture
def env(database_url, tmp_path, monkeypatch):
    monkeypatch.setenv("DA_DATABASE_URL", database_url)
    return make_web_env(database_url, tmp_path)


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def arrive(client, campaign_id: int):
    """A new own-pool person follows a fresh invite link; returns (response, their link path)."""
    link = urlsplit(mint_invites(Tokens("test-secret-key"), "http://127.0.0.1", campaign_id, 1, 1)[0]).path
    return client.get(link), link


def rate(client, arrival_response, count: int) -> None:
    """Rate the first ``count`` slots of the assignment the arrival redirected to."""
    token = arrival_response.headers["Location"].split("/a/")[1].split("/")[0]
    for _ in range(count):
        page = client.get(f"/a/{token}/slot").text
        slot = page.split('name="slot" value="')[1].split('"')[0]
        assert client.post(f"/a/{token}/slot", data={"slot": slot, "score": "70"}).status_code == 303


@pytest.mark.slow
def test_pause_resume_close_and_what_arrivals_get(env):
    web = env.campaign(hits=3, slots=10)
    client = env.app.test_client()
    first, first_link = arrive(client, web.campaign_id)
    assert first.status_code == 303

    assert cli("campaign", "pause", web.name, "--reason", "fixing a typo").exit_code == 0
    refused, _ = arrive(client, web.campaign_id)
    assert refused.status_code == 409 and "paused at the moment" in refused.text
    assert client.get(first_link).status_code == 303  # work under way goes on
    assert cli("campaign", "pause", web.name).output.startswith(
        f"Error: campaign {web.name!r} is paused: it cannot pause (possible: resume, close)")

    assert cli("campaign", "resume", web.name).exit_code == 0
    assert arrive(client, web.campaign_id)[0].status_code == 303

    assert cli("campaign", "close", web.name).exit_code == 0
    closed, _ = arrive(client, web.campaign_id)
    assert closed.status_code == 409 and "not open at the moment" in closed.text
    again = cli("campaign", "resume", web.name)
    assert again.exit_code == 1 and "closed: it cannot resume (possible: nothing (closed is final))" in again.output
    with env.sessions() as session:
        actions = session.execute(select(AuditLog.action, AuditLog.reason).order_by(AuditLog.id)).all()
    assert actions == [("campaign.pause", "fixing a typo"), ("campaign.resume", None), ("campaign.close", None)]


def test_a_released_assignment_frees_its_hit_and_keeps_its_ratings(env):
    web = env.campaign(hits=1, slots=10)
    client = env.app.test_client()
    first, _ = arrive(client, web.campaign_id)
    rate(client, first, 3)
    assert arrive(client, web.campaign_id)[0].status_code == 409  # the only HIT is taken
    with env.sessions() as session:
        (shown,) = assignments_in_progress(session, session.get(Campaign, web.campaign_id))
    assert (shown.rated, shown.total, shown.hit_index, shown.overdue) == (3, 10, 0, False)
    listing = cli("campaign", "assignments", web.name)
    assert shown.public_id in listing.output and "3/10" in listing.output

    result = cli("campaign", "release", web.name, "--assignment", shown.public_id, "--reason", "left the lab")
    assert result.exit_code == 0, result.output
    assert "3 ratings kept" in result.output
    with env.sessions() as session:
        assert session.scalar(select(Assignment.status)) == AssignmentStatus.abandoned
        assert session.scalar(select(func.count(Rating.id))) == 3
        audit = session.scalar(select(AuditLog).where(AuditLog.action == "assignment.release"))
        assert audit.reason == "left the lab" and audit.details["rated"] == 3
    assert arrive(client, web.campaign_id)[0].status_code == 303  # the HIT went to the next person
    twice = cli("campaign", "release", web.name, "--assignment", shown.public_id)
    assert twice.exit_code == 1 and "only an assignment in progress can be released" in twice.output


def test_release_takes_the_worker_as_campaign_assignments_prints_it(env):
    web = env.campaign(hits=2, slots=10)
    client = env.app.test_client()
    for _ in range(2):
        rate(client, arrive(client, web.campaign_id)[0], 2)
    listing = cli("campaign", "assignments", web.name).output
    with env.sessions() as session:
        shown = assignments_in_progress(session, session.get(Campaign, web.campaign_id))
    printed = [a.worker for a in shown]
    assert all(label.startswith("pool:p-") and label in listing for label in printed)

    as_printed = cli("campaign", "release", web.name, "--worker", printed[0])
    assert as_printed.exit_code == 0, as_printed.output
    assert f"released assignment {shown[0].public_id}" in as_printed.output
    id_alone = cli("campaign", "release", web.name, "--worker", printed[1].removeprefix("pool:"))
    assert id_alone.exit_code == 0 and f"released assignment {shown[1].public_id}" in id_alone.output
    with env.sessions() as session:
        assert set(session.scalars(select(Assignment.status))) == {AssignmentStatus.abandoned}

    again = cli("campaign", "release", web.name, "--worker", printed[0])
    assert again.exit_code == 1
    assert f"no assignment of worker {printed[0]!r} in progress in campaign {web.name!r}" in again.output
    nobody = cli("campaign", "release", web.name, "--worker", "pool:p-nobody")
    assert nobody.exit_code == 1 and "no worker 'pool:p-nobody' in campaign" in nobody.output


def _counts(env) -> dict[str, int]:
    with env.sessions() as session:
        return {model.__name__: session.scalar(select(func.count()).select_from(model))
                for model in (models.TestSet, System, Answer, Campaign, Hit, Slot, Assignment, Rating)}


def test_deleting_what_has_ratings_needs_force_and_leaves_an_audit_record(env):
    web = env.campaign(hits=2, slots=10)
    client = env.app.test_client()
    rate(client, arrive(client, web.campaign_id)[0], 4)
    before = _counts(env)
    refused = cli("campaign", "delete", web.name)
    assert refused.exit_code == 1 and "has 4 ratings" in refused.output and "nothing was changed" in refused.output
    for args in (("test-set", "delete", web.name), ("system", "delete", "--test-set", web.name, "sys-a")):
        result = cli(*args)
        assert result.exit_code == 1 and f"'{web.name}'" in result.output and "--force" in result.output
    assert _counts(env) == before
    result = cli("test-set", "delete", web.name, "--force", "--reason", "pilot over")
    assert result.exit_code == 0, result.output
    assert f"campaigns {web.name} (4 ratings)" in result.output
    assert _counts(env) == {"TestSet": 0, "System": 0, "Answer": 0, "Campaign": 0, "Hit": 0, "Slot": 0,
                            "Assignment": 0, "Rating": 0}
    assert before["Rating"] == 4
    with env.sessions() as session:
        record = session.scalar(select(AuditLog).where(AuditLog.action == "test_set.delete"))
    assert record.details == {"campaigns": [web.name], "ratings": 4} and record.reason == "pilot over"
    assert record.target == f"test set {web.name!r}"


def test_an_unrated_campaign_is_deleted_without_force_and_its_test_set_stays(env):
    web = env.campaign(hits=2, slots=10)
    result = cli("campaign", "delete", web.name)
    assert result.exit_code == 0 and "(0 ratings)" in result.output
    counts = _counts(env)
    assert counts["Campaign"] == counts["Hit"] == counts["Slot"] == 0
    assert counts["TestSet"] == 1 and counts["Answer"] == 10
    listing = cli("test-set", "list")
    assert web.name in listing.output and "sys-a" in listing.output
    assert cli("system", "delete", "--test-set", web.name, "sys-a").exit_code == 0
    assert _counts(env)["Answer"] == 0


def test_replacing_a_systems_answers_before_the_build(env, tmp_path: Path):
    web = env.campaign(hits=0, slots=10, status=CampaignStatus.draft)
    answers = tmp_path / "sys-a.jsonl"
    answers.write_text("".join(f'{{"id": "q{i}", "answer": "better answer {i}"}}\n' for i in range(10)))
    with env.sessions() as session:
        system_id = session.scalar(select(System.id))
    result = cli("system", "replace", "--test-set", web.name, "sys-a", str(answers), "--reason", "v2 of the model")
    assert result.exit_code == 0, result.output
    assert "10 answers" in result.output
    with env.sessions() as session:
        system = session.get(System, system_id)
        assert system.name == "sys-a" and system.source_file == str(answers)
        assert sorted(session.scalars(select(Answer.text).where(Answer.system_id == system_id))) == sorted(
            f"better answer {i}" for i in range(10))
        assert session.scalar(select(func.count(System.id))) == 1

    short = tmp_path / "short.jsonl"
    short.write_text('{"id": "q0", "answer": "x"}\n')
    bad = cli("system", "replace", "--test-set", web.name, "sys-a", str(short))
    assert bad.exit_code == 1 and "has no answer for 9 questions" in bad.output and "nothing was changed" in bad.output
    with env.sessions() as session:
        assert session.scalar(select(func.count(Answer.id))) == 10

    with env.sessions.begin() as session:
        session.get(Campaign, web.campaign_id).status = CampaignStatus.built
    built = cli("system", "replace", "--test-set", web.name, "sys-a", str(answers))
    assert built.exit_code == 1 and f"already built into campaign(s) '{web.name}'" in built.output


# -- dashboard and CLI preview, dashboard status and release -------------------------------------------



def admin_client(env):
    from da_platform.config.accounts import create_user

    with env.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    client = env.app.test_client()
    login(client, "ana", PASSWORD)
    return client


def _rows(env) -> tuple[int, int, int]:
    with env.sessions() as session:
        return tuple(session.scalar(select(func.count()).select_from(m)) for m in (models.Worker, Assignment, Rating))


def test_preview_shows_any_slot_and_creates_no_rows(env):
    web = env.campaign(hits=2, slots=10)
    client = admin_client(env)
    before = _rows(env)
    page = client.get(f"/admin/campaigns/{web.campaign_id}/preview?hit=1&slot=8")
    assert page.status_code == 200
    assert "HIT 1, item 9 of 10" in page.text and '<dd id="preview-type">BAD_REF</dd>' in page.text
    assert "Question number 8: what is &lt;b&gt;8&lt;/b&gt; &amp; why?" in page.text  # escaped
    image = page.text.split('id="preview-answer-b" src="')[1].split('"')[0]
    png = client.get(image)
    assert png.status_code == 200 and png.data.startswith(b"\x89PNG")
    with env.sessions() as session:
        slot = session.scalar(select(Slot).join(Hit).where(Hit.index == 1, Slot.position == 8))
        assert png.data == env.storage.read(slot.candidate_image)
    assert client.get(f"/admin/campaigns/{web.campaign_id}/preview?hit=5").status_code == 404
    assert f'href="/admin/campaigns/{web.campaign_id}/preview?hit=0&amp;slot=0"' in client.get(
        f"/admin/campaigns/{web.campaign_id}").text
    shown = cli("campaign", "preview", web.name, "--hit", "0", "--slot", "7")
    assert shown.exit_code == 0, shown.output
    assert "HIT 0, item 8 of 10" in shown.output and "REPEAT" in shown.output and "check of item 1" in shown.output
    assert _rows(env) == before == (0, 0, 0)
    assert env.app.test_client().get(f"/admin/campaigns/{web.campaign_id}/preview").status_code == 302  # login


def test_dashboard_pauses_and_releases(env):
    import re

    web = env.campaign(hits=1, slots=10)
    client = admin_client(env)
    worker = env.app.test_client()
    rate(worker, arrive(worker, web.campaign_id)[0], 2)
    page = client.get(f"/admin/campaigns/{web.campaign_id}").text
    assert re.search(r'<td class="num">2/10</td>', page)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    paused = client.post(f"/admin/campaigns/{web.campaign_id}/status", data={"csrf_token": token, "change": "pause"})
    assert paused.status_code == 303
    assert "is paused now" in client.get(f"/admin/campaigns/{web.campaign_id}").text
    with env.sessions() as session:
        assert session.get(Campaign, web.campaign_id).status == CampaignStatus.paused
        assignment_id = session.scalar(select(Assignment.id))
        assert session.scalar(select(AuditLog.actor)) == "admin:ana"
    released = client.post(f"/admin/campaigns/{web.campaign_id}/assignments/{assignment_id}/release",
                           data={"csrf_token": token})
    assert released.status_code == 303
    page = client.get(f"/admin/campaigns/{web.campaign_id}").text
    assert "Released HIT 0" in page and 'id="no-assignments"' in page
    assert client.post(f"/admin/campaigns/{web.campaign_id}/status",
                       data={"change": "close"}).status_code == 400  # no CSRF token


# -- invite labels ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_labelled_invites_store_the_label_with_the_worker_and_show_it(env, tmp_path: Path, monkeypatch):
    import csv
    import io

    monkeypatch.setenv("DA_SECRET_KEY", "test-secret-key")
    web = env.campaign(hits=3, slots=10)
    result = cli("invite", web.name, "--label", "Ana (room 3)", "--label", "=HYPERLINK(1)")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["label"] for r in rows] == ["Ana (room 3)", "'=HYPERLINK(1)"]
    names = tmp_path / "names.csv"
    names.write_text("name\nBen\nCleo\n")
    from_file = list(csv.DictReader(io.StringIO(cli("invite", web.name, "--labels", str(names)).stdout)))
    assert [r["label"] for r in from_file] == ["Ben", "Cleo"]
    with env.sessions() as session:
        labels = dict(session.execute(select(models.Worker.label, models.Worker.external_id)).all())
    assert set(labels) == {"Ana (room 3)", "=HYPERLINK(1)", "Ben", "Cleo"}

    worker = env.app.test_client()
    arrived = worker.get(urlsplit(rows[0]["link"]).path)
    assert arrived.status_code == 303
    rate(worker, arrived, 1)
    with env.sessions() as session:
        assert session.scalar(select(func.count(models.Worker.id))) == 4  # the arrival used the labelled row
    client = admin_client(env)
    page = client.get(f"/admin/campaigns/{web.campaign_id}/workers").text
    assert f'{labels["Ana (room 3)"]}</a> <span class="worker-label">Ana (room 3)</span>' in page
    assert "(Ana (room 3))" in client.get(f"/admin/campaigns/{web.campaign_id}").text

    twice = cli("invite", web.name, "--label", "Ben", "--label", "Ben")
    assert twice.exit_code == 1 and "label 'Ben' is given twice" in twice.output and "no link was made" in twice.output
    empty = tmp_path / "empty.csv"
    empty.write_text("label\nDan\n\n")
    bad = cli("invite", web.name, "--labels", str(empty))
    assert bad.exit_code == 1 and f"{empty}:3: field 'label': empty name" in bad.output
    with env.sessions() as session:
        assert session.scalar(select(func.count(models.Worker.id))) == 4


# -- the review policy on the whole own pool -----------------------------------------------------------

def test_pool_review_applies_the_policy_to_every_own_pool_worker(env, tmp_path: Path):
    from da_platform.db.models import ReviewDecision
    from tests import dashboard_factories as factories

    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2)
        workers = factories.three_workers(session, campaign)
        name = campaign.name
    dry = cli("pool", "review", name, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "4 decision(s) for own-pool workers" in dry.output and "dry run: nothing was stored" in dry.output
    assert dry.output.startswith("approve") and "\nblock " in dry.output  # reject + block for the careless one
    with env.sessions() as session:
        assert session.scalar(select(func.count(ReviewDecision.id))) == 0
    done = cli("pool", "review", name, "--no-block")
    assert done.exit_code == 0, done.output
    assert "recorded and applied 3 decision(s)" in done.output
    with env.sessions() as session:
        decided = {w: (a, s) for w, a, s in session.execute(
            select(models.Worker.external_id, ReviewDecision.action, ReviewDecision.status)
            .join(models.Worker, models.Worker.id == ReviewDecision.worker_id))}
        statuses = dict(session.execute(select(models.Worker.external_id, Assignment.status)
                                        .join(models.Worker, models.Worker.id == Assignment.worker_id)).all())
    assert decided == {factories.IMG: ("approve", "done"), "careful": ("approve", "done"),
                       "careless": ("reject", "done")}
    assert statuses == {factories.IMG: AssignmentStatus.approved, "careful": AssignmentStatus.approved,
                        "careless": AssignmentStatus.rejected}
    assert set(workers) == set(decided)
    again = cli("pool", "review", name)
    assert "0 decision(s)" in again.output  # each assignment is decided once


# -- early states -------------------------------------------------------------------------------------

def test_early_states_say_not_enough_data_yet(env):
    from da_platform.results.campaign_analysis import CampaignAnalysis
    from tests import dashboard_factories as factories

    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2)
        factories.rate_hit(session, campaign, 0, "early", slots=2)
        campaign_id = campaign.id
    client = admin_client(env)
    page = client.get(f"/admin/campaigns/{campaign_id}").text
    assert "Not enough data yet: no degraded check has been paired with its original so far" in page
    assert "no BAD_REF checks" not in page

    with env.sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        factories.rate_hit(session, campaign, 1, "done", seed=1)
        factories.rate_hit(session, campaign, 2, "halfway", slots=60, seed=2)
        qc = CampaignAnalysis(session, campaign).worker_qc
    assert qc["pool:halfway"].status == "too_few_pairs" and qc["pool:done"].status == "passed"
    page = client.get(f"/admin/campaigns/{campaign_id}/workers").text
    row = page.split(">halfway</a>")[1].split("</tr>")[0]
    assert "not enough data yet" in row and "too few pairs" not in row
    page = client.get(f"/admin/campaigns/{campaign_id}").text
    assert "no BAD_REF checks" not in page and "Not enough data yet: no degraded check" not in page


def test_the_dashboard_applies_the_policy_to_the_whole_own_pool(env):
    from da_platform.db.models import ReviewDecision
    from tests import dashboard_factories as factories

    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2)
        factories.three_workers(session, campaign)
        campaign_id = campaign.id
    client = admin_client(env)
    url = f"/admin/campaigns/{campaign_id}/pool-review"
    assert f'href="{url}"' in client.get(f"/admin/campaigns/{campaign_id}/workers").text
    page = client.get(url).text
    assert page.count("<tr><td>") == 4  # approve, approve, reject, block
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    assert client.post(url, data={"csrf_token": token, "count": "4"}).status_code == 303  # not confirmed
    with env.sessions() as session:
        assert session.scalar(select(func.count(ReviewDecision.id))) == 0
    stale = client.post(url, data={"csrf_token": token, "count": "3", "confirm": "yes"})
    assert stale.status_code == 303
    with env.sessions() as session:
        assert session.scalar(select(func.count(ReviewDecision.id))) == 0
    done = client.post(url, data={"csrf_token": token, "count": "4", "confirm": "yes"})
    assert done.status_code == 303 and done.headers["Location"].endswith(f"/admin/campaigns/{campaign_id}/workers")
    with env.sessions() as session:
        rows = session.execute(select(ReviewDecision.action, ReviewDecision.status).order_by(ReviewDecision.id)).all()
        assert sorted(rows) == [("approve", "done"), ("approve", "done"), ("block", "done"), ("reject", "done")]
        assert session.scalar(select(models.Worker.blocked).where(models.Worker.external_id == "careless"))
    assert 'id="nothing-to-review"' in client.get(url).text
