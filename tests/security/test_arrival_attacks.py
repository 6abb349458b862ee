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
from da_platform.providers.prolific.arrival import study_url
from da_platform.rating.campaign_ratings import load_ratings
from tests.fakes.crowd import good, quality_campaign, rate_hit, submit_form
from tests.fakes.mturk_requester import FakeError
from tests.mturk_world import World, launched, mturk_world
from tests.prolific_world import prolific_world, published
from tests.worker_flow import FAKE_TURK, accepted, assignment_of, current, rate, tokens


def _mturk(client, hit_id: str, assignment_id: str, worker_id: str, turk: str = FAKE_TURK):
    return client.get("/mturk", query_string={"assignmentId": assignment_id, "hitId": hit_id,
                                              "workerId": worker_id, "turkSubmitTo": turk})


def _his(env, public_id: str) -> tuple:
    """An assignment's row and its ratings, as plain tuples."""
    with env.sessions() as s:
        row = s.execute(text("SELECT * FROM assignment WHERE public_id = :p"), {"p": public_id}).one()
        ratings = s.execute(text("SELECT * FROM rating WHERE assignment_id = :a ORDER BY id"), {"a": row.id}).all()
        return tuple(row), [tuple(r) for r in ratings]


def test_another_assignment_id_with_a_victims_worker_id_gets_nothing_of_his(env):
    """Item 1: victim W rates under A1; the attacker opens the HIT with A2 and W's worker id. He gets an
    assignment of his own (docs/security.md, "Arrival rules"), never W's token, items or ratings."""
    env.campaign(slots=5, provider="mturk")
    with env.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()
    victim = env.app.test_client()
    base = _mturk(victim, hit_id, "A1VICTIM", "WVICTIM").location
    for score in (10, 20, 30):
        slot, _ = current(victim, base)
        assert accepted(rate(victim, base, slot, score))
    his = assignment_of(env, base)
    before = _his(env, his)
    attacker = env.app.test_client()
    for made_up in ("A2ATTACKER", "ASSIGNMENT_ID_X"):
        other = _mturk(attacker, hit_id, made_up, "WVICTIM")
        assert other.status_code == 303 and assignment_of(env, other.location) != his
        assert "1 / 5" in current(attacker, other.location)[1]  # nothing of his progress
    assert _his(env, his) == before
    # The victim goes on, and his completion form posts his own assignment id (what review pays).
    for score in (40, 50):
        slot, _ = current(victim, base)
        assert accepted(rate(victim, base, slot, score))
    assert 'name="assignmentId" value="A1VICTIM"' in victim.get(base + "done").text


def test_a_prolific_session_cannot_be_taken_over_either(env):
    """Item 1 on Prolific: the participant id in the study URL is not authenticated either, and every
    participant of the study has its link; another SESSION_ID with the victim's id gets nothing of his."""
    campaign = env.campaign(hits=2, slots=3)
    path = urlsplit(study_url(tokens(env), "", campaign.campaign_id)).path
    victim = env.app.test_client()
    base = victim.get(path, query_string={"PROLIFIC_PID": "pvictim", "STUDY_ID": "s1", "SESSION_ID": "e1"}).location
    slot, _ = current(victim, base)
    assert accepted(rate(victim, base, slot, 40))
    his = assignment_of(env, base)
    before = _his(env, his)
    other = env.app.test_client().get(path, query_string={"PROLIFIC_PID": "pvictim", "STUDY_ID": "s1",
                                                          "SESSION_ID": "e2"})
    assert other.status_code == 303 and assignment_of(env, other.location) != his
    assert _his(env, his) == before
    again = victim.get(path, query_string={"PROLIFIC_PID": "pvictim", "STUDY_ID": "s1", "SESSION_ID": "e1"})
    assert again.status_code == 303  # the victim's own link still resumes his assignment
    assert assignment_of(env, again.location) == his


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


def _rows(world: World) -> dict[str, tuple[AssignmentStatus, int, str]]:
    """Every assignment by provider assignment id: status, items rated, public id."""
    with world.env.sessions() as s:
        return {a.provider_assignment_id: (a.status, a.next_position, a.public_id)
                for a in s.scalars(select(Assignment))}


