"""Attack suite, arrivals: what anyone can put in MTurk's arrival URL (``assignmentId``, ``hitId`` and
``workerId`` are not authenticated: every requester a worker worked for has seen his worker id, and every
HIT id is shown in MTurk's preview), on SQLite and PostgreSQL.
"""
from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select, text, update

from da_platform.db.models import Assignment, AssignmentStatus, AuditLog, Campaign, utcnow
from da_platform.rating.campaign_ratings import load_ratings
from da_platform.sources.prolific import study_url
from tests.fakes.crowd import good, quality_campaign, rate_hit, submit_form
from tests.mturk_world import World, launched, mturk_world
from tests.worker_flow import FAKE_TURK, accepted, assignment_of, current, rate, snapshot, tokens


def _mturk(client, hit_id: str, assignment_id: str, worker_id: str, turk: str = FAKE_TURK):
    return client.get("/mturk", query_string={"assignmentId": assignment_id, "hitId": hit_id,
                                              "workerId": worker_id, "turkSubmitTo": turk})


def test_another_assignment_id_with_a_victims_worker_id_gets_nothing_of_his(env):
    """Item 1: victim W rates under A1; the attacker opens the HIT with A2 and W's worker id."""
    env.campaign(slots=5, provider="mturk")
    with env.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()
    victim = env.app.test_client()
    base = _mturk(victim, hit_id, "A1VICTIM", "WVICTIM").location
    for score in (10, 20, 30):
        slot, _ = current(victim, base)
        assert accepted(rate(victim, base, slot, score))
    before = snapshot(env)
    attacker = env.app.test_client()
    for made_up in ("A2ATTACKER", "ASSIGNMENT_ID_X"):
        hijack = _mturk(attacker, hit_id, made_up, "WVICTIM")
        assert hijack.status_code == 409 and "already under way with another assignment" in hijack.text
        assert "/a/" not in hijack.headers.get("Location", "") and "/a/" not in hijack.text  # no token
    assert snapshot(env) == before
    # The victim goes on, and his completion form posts his own assignment id (what review pays).
    for score in (40, 50):
        slot, _ = current(victim, base)
        assert accepted(rate(victim, base, slot, score))
    assert 'name="assignmentId" value="A1VICTIM"' in victim.get(base + "done").text
    with env.sessions() as s:
        assert s.scalars(select(Assignment.provider_assignment_id)).one() == "A1VICTIM"


def test_a_prolific_session_cannot_be_taken_over_either(env):
    """Item 1 on Prolific: the participant id in the study URL is not authenticated either, and every
    participant of the study has its link; another SESSION_ID with the victim's id gets nothing."""
    campaign = env.campaign(hits=2, slots=3)
    path = urlsplit(study_url(tokens(env), "", campaign.campaign_id)).path
    victim = env.app.test_client()
    base = victim.get(path, query_string={"PROLIFIC_PID": "pvictim", "STUDY_ID": "s1", "SESSION_ID": "e1"}).location
    slot, _ = current(victim, base)
    assert accepted(rate(victim, base, slot, 40))
    before = snapshot(env)
    hijack = env.app.test_client().get(path, query_string={"PROLIFIC_PID": "pvictim", "STUDY_ID": "s1",
                                                           "SESSION_ID": "e2"})
    assert hijack.status_code == 409 and "already under way with another assignment" in hijack.text
    assert "/a/" not in hijack.headers.get("Location", "")
    assert snapshot(env) == before
    again = victim.get(path, query_string={"PROLIFIC_PID": "pvictim", "STUDY_ID": "s1", "SESSION_ID": "e1"})
    assert again.status_code == 303  # the victim's own link still resumes his assignment
    assert assignment_of(env, again.location) == assignment_of(env, base)


@pytest.fixture
def world(database_url, tmp_path):
    yield from mturk_world(database_url, tmp_path)


def _invent(world: World, hit_ids: list[str], prefix: str = "FAKE") -> None:
    """One made-up arrival per HIT (ids only the attacker knows), each holding its HIT's one place."""
    for n, hit_id in enumerate(hit_ids):
        response = _mturk(world.env.app.test_client(), hit_id, f"{prefix}A{n}", f"{prefix}W{n}", world.url)
        assert response.status_code == 303


def _age(world: World, minutes: float, *assignment_ids: str) -> None:
    with world.env.sessions() as s:
        s.execute(update(Assignment).where(Assignment.provider_assignment_id.in_(assignment_ids))
                  .values(started_at=utcnow() - timedelta(minutes=minutes)))
        s.commit()


def _real_arrival(world: World, hit_id: str, worker: str):
    """A worker accepts the HIT on (the fake) MTurk and arrives with MTurk's own assignment id."""
    assignment_id = world.fake.accept(hit_id, worker)
    return assignment_id, _mturk(world.env.app.test_client(), hit_id, assignment_id, worker, world.url)


