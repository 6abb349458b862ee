"""End to end on a fake MTurk served on 127.0.0.1: launch with the CLI (boto3 pointed at the fake),
workers take HITs through the Flask worker pages and submit to the fake's externalSubmit, then
sync, review (approve / reject / bonus / block) — the fake's ledger must show exactly the money
expected. Also: dry run, idempotent re-runs, throttling, and a crash between deciding and paying.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from decimal import Decimal

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.db.models import Assignment, AuditLog, Campaign, ReviewDecision, Worker
from da_platform.providers.mturk.client import MTurk, make_boto_client
from da_platform.providers.retry import Backoff
from tests.fakes.crowd import (
    adversarial,
    constant,
    good,
    indifferent,
    quality_campaign,
    sqlite_database,
)
from tests.fakes.mturk_requester import Fault
from tests.mturk_world import PUBLIC, World, launched, mturk_world


@pytest.fixture
def world(database_url, tmp_path):
    """The full flows run on SQLite and on PostgreSQL."""
    yield from mturk_world(database_url, tmp_path)


@pytest.fixture
def sqlite_world(tmp_path):
    """Checks of the command line's refusals: one database engine is enough."""
    yield from mturk_world(sqlite_database(tmp_path), tmp_path)


@pytest.mark.slow
def test_launch_work_sync_review_pays_exactly_what_the_policy_says(world):
    campaign_id = launched(world, hits=5)
    hit_ids = world.hit_ids(campaign_id)
    assert len(set(hit_ids)) == 5 and all(hit_ids)
    hit = world.fake.hits[hit_ids[0]]
    assert hit.external_url == PUBLIC + "/mturk"
    assert world.fake.hit_types[hit.hit_type_id]["Reward"] == "2.00"

    behaviours = {"WGOOD1": good, "WGOOD2": good, "WBAD": adversarial, "WCONST": constant, "WMEH": indifferent}
    assignments = {w: world.work(h, w, b) for h, (w, b) in zip(hit_ids, behaviours.items())}

    out = world.cli("mturk", "sync", "mturk-e2e").output
    assert "5 assignment(s) seen, 5 updated" in out and "5 worker(s) excluded" in out
    with world.env.sessions() as s:
        assert {a.status.value for a in s.scalars(select(Assignment))} == {"submitted"}
    qualification = next(iter(world.fake.qualification_types))
    assert {w for (q, w) in world.fake.grants if q == qualification} == set(behaviours)

    # 5 BAD_REF pairs per HIT of 50 slots: evidence from 5 non-zero pairs is enough here.
    dry = world.cli("mturk", "review", "mturk-e2e", "--bonus", "0.50", "--reject-min-pairs", "5", "--dry-run").output
    assert "dry run: nothing was stored or sent" in dry
    # 3 approvals x (2.00 + 0.40 fee) + 2 bonuses x (0.50 + 0.10 fee)
    assert "total 8.40 USD" in dry
    assert world.fake.payments() == []
    with world.env.sessions() as s:
        assert s.scalars(select(ReviewDecision).where(ReviewDecision.action != "exclude")).all() == []

    world.cli("mturk", "review", "mturk-e2e", "--bonus", "0.50", "--reject-min-pairs", "5")
    assert world.ledger() == sorted([
        ("reward", "WGOOD1", Decimal("2.00")), ("reward", "WGOOD2", Decimal("2.00")),
        ("reward", "WMEH", Decimal("2.00")),
        ("bonus", "WGOOD1", Decimal("0.50")), ("bonus", "WGOOD2", Decimal("0.50")),
        ("rejection", "WBAD", Decimal("0.00")), ("rejection", "WCONST", Decimal("0.00")),
    ])
    with world.env.sessions() as s:
        decisions = {(d.action, s.get(Worker, d.worker_id).external_id): d for d in s.scalars(select(ReviewDecision))}
        assert {d.status for d in decisions.values()} == {"done"}
        assert decisions[("approve", "WGOOD1")].use_data and not decisions[("approve", "WMEH")].use_data
        assert "identical scores" in decisions[("reject", "WCONST")].reason
        assert "clear evidence" in decisions[("reject", "WBAD")].reason
        assert {w for a, w in decisions if a == "block"} == {"WBAD", "WCONST"}
        assert {w.external_id for w in s.scalars(select(Worker).where(Worker.blocked))} == {"WBAD", "WCONST"}
        assert world.fake.assignments[assignments["WBAD"]].feedback.startswith("Your ratings did not pass")
        actions = [a.action for a in s.scalars(select(AuditLog))]
        assert actions.count("mturk.bonus") == 2 and "mturk.decide.reject" in actions
        settings = s.get(Campaign, campaign_id).settings
        assert settings["review"]["bonus"] == "0.50"

    # Running everything again changes nothing and pays nothing.
    world.cli("mturk", "review", "mturk-e2e", "--bonus", "0.50")
    world.cli("mturk", "sync", "mturk-e2e")
    assert len(world.fake.payments()) == 7
    status = world.cli("mturk", "status", "mturk-e2e").output
    assert "approved 3" in status and "rejected 2" in status and "ATTENTION" not in status

    # Excluded and blocked workers cannot take the campaign's HITs again.
    with pytest.raises(Exception, match="does not meet"):
        world.fake.accept(hit_ids[0], "WBAD")


