"""End to end on a fake Prolific served on 127.0.0.1: create and publish the study with the CLI,
participants rate through the Flask worker pages and come back with the completion code, then
sync and review (approve / reject with Prolific's message rules / bulk bonus / block). The fake's
ledger must show exactly the money expected. Prolific's pay endpoint is not idempotent, so a crash
around it is reconciled from the submission's ``bonus_payments`` and never resent blindly.
"""
from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from da_platform.db.models import ReviewDecision, Worker
from da_platform.providers.prolific.client import Prolific, validate_rejection
from tests.fakes.crowd import adversarial, good, indifferent, quality_campaign, sqlite_database
from tests.fakes.fake_prolific import create_fake_prolific
from tests.fakes.mturk_requester import Fault
from tests.fakes.server import serve_wsgi
from tests.prolific_world import CODE, prolific_world, published


@pytest.fixture
def world(database_url, tmp_path):
    """The full flows run on SQLite and on PostgreSQL."""
    yield from prolific_world(database_url, tmp_path)


@pytest.fixture
def sqlite_world(tmp_path):
    """Checks of the command line's refusals: one database engine is enough."""
    yield from prolific_world(sqlite_database(tmp_path), tmp_path)


@pytest.mark.slow
def test_study_work_sync_review_pays_exactly_what_the_policy_says(world):
    published(world, hits=3, name="prolific-e2e")
    study = world.study()
    assert study["reward"] == 300 and study["total_available_places"] == 3
    assert study["completion_codes"][0]["code"] == CODE
    for placeholder in ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}"):
        assert placeholder in study["external_study_url"]

    for participant, behaviour in [("PGOOD", good), ("PBAD", adversarial), ("PMEH", indifferent)]:
        world.take_part(participant, behaviour)
    out = world.cli("prolific", "sync", "prolific-e2e").output
    assert "3 submission(s) seen, 3 updated" in out

    refused = world.cli("prolific", "review", "prolific-e2e", ok=False)
    assert "no sandbox" in refused.output and world.fake.payments() == []
    dry = world.cli("prolific", "review", "prolific-e2e", "--bonus", "0.50", "--reject-min-pairs", "5", "--dry-run")
    assert "dry run" in dry.output and world.fake.payments() == []
    # 2 approvals x 3.00 + 0.50 bonus, plus 33.33 % fees (2.00 + 0.17)
    world.cli("prolific", "review", "prolific-e2e", "--bonus", "0.50", "--reject-min-pairs", "5", "--live",
              "--confirm-total", "8.67")
    assert sorted((e.kind, e.worker_id, e.amount) for e in world.fake.payments()) == [
        ("bonus", "PGOOD", Decimal("0.50")), ("rejection", "PBAD", Decimal("0.00")),
        ("reward", "PGOOD", Decimal("3.00")), ("reward", "PMEH", Decimal("3.00"))]
    rejection = world.fake.payments("rejection")[0]
    assert len(rejection.note) >= 100
    with world.env.sessions() as s:
        assert {d.status for d in s.scalars(select(ReviewDecision))} == {"done"}
        assert {w.external_id for w in s.scalars(select(Worker).where(Worker.blocked))} == {"PBAD"}
    world.cli("prolific", "sync", "prolific-e2e")
    world.cli("prolific", "review", "prolific-e2e", "--live", "--confirm-total", "0.00")
    assert len(world.fake.payments()) == 4


def test_rejection_rules_are_checked_before_sending():
    app = create_fake_prolific()
    state = app.config["PROLIFIC"]
    with pytest.raises(ValueError, match="at least 100 characters"):
        validate_rejection("FAILED_CHECK", "too short")
    with pytest.raises(ValueError, match="not one of"):
        validate_rejection("BAD_WORK", "x" * 120)
    with serve_wsgi(app) as url:
        client = Prolific(state.token, base_url=url)
        with pytest.raises(ValueError, match="100 characters"):
            client.reject("s-any", feedback="short", category="FAILED_CHECK")
    assert state.calls == []  # nothing reached Prolific


def test_missing_token_is_a_clear_error(sqlite_world):
    world = sqlite_world
    quality_campaign(world.env, hits=1, name="prolific-token", completion_code=CODE)
    world.environ["PROLIFIC_API_TOKEN"] = ""
    result = world.cli("prolific", "launch", "prolific-token", ok=False)
    assert "PROLIFIC_API_TOKEN" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_pay_crash_is_reconciled_from_bonus_payments_and_never_resent_blindly(world):
    published(world, hits=2, name="prolific-crash")
    world.take_part("PA", good)
    world.take_part("PB", good)
    world.cli("prolific", "sync", "prolific-crash")
    # PA's pay reaches Prolific but the answer is lost; PB's pay never reaches Prolific.
    world.fake.inject("pay_bonus", Fault("ServiceFault", 502, after_apply=True), Fault("ServiceFault", 502))
    # 2 x 3.00 + 2.00 fee + 2 x 0.40 + 0.27 fee
    out = world.cli("prolific", "review", "prolific-crash", "--bonus", "0.40",
                    "--live", "--confirm-total", "9.07").output
    assert "done 2, failed 0, unverified 2" in out
    assert [e.worker_id for e in world.fake.payments("bonus")] == ["PA"]
    assert world.cli("prolific", "status", "prolific-crash").output.count("ATTENTION") == 2

    # The next sync sees PA's bonus on the submission; PB's is not there, and is NOT resent blindly.
    out = world.cli("prolific", "sync", "prolific-crash").output
    assert "done 1, failed 0, unverified 1" in out and "--resend-unverified" in out
    assert [e.worker_id for e in world.fake.payments("bonus")] == ["PA"]

    # After checking on Prolific, the researcher resends the missing one: each is paid exactly once.
    world.cli("prolific", "sync", "prolific-crash", "--resend-unverified")
    assert sorted((e.worker_id, e.amount) for e in world.fake.payments("bonus")) == [
        ("PA", Decimal("0.40")), ("PB", Decimal("0.40"))]
    with world.env.sessions() as s:
        assert {d.status for d in s.scalars(select(ReviewDecision))} == {"done"}
    world.cli("prolific", "sync", "prolific-crash", "--resend-unverified")
    assert len(world.fake.payments("bonus")) == 2
