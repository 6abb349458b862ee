"""Dashboard decisions about MTurk workers are stored pending and carried out by ``da-platform mturk
review`` against the fake MTurk: the policy does not decide those assignments again, the money paid
is what the researcher chose."""
from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from da_platform.config.accounts import create_user
from da_platform.db.models import ReviewDecision, Worker
from tests.admin_client import PASSWORD, csrf_token, login
from tests.fakes.crowd import good
from tests.mturk_world import launched, mturk_world


@pytest.fixture
def world(database_url, tmp_path):
    yield from mturk_world(database_url, tmp_path)


def decide(client, campaign_id: int, worker_id: int, action: str, reason: str, **extra) -> None:
    url = f"/admin/campaigns/{campaign_id}/workers/{worker_id}/decide"
    token = csrf_token(client, f"{url}?action={action}")
    response = client.post(url, data={"csrf_token": token, "action": action, "reason": reason, "confirm": "yes",
                                      "nonce": "n1", **extra})
    assert response.status_code == 303, response.text


@pytest.mark.slow
def test_dashboard_decisions_are_sent_by_mturk_review(world):
    campaign_id = launched(world, hits=2, name="dash-mturk")
    hits = world.hit_ids(campaign_id)
    world.work(hits[0], "WKEEP", good)
    world.work(hits[1], "WDROP", good)
    world.cli("mturk", "sync", "dash-mturk")
    with world.env.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    with world.env.sessions() as session:
        ids = {w.external_id: w.id for w in session.scalars(select(Worker))}
    client = world.env.app.test_client()
    login(client)
    decide(client, campaign_id, ids["WDROP"], "approve_exclude", "rated from a phone in a hurry")
    decide(client, campaign_id, ids["WKEEP"], "bonus", "excellent comments", amount="0.75")
    with world.env.sessions() as session:
        pending = {(d.action, d.worker_id): d for d in session.scalars(
            select(ReviewDecision).where(ReviewDecision.action.in_(("approve", "bonus"))))}
        assert {d.status for d in pending.values()} == {"pending"}
        assert not pending[("approve", ids["WDROP"])].use_data
    assert world.ledger() == []  # nothing is paid before the review run

    world.cli("mturk", "review", "dash-mturk")
    assert world.ledger() == sorted([
        ("reward", "WKEEP", Decimal("2.00")), ("reward", "WDROP", Decimal("2.00")),
        ("bonus", "WKEEP", Decimal("0.75")),
    ])
    with world.env.sessions() as session:
        decisions = session.scalars(select(ReviewDecision).where(ReviewDecision.action != "exclude")).all()
        assert sorted((d.action, session.get(Worker, d.worker_id).external_id, d.status) for d in decisions) == [
            ("approve", "WDROP", "done"), ("approve", "WKEEP", "done"), ("bonus", "WKEEP", "done")]
        reasons = {session.get(Worker, d.worker_id).external_id: d.reason for d in decisions if d.action == "approve"}
        assert reasons["WDROP"] == "rated from a phone in a hurry"
    html = client.get(f"/admin/campaigns/{campaign_id}").text
    assert "minus 1 excluded by a decision" in html