@pytest.mark.slow
def test_expire_and_delete(world):
    campaign_id = launched(world, hits=2, name="mturk-expire")
    hit_ids = world.hit_ids(campaign_id)
    world.work(hit_ids[0], "W1", good)
    world.cli("mturk", "sync", "mturk-expire")
    out = world.cli("mturk", "expire", "mturk-expire", "--delete").output
    assert f"{hit_ids[1]}: expired, deleted" in out          # nobody worked on it
    assert f"{hit_ids[0]}: expired, not deleted" in out      # its assignment is not reviewed yet
    world.cli("mturk", "review", "mturk-expire")
    assert "deleted" in world.cli("mturk", "expire", "mturk-expire", "--delete").output
    assert world.fake.hits[hit_ids[0]].deleted
    with world.env.sessions() as s:
        assert s.get(Campaign, campaign_id).status.value == "closed"


@pytest.mark.slow
def test_live_needs_confirmation_and_matching_environment(sqlite_world):
    world = sqlite_world
    quality_campaign(world.env, hits=2, name="mturk-live")
    refused = world.cli("mturk", "launch", "mturk-live", "--live",
                        "--reward", "1.00", "--confirm-total", "1.00", ok=False)
    assert refused.exit_code != 0 and "does not match the total 2.40 USD" in refused.output
    assert world.fake.hits == {}
    aborted = CliRunner().invoke(main, ["mturk", "launch", "mturk-live", "--live", "--reward", "1.00"],
                                 env=world.environ, input="n\n")
    assert aborted.exit_code != 0 and "Spend 2.40 USD of real money?" in aborted.output and world.fake.hits == {}
    world.cli("mturk", "launch", "mturk-live", "--live", "--reward", "1.00", "--confirm-total", "2.40")
    assert len(world.fake.hits) == 2
    wrong = world.cli("mturk", "sync", "mturk-live", ok=False)
    assert "launched on live MTurk: add --live" in wrong.output


def test_http_public_url_is_refused(sqlite_world):
    world = sqlite_world
    quality_campaign(world.env, hits=1, name="mturk-http")
    world.environ["DA_PUBLIC_URL"] = "http://127.0.0.1:5000"
    result = world.cli("mturk", "launch", "mturk-http", ok=False)
    assert result.exit_code != 0 and "is not HTTPS" in result.output and "Traceback" not in result.output


