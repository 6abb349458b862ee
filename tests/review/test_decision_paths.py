"""The dashboard and the CLI take a decision through the same operations: the same decision stores the
same rows and has the same effect (assignment status, blocked flag, data use), on both databases.

Two campaigns are built alike, with the same workers (named per campaign); the same sequence of
decisions is taken on one through the dashboard's confirmation form and on the other with
``da-platform decide``; the stored outcome is compared field by field, and against what each
decision must do.
"""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.config.accounts import create_user
from da_platform.db.models import Assignment, AssignmentStatus, AuditLog, Campaign, ReviewDecision, Worker
from da_platform.results.campaign_analysis import data_use
from tests import dashboard_factories as factories
from tests.web_factories import make_web_env

PASSWORD = "a long enough password for ana"
# (worker role, dashboard action, extra form fields): every action, a data-only decision, a bonus
# on top of an approval, and a block after a rejection.
SEQUENCE = [
    ("keep", "approve_use", {}),
    ("drop", "approve_exclude", {}),
    ("bad", "reject", {}),
    ("keep", "bonus", {"amount": "0.50"}),
    ("bad", "block", {}),
    ("drop", "approve_use", {}),  # every assignment decided: a data-only use_data decision
]


def _campaign(env, side: str, source: str) -> int:
    """A built campaign whose HITs 0-2 are rated by ``<role>-<side>`` workers of ``source``."""
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, name=side, passes=2, hostile=False)
        start = factories.START
        for index, (role, behaviour) in enumerate([("keep", factories.good), ("drop", factories.good),
                                                   ("bad", factories.careless)]):
            assignment = factories.rate_hit(session, campaign, index, f"{role}-{side}", behaviour, source=source,
                                            seed=index, start=start + timedelta(hours=index))
            if source != "pool":  # a provider must have reported the work submitted
                assignment.status = AssignmentStatus.submitted
        session.commit()
        return campaign.id


def _worker_id(env, name: str) -> int:
    with env.sessions() as session:
        return session.scalars(select(Worker.id).where(Worker.external_id == name)).one()


def _dashboard(client, campaign_id: int, worker_id: int, action: str, reason: str, extra: dict) -> None:
    url = f"/admin/campaigns/{campaign_id}/workers/{worker_id}/decide"
    query = "&".join(f"{k}={v}" for k, v in {"action": action, **extra}.items())
    page = client.get(f"{url}?{query}")
    assert page.status_code == 200, page.text
    form = page.text.split('method="post" action="' + url)[1]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    response = client.post(url, data={**fields, "reason": reason, "confirm": "yes"})
    assert response.status_code == 303, response.text


def _cli(url: str, campaign: str, worker: str, action: str, reason: str, extra: dict) -> None:
    args = ["decide", campaign, worker, action, "--reason", reason, "--yes"]
    if "amount" in extra:
        args += ["--amount", extra["amount"]]
    result = CliRunner().invoke(main, args, env={"DA_DATABASE_URL": url, "DA_INSTANCE_PATH": None})
    assert result.exit_code == 0, result.output


def _stored(env, campaign_id: int, side: str) -> dict:
    """Everything the decisions left, with the side's names and ids taken out."""
    def role(worker_id: int | None) -> str:
        return session.get(Worker, worker_id).external_id.removesuffix(f"-{side}")

    with env.sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        decisions = [(role(d.worker_id), d.action, d.use_data, d.amount, d.status, d.outcome, d.reason,
                      d.assignment_id is not None)
                     for d in session.scalars(select(ReviewDecision).where(ReviewDecision.campaign_id == campaign_id)
                                              .order_by(ReviewDecision.id))]
        assignments = sorted((role(a.worker_id), a.status.value) for a in session.scalars(
            select(Assignment).join(Worker).where(Worker.external_id.like(f"%-{side}"))))
        blocked = sorted(w.external_id.removesuffix(f"-{side}") for w in session.scalars(
            select(Worker).where(Worker.external_id.like(f"%-{side}"), Worker.blocked)))
        use = {label.split(":", 1)[1].removesuffix(f"-{side}"): u.use
               for label, u in data_use(session, campaign).items()}
        audit = [(a.action, a.reason) for a in session.scalars(
            select(AuditLog).where(AuditLog.campaign_id == campaign_id).order_by(AuditLog.id))]
    return {"decisions": decisions, "assignments": assignments, "blocked": blocked, "use": use, "audit": audit}


@pytest.fixture
def env(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path)
    with env.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    env.url = database_url
    return env


def _logged_in(env):
    client = env.app.test_client()
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/admin/login").text).group(1)
    client.post("/admin/login", data={"csrf_token": token, "username": "ana", "password": PASSWORD})
    return client


