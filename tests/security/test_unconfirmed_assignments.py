"""Attack suite, ratings in someone else's name: MTurk's ``workerId`` and Prolific's ``PROLIFIC_PID`` in an arrival
URL are not authenticated, so anyone who knows a worker's id can open a HIT with a made-up assignment id (MTurk
``assignmentId``, Prolific ``SESSION_ID``) and rate it badly. Those ratings count nowhere until the provider has
confirmed the assignment (``sync`` saw it submitted, for that worker, on that HIT): not in the scores, and not in
the victim's quality control, which pools the worker's HITs and decides what review pays. Through the real HTTP
flow, the fake MTurk and Prolific, on SQLite and PostgreSQL."""
from __future__ import annotations

from decimal import Decimal
from urllib.parse import urlsplit

import pytest
import requests
from sqlalchemy import select, update

from da_platform.config.accounts import create_user
from da_platform.db.models import Assignment, AssignmentStatus, AuditLog, Campaign, ReviewDecision, Worker
from da_platform.rating.campaign_ratings import load_ratings
from da_platform.results.campaign_analysis import CampaignAnalysis
from tests.admin_client import PASSWORD, login
from tests.fakes.crowd import constant, good, rate_hit, submit_form
from tests.mturk_world import World, launched, mturk_world
from tests.prolific_world import prolific_world, published

SLOTS = 50  # quality_campaign's HITs: 50 slots, 5 BAD_REF pairs each


@pytest.fixture
def world(database_url, tmp_path):
    yield from mturk_world(database_url, tmp_path)


@pytest.fixture
def prolific(database_url, tmp_path):
    yield from prolific_world(database_url, tmp_path)


def _allow_hits_per_worker(env, campaign_id: int, n: int) -> None:
    with env.sessions.begin() as s:
        s.execute(update(Campaign).where(Campaign.id == campaign_id).values(max_hits_per_worker=n))


def _mturk_arrival(world: World, hit_id: str, assignment_id: str, worker_id: str):
    client = world.env.app.test_client()
    response = client.get("/mturk", query_string={"assignmentId": assignment_id, "hitId": hit_id,
                                                  "workerId": worker_id, "turkSubmitTo": world.url})
    assert response.status_code == 303, response.text
    return client, response.location


def _statuses(env) -> dict[str, AssignmentStatus]:
    with env.sessions() as s:
        return {a.provider_assignment_id: a.status for a in s.scalars(select(Assignment))}


def test_a_made_up_mturk_assignment_under_a_victims_worker_id_counts_nowhere(world):
    campaign_id = launched(world, hits=3, name="victim")
    _allow_hits_per_worker(world.env, campaign_id, 3)
    hit_ids = world.hit_ids(campaign_id)
    genuine = world.work(hit_ids[0], "WVICTIM", good)  # accepted on MTurk, rated here, submitted to MTurk
    # The attacker knows the victim's worker id and a HIT id (any preview shows it), makes up an assignment id
    # and rates the whole HIT with one score: a run of 50 identical scores, clear grounds to reject and block.
    attacker, base = _mturk_arrival(world, hit_ids[1], "MADEUP1", "WVICTIM")
    rate_hit(world.env, attacker, base, constant)
    assert _statuses(world.env) == {genuine: AssignmentStatus.completed, "MADEUP1": AssignmentStatus.completed}

    out = world.cli("mturk", "sync", "victim").output  # within the HITs' time limit: nothing is released
    assert "1 assignment(s) seen, 1 updated" in out and "0 released" in out
    assert _statuses(world.env) == {genuine: AssignmentStatus.submitted, "MADEUP1": AssignmentStatus.completed}
    with world.env.sessions() as s:
        campaign = s.get(Campaign, campaign_id)
        table = load_ratings(s, campaign)
        analysis = CampaignAnalysis(s, campaign)
        assert len(table) == SLOTS and set(table.worker.labels) == {"mturk:WVICTIM"}  # his own HIT only
        assert analysis.unconfirmed == {"mturk:WVICTIM": SLOTS}
        qc = analysis.worker_qc["mturk:WVICTIM"]
        assert (qc.n_ratings, qc.n_hits, qc.passed) == (SLOTS, 1, True)
        assert qc.longest_identical_run < 50

    world.cli("mturk", "review", "victim", "--reject-min-pairs", "5")
    assert world.ledger() == [("reward", "WVICTIM", Decimal("2.00"))]  # his genuine work is paid
    with world.env.sessions() as s:
        decisions = [(d.action, d.use_data) for d in s.scalars(select(ReviewDecision)
                                                                .where(ReviewDecision.action != "exclude"))]
        assert decisions == [("approve", True)]
        assert not s.scalar(select(Worker.blocked).where(Worker.external_id == "WVICTIM"))

    # A bonus by hand goes to his confirmed assignment, never to the made-up one finished after it.
    out = world.cli("decide", "victim", "mturk:WVICTIM", "bonus", "--amount", "0.50", "--reason", "thanks",
                    "--yes").output
    assert "paid on assignment" in out
    with world.env.sessions() as s:
        bonus = s.scalars(select(ReviewDecision).where(ReviewDecision.action == "bonus")).one()
        assert (s.get(Assignment, bonus.assignment_id).provider_assignment_id, bonus.amount) == (genuine,
                                                                                                 "0.50")

    # The dashboard shows the made-up assignment as awaiting confirmation, outside the victim's quality control.
    with world.env.sessions.begin() as s:
        create_user(s, "ana", PASSWORD)
        victim_id = s.scalar(select(Worker.id).where(Worker.external_id == "WVICTIM"))
    admin = world.env.app.test_client()
    login(admin)
    campaign_page = admin.get(f"/admin/campaigns/{campaign_id}").text
    assert "50 ratings, awaiting the provider&#39;s confirmation (sync), not analysed yet" in campaign_page
    worker_page = admin.get(f"/admin/campaigns/{campaign_id}/workers/{victim_id}").text
    assert "50 ratings in 1 HIT(s)" in worker_page
    assert worker_page.count("awaiting the provider's confirmation: not analysed</span>") == 1  # its row
    assert "MADEUP1" in worker_page