@pytest.mark.parametrize("how", ["released", "timed out"])
def test_an_abandoned_assignment_is_handed_to_no_other_assignment_id(world, how):
    """Issue: once a worker's assignment was released (``campaign release``) or past its time limit,
    ``/mturk?assignmentId=<made up>&hitId=<that HIT>&workerId=<his id>`` was redirected to his own assignment
    (his progress shown, rated into), and his re-accept then got 409. A made-up id now starts an assignment of
    its own; the worker's stays as it was, and his re-accept on MTurk starts afresh too."""
    campaign_id = quality_campaign(world.env, hits=1, name="left")
    world.cli("mturk", "launch", "left", "--reward", "2.00")
    (hit_id,) = world.hit_ids(campaign_id)
    first, arrived = _real_arrival(world, hit_id, "WVICTIM")
    victim, base = world.env.app.test_client(), arrived.location
    for score in (10, 20, 30):
        slot, _ = current(victim, base)
        assert accepted(rate(victim, base, slot, score))
    if how == "released":
        world.cli("campaign", "release", "left", "--worker", "mturk:WVICTIM")
    else:
        world.fake.give_up(first)  # MTurk took it back at its AssignmentDurationInSeconds
        _age(world, 3 * 60 + 1, first)
    his = assignment_of(world.env, base)

    attacker = world.env.app.test_client()
    hijack = _mturk(attacker, hit_id, "MADEUP", "WVICTIM", world.url)
    assert hijack.status_code == 303 and assignment_of(world.env, hijack.location) != his
    slot, page = current(attacker, hijack.location)
    assert "1 / 50" in page  # a fresh assignment: nothing of his progress
    assert _rows(world)[first] == (AssignmentStatus.abandoned, 3, his)  # his, untouched

    if how == "timed out":  # the worker accepts the HIT again on MTurk: a new assignment id, a fresh start
        again, arrived = _real_arrival(world, hit_id, "WVICTIM")
        assert arrived.status_code == 303, arrived.text
        assert assignment_of(world.env, arrived.location) not in (his, assignment_of(world.env, hijack.location))
        assert "1 / 50" in current(world.env.app.test_client(), arrived.location)[1]
    # Under his own old id he is told the time ran out; nothing reopens.
    late = _mturk(world.env.app.test_client(), hit_id, first, "WVICTIM", world.url)
    assert late.status_code == 410 and "time for this task ran out" in late.text
    assert _rows(world)[first] == (AssignmentStatus.abandoned, 3, his)


def test_a_made_up_mturk_arrival_never_takes_a_workers_place(world):
    """Issue: with one HIT per worker, one request naming a worker's id took his place for good: his genuine
    arrival got 409 "as many of these tasks as one person may", also once the made-up assignment was past its
    time limit and ``mturk sync`` had released it. An unconfirmed assignment now counts against nobody's cap."""
    campaign_id = launched(world, hits=3, name="capped")
    hit_ids = world.hit_ids(campaign_id)
    assert _mturk(world.env.app.test_client(), hit_ids[0], "MADEUP", "WVICTIM", world.url).status_code == 303
    genuine = world.work(hit_ids[1], "WVICTIM", good)  # while the made-up one is held: he gets in
    assert _rows(world)[genuine][:2] == (AssignmentStatus.completed, 50)

    _age(world, 3 * 60 + 1, "MADEUP")  # past MTurk's limit; sync releases it and confirms his
    out = world.cli("mturk", "sync", "capped").output
    assert "1 released" in out
    assert {k: v[0] for k, v in _rows(world).items()} == {"MADEUP": AssignmentStatus.abandoned,
                                                          genuine: AssignmentStatus.submitted}
    # What is surely his counts: his confirmed HIT fills his one place (and sync had MTurk exclude him).
    with pytest.raises(FakeError, match="does not meet"):
        world.fake.accept(hit_ids[2], "WVICTIM")
    refused = _mturk(world.env.app.test_client(), hit_ids[2], "ANOTHER", "WVICTIM", world.url)
    assert refused.status_code == 409 and "as many of these tasks" in refused.text


def test_a_made_up_arrival_past_its_limit_leaves_the_workers_place_free(world):
    """The issue's second case: the made-up assignment is past its limit and released by sync before the
    worker ever comes; his arrival is let in (before: 409 for ever)."""
    campaign_id = launched(world, hits=2, name="later")
    hit_ids = world.hit_ids(campaign_id)
    assert _mturk(world.env.app.test_client(), hit_ids[0], "MADEUP", "WVICTIM", world.url).status_code == 303
    _age(world, 3 * 60 + 1, "MADEUP")
    assert "1 released" in world.cli("mturk", "sync", "later").output
    _, arrived = _real_arrival(world, hit_ids[1], "WVICTIM")
    assert arrived.status_code == 303, arrived.text


@pytest.fixture
def prolific(database_url, tmp_path):
    yield from prolific_world(database_url, tmp_path)


def test_a_made_up_prolific_session_never_takes_a_participants_place(prolific):
    """The same on Prolific: a study link with the participant's ``PROLIFIC_PID`` and a made-up ``SESSION_ID``
    (before: his genuine session got 409 while it was held, and "as many as one person may" once it was
    abandoned)."""
    published(prolific, hits=2, name="capped-p")
    study = prolific.study()
    path = urlsplit(study["external_study_url"]).path
    made_up = prolific.env.app.test_client().get(path, query_string={
        "PROLIFIC_PID": "PVICTIM", "STUDY_ID": study["id"], "SESSION_ID": "MADEUPSESSION"})
    assert made_up.status_code == 303
    genuine = prolific.take_part("PVICTIM", good)  # rates his HIT and comes back with the code
    prolific.cli("prolific", "sync", "capped-p")
    with prolific.env.sessions() as s:
        rows = {a.provider_assignment_id: a.status for a in s.scalars(select(Assignment))}
    assert rows == {"MADEUPSESSION": AssignmentStatus.in_progress, genuine: AssignmentStatus.submitted}