def test_invented_arrivals_hold_a_hit_only_for_mturks_own_assignment_duration(world):
    """Item 2: made-up assignmentIds for every HIT lock the real workers out until the HITs'
    AssignmentDurationInSeconds has passed, and not a moment longer."""
    campaign_id = quality_campaign(world.env, hits=3, name="held")
    world.cli("mturk", "launch", "held", "--reward", "2.00", "--duration-minutes", "60")
    with world.env.sessions() as s:
        assert s.get(Campaign, campaign_id).settings["mturk"]["assignment_duration"] == 3600
    hit_ids = world.hit_ids(campaign_id)
    _invent(world, hit_ids)
    _, refused = _real_arrival(world, hit_ids[0], "WREAL1")
    assert refused.status_code == 409 and "no task left" in refused.text
    _age(world, 59, "FAKEA0", "FAKEA1", "FAKEA2")  # within the hour: the places are still held
    _, refused = _real_arrival(world, hit_ids[1], "WREAL2")
    assert refused.status_code == 409
    _age(world, 61, "FAKEA0", "FAKEA1", "FAKEA2")  # past MTurk's own limit: no submission can come
    assignment_id, arrived = _real_arrival(world, hit_ids[2], "WREAL3")
    assert arrived.status_code == 303
    with world.env.sessions() as s:
        rows = {a.provider_assignment_id: a.status for a in s.scalars(select(Assignment))}
    assert rows == {"FAKEA0": AssignmentStatus.abandoned, "FAKEA1": AssignmentStatus.abandoned,
                    "FAKEA2": AssignmentStatus.abandoned, assignment_id: AssignmentStatus.in_progress}


@pytest.mark.slow
def test_sync_releases_what_mturk_does_not_list_once_past_its_limit_and_nothing_else(world):
    """Item 2: ``mturk sync`` frees the places of assignments MTurk does not list once they are past the
    time limit — in progress, or completed here (a script rates a made-up arrival's whole HIT: MTurk never
    gets a submission, and its scores must not enter the results). A real worker still rating (MTurk does
    not list him either, but he is within the limit) and a submitted assignment stay as they are."""
    campaign_id = launched(world, hits=5)
    hit_ids = world.hit_ids(campaign_id)
    _invent(world, hit_ids[:2])
    submitted = world.work(hit_ids[2], "WDONE", good)
    rating_id, rating = _real_arrival(world, hit_ids[3], "WRATING")
    assert rating.status_code == 303
    script = world.env.app.test_client()
    rate_hit(world.env, script, _mturk(script, hit_ids[4], "FAKEDONE", "FAKEWDONE", world.url).location, good)
    _age(world, 3 * 60 + 1, "FAKEA0", "FAKEDONE", submitted)  # past the 3 h default of MTurk's assignment duration
    _age(world, 3 * 60 - 1, "FAKEA1")  # not yet
    with world.env.sessions() as s:  # never counted: MTurk has not confirmed it (test_unconfirmed_assignments.py)
        assert "mturk:FAKEWDONE" not in load_ratings(s, s.get(Campaign, campaign_id)).worker.labels
    out = world.cli("mturk", "sync", "mturk-e2e").output
    assert "2 released" in out
    with world.env.sessions() as s:
        rows = {a.provider_assignment_id: a.status for a in s.scalars(select(Assignment))}
        audit = s.scalars(select(AuditLog).where(AuditLog.action == "mturk.sync.release")).all()
        workers = set(load_ratings(s, s.get(Campaign, campaign_id)).worker.labels)
    assert rows == {"FAKEA0": AssignmentStatus.abandoned, "FAKEA1": AssignmentStatus.in_progress,
                    submitted: AssignmentStatus.submitted, rating_id: AssignmentStatus.in_progress,
                    "FAKEDONE": AssignmentStatus.abandoned}
    assert sorted((a.target, a.outcome) for a in audit) == [("FAKEA0", "in_progress -> abandoned"),
                                                            ("FAKEDONE", "completed -> abandoned")]
    assert "mturk:FAKEWDONE" not in workers and "mturk:WDONE" in workers
    # The freed HITs go to real workers, who can finish them and submit to MTurk.
    for hit_id, worker in ((hit_ids[0], "WREAL0"), (hit_ids[4], "WREAL4")):
        real_id, arrived = _real_arrival(world, hit_id, worker)
        assert arrived.status_code == 303
        client, base = world.env.app.test_client(), arrived.location
        rate_hit(world.env, client, base, good)
        action, fields = submit_form(client.get(base + "done").text)
        assert fields["assignmentId"] == real_id