def test_throttled_bonus_is_retried_and_paid_once(sqlite_world):
    world = sqlite_world
    campaign_id = launched(world, hits=1, name="mturk-throttle")
    assignment = world.work(world.hit_ids(campaign_id)[0], "W1", good)
    world.fake.inject("SendBonus", Fault("ThrottlingException", 400), Fault("ServiceFault", 500, after_apply=True))
    sleeps: list[float] = []
    client = MTurk(make_boto_client(endpoint_url=world.url, aws_access_key_id="t", aws_secret_access_key="t"),
                   backoff=Backoff(attempts=4, base_delay=0.25), sleep=sleeps.append)
    out = client.send_bonus(work_id="", worker_id="W1", assignment_id=assignment, amount=Decimal("0.30"),
                            reason="thanks", token="tok-throttle")
    # throttled (not applied), then applied but answered with a fault, then the token says "already"
    assert out.startswith("already paid") and sleeps == [0.25, 0.5]
    assert [e.amount for e in world.fake.payments("bonus")] == [Decimal("0.30")]


def _run_until_hang(world: World, args: list[str], hang: threading.Event, seen: callable) -> None:
    """Run the CLI in a child process, wait until the fake hangs inside ``args``' call, kill the child."""
    env = {**os.environ, **world.environ}
    child = subprocess.Popen([sys.executable, "-c", "from da_platform.cli import main; main()", *args], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not seen():
            assert child.poll() is None, child.stdout.read().decode()
            assert time.monotonic() < deadline, "the child never reached the fault"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)  # the crash: no clean-up, no commit
        child.wait(timeout=30)
    finally:
        hang.set()  # let the fake's request thread finish
        if child.poll() is None:
            child.kill()


@pytest.mark.slow
def test_crash_between_deciding_and_paying_is_reconciled_without_paying_twice(world):
    campaign_id = launched(world, hits=2, name="mturk-crash")
    for hit_id, worker in zip(world.hit_ids(campaign_id), ["WA", "WB"]):
        world.work(hit_id, worker, good)
    world.cli("mturk", "sync", "mturk-crash")

    # 1. The review pays WA's bonus, then dies before it hears back.
    paid = threading.Event()
    world.fake.inject("SendBonus", Fault(after_apply=True, hang=paid))
    _run_until_hang(world, ["mturk", "review", "mturk-crash", "--bonus", "0.75"], paid,
                    lambda: len(world.fake.payments("bonus")) == 1)
    with world.env.sessions() as s:
        states = sorted((d.action, d.status) for d in s.scalars(select(ReviewDecision).where(
            ReviewDecision.action.in_(("approve", "bonus")))))
    assert states == [("approve", "done"), ("approve", "done"), ("bonus", "pending"), ("bonus", "sent")]

    # 2. The next sync sees WA's bonus paid (done, not resent), sends WB's, and dies before MTurk gets it.
    lost = threading.Event()
    world.fake.inject("SendBonus", Fault(hang=lost))
    _run_until_hang(world, ["mturk", "sync", "mturk-crash"], lost, lambda: not world.fake.faults["SendBonus"])
    assert [e.worker_id for e in world.fake.payments("bonus")] == ["WA"]
    assert "ATTENTION decision" in world.cli("mturk", "status", "mturk-crash").output

    # 3. Another sync: WB's bonus is not on MTurk, so it is sent again with the same token: paid once.
    world.cli("mturk", "sync", "mturk-crash")
    assert sorted((e.kind, e.worker_id, e.amount) for e in world.fake.payments()) == [
        ("bonus", "WA", Decimal("0.75")), ("bonus", "WB", Decimal("0.75")),
        ("reward", "WA", Decimal("2.00")), ("reward", "WB", Decimal("2.00"))]
    with world.env.sessions() as s:
        assert {d.status for d in s.scalars(select(ReviewDecision))} == {"done"}
        outcomes = [d.outcome for d in s.scalars(select(ReviewDecision).where(ReviewDecision.action == "bonus"))]
    assert any(o.startswith("reconciled: provider shows a bonus") for o in outcomes)
    world.cli("mturk", "sync", "mturk-crash")
    assert len(world.fake.payments("bonus")) == 2