def _take_both_ways(env, source: str) -> tuple[dict, dict]:
    dash, cli = _campaign(env, "dash", source), _campaign(env, "cli", source)
    client = _logged_in(env)
    for role, action, extra in SEQUENCE:
        reason = f"{action} for {role}"
        _dashboard(client, dash, _worker_id(env, f"{role}-dash"), action, reason, extra)
        _cli(env.url, "cli", f"{source}:{role}-cli", action, reason, extra)
    return _stored(env, dash, "dash"), _stored(env, cli, "cli")


def test_own_pool_decisions_have_the_same_effect_from_the_dashboard_and_the_cli(env) -> None:
    dashboard, cli = _take_both_ways(env, "pool")
    assert len(dashboard["audit"]) == 12  # each decision: its own row and the researcher's
    assert dashboard == cli
    own = "own pool: no provider to call; recorded (pay outside the platform)"
    assert [d[:5] for d in dashboard["decisions"]] == [
        ("keep", "approve", True, None, "done"), ("drop", "approve", False, None, "done"),
        ("bad", "reject", False, None, "done"), ("keep", "bonus", True, "0.50", "done"),
        ("bad", "block", True, None, "done"), ("drop", "use_data", True, None, "done")]
    assert [d[5] for d in dashboard["decisions"]] == [own] * 5 + ["data decision: nothing to send"]
    assert dashboard["assignments"] == [("bad", "rejected"), ("drop", "approved"), ("keep", "approved")]
    assert dashboard["blocked"] == ["bad"]
    assert dashboard["use"] == {"keep": True, "drop": True, "bad": False}


def test_mturk_decisions_are_stored_alike_and_wait_for_the_review_run(env) -> None:
    dashboard, cli = _take_both_ways(env, "mturk")
    assert dashboard == cli
    assert [d[:5] for d in dashboard["decisions"]] == [
        ("keep", "approve", True, None, "pending"), ("drop", "approve", False, None, "pending"),
        ("bad", "reject", False, None, "pending"), ("keep", "bonus", True, "0.50", "pending"),
        ("bad", "block", True, None, "pending"), ("drop", "use_data", True, None, "done")]
    assert dashboard["assignments"] == [("bad", "submitted"), ("drop", "submitted"), ("keep", "submitted")]
    assert dashboard["blocked"] == []  # nothing takes effect before the provider has carried it out


def test_decide_names_what_is_wrong_and_records_nothing(env) -> None:
    _campaign(env, "cli", "pool")

    def run(*args: str):
        return CliRunner().invoke(main, ["decide", "cli", *args], env={"DA_DATABASE_URL": env.url,
                                                                       "DA_INSTANCE_PATH": None})

    nobody = run("nobody", "reject", "--reason", "x", "--yes")
    assert nobody.exit_code == 1 and "no worker 'nobody' in campaign 'cli'" in nobody.output
    no_amount = run("keep-cli", "bonus", "--reason", "x", "--yes")
    assert no_amount.exit_code == 1 and "nothing recorded: amount: '' is not an amount" in no_amount.output
    blank = run("keep-cli", "reject", "--reason", " ", "--yes")
    assert blank.exit_code == 1 and "nothing recorded: give a reason" in blank.output
    assert "Traceback" not in nobody.output + no_amount.output + blank.output
    with env.sessions() as session:
        assert session.scalars(select(ReviewDecision)).all() == []


def test_the_policy_review_of_the_own_pool_has_the_same_effect_from_the_dashboard_and_the_cli(env) -> None:
    dash, cli = _campaign(env, "dash", "pool"), _campaign(env, "cli", "pool")
    client = _logged_in(env)
    url = f"/admin/campaigns/{dash}/pool-review"
    page = client.get(url).text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    assert client.post(url, data={**fields, "confirm": "yes"}).status_code == 303
    result = CliRunner().invoke(main, ["pool", "review", "cli"], env={"DA_DATABASE_URL": env.url,
                                                                      "DA_INSTANCE_PATH": None})
    assert result.exit_code == 0, result.output
    dashboard, command = _stored(env, dash, "dash"), _stored(env, cli, "cli")
    assert dashboard == command
    assert [d[:5] for d in dashboard["decisions"]] == [
        ("keep", "approve", True, None, "done"), ("drop", "approve", True, None, "done"),
        ("bad", "reject", False, None, "done"), ("bad", "block", False, None, "done")]
    assert dashboard["assignments"] == [("bad", "rejected"), ("drop", "approved"), ("keep", "approved")]
    assert dashboard["blocked"] == ["bad"]
    assert dashboard["use"] == {"keep": True, "drop": True, "bad": False}