def test_an_attacker_cannot_confirm_a_victims_arrival_with_his_own_real_assignment(world):
    """An MTurk worker accepts a HIT (a real assignment id), opens it here with the victim's worker id, rates it
    with one score and submits it to MTurk, which lists the assignment as the attacker's: sync abandons the
    arrival (audited), so it never counts as the victim's."""
    campaign_id = launched(world, hits=3, name="forged")
    _allow_hits_per_worker(world.env, campaign_id, 3)
    hit_ids = world.hit_ids(campaign_id)
    genuine = world.work(hit_ids[0], "WVICTIM", good)
    real_id = world.fake.accept(hit_ids[1], "WATTACKER")
    attacker, base = _mturk_arrival(world, hit_ids[1], real_id, "WVICTIM")
    rate_hit(world.env, attacker, base, constant)
    action, fields = submit_form(attacker.get(base + "done").text)
    assert fields["assignmentId"] == real_id
    assert requests.post(action, data=fields, timeout=10).status_code == 200  # MTurk takes it: it is his

    out = world.cli("mturk", "sync", "forged").output
    assert "1 arrival(s) under an assignment id the provider has for another worker or HIT: abandoned" in out
    assert _statuses(world.env) == {genuine: AssignmentStatus.submitted, real_id: AssignmentStatus.abandoned}
    with world.env.sessions() as s:
        audit = s.scalars(select(AuditLog).where(AuditLog.action == "mturk.sync.forged")).one()
        assert (audit.target, audit.outcome) == (real_id, "completed -> abandoned")
        analysis = CampaignAnalysis(s, s.get(Campaign, campaign_id))
        assert analysis.worker_qc["mturk:WVICTIM"].n_ratings == SLOTS and analysis.unconfirmed == {}
    world.cli("mturk", "review", "forged", "--reject-min-pairs", "5")
    assert world.ledger() == [("reward", "WVICTIM", Decimal("2.00"))]


def test_a_made_up_prolific_session_under_a_victims_participant_id_counts_nowhere(prolific):
    published(prolific, hits=2, name="victim-p")
    with prolific.env.sessions() as s:
        campaign_id = s.scalar(select(Campaign.id).where(Campaign.name == "victim-p"))
    _allow_hits_per_worker(prolific.env, campaign_id, 2)
    genuine = prolific.take_part("PVICTIM", good)
    study = prolific.study()
    attacker = prolific.env.app.test_client()
    arrival = attacker.get(urlsplit(study["external_study_url"]).path, query_string={
        "PROLIFIC_PID": "PVICTIM", "STUDY_ID": study["id"], "SESSION_ID": "MADEUPSESSION"})
    assert arrival.status_code == 303, arrival.text
    rate_hit(prolific.env, attacker, arrival.location, constant)
    assert attacker.get(arrival.location + "done").status_code == 302  # the completion code: useless to him

    prolific.cli("prolific", "sync", "victim-p")
    assert _statuses(prolific.env) == {genuine: AssignmentStatus.submitted,
                                       "MADEUPSESSION": AssignmentStatus.completed}
    with prolific.env.sessions() as s:
        analysis = CampaignAnalysis(s, s.get(Campaign, campaign_id))
        assert analysis.unconfirmed == {"prolific:PVICTIM": SLOTS}
        qc = analysis.worker_qc["prolific:PVICTIM"]
        assert (qc.n_ratings, qc.n_hits, qc.passed) == (SLOTS, 1, True)
    # One approval: 3.00 + 33.33 % fee.
    prolific.cli("prolific", "review", "victim-p", "--reject-min-pairs", "5", "--live", "--confirm-total", "4.00")
    assert sorted((e.kind, e.worker_id, e.amount) for e in prolific.fake.payments()) == [
        ("reward", "PVICTIM", Decimal("3.00"))]
    with prolific.env.sessions() as s:
        assert not s.scalar(select(Worker.blocked).where(Worker.external_id == "PVICTIM"))
