"""Hand-out rules of the worker pages' Core arrival (da_platform/sources/arrival.py; docs/security.md, "Arrival
rules"), over HTTP on SQLite and PostgreSQL: an own-pool worker's abandoned HITs count against the per-worker cap;
an assignment is resumed only under its own provider assignment id and an abandoned one never reopens; blocked
workers get nothing; an MTurk HIT accepted again after its time ran out starts afresh."""
from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import requests
from sqlalchemy import select, update

from da_platform.campaigns.progress import aware
from da_platform.config.campaign_settings import DEFAULT_POOL_TIME_LIMIT_MINUTES
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit, Worker, utcnow
from da_platform.providers.pool.arrival import mint_invites
from da_platform.rating.campaign_ratings import load_ratings
from tests.fakes.crowd import good, quality_campaign, rate_hit, submit_form
from tests.mturk_world import mturk_world
from tests.web_factories import WebEnv, make_web_env
from tests.worker_flow import FAKE_TURK, accepted, age_assignments, assignment_of, current, rate, snapshot, tokens


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path, MTURK_SUBMIT_ORIGINS=["https://www.mturk.com", FAKE_TURK])


def test_abandoned_hits_count_against_the_per_worker_cap(env):
    campaign = env.campaign(hits=3, slots=2, max_hits_per_worker=1)
    link = urlsplit(mint_invites(tokens(env), "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]).path
    client = env.app.test_client()
    assert client.get(link).status_code == 303
    age_assignments(env, DEFAULT_POOL_TIME_LIMIT_MINUTES + 1)  # she let it time out
    before = snapshot(env)
    again = client.get(link)
    assert again.status_code == 409 and "as many of these tasks" in again.text
    assert snapshot(env) == before  # a refused arrival changes nothing
    other = env.app.test_client()  # the timed-out HIT goes to somebody else
    other_link = urlsplit(mint_invites(tokens(env), "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]).path
    assert other.get(other_link).status_code == 303
    with env.sessions() as s:
        rows = s.execute(select(Assignment.hit_id, Assignment.status).order_by(Assignment.id)).all()
    assert [r.status for r in rows] == [AssignmentStatus.abandoned, AssignmentStatus.in_progress]
    assert rows[0].hit_id == rows[1].hit_id


def mturk(client, hit_id: str, assignment_id: str, worker: str = "W1"):
    return client.get("/mturk", query_string={"assignmentId": assignment_id, "hitId": hit_id, "workerId": worker,
                                               "turkSubmitTo": FAKE_TURK})


def mturk_hit(env) -> str:
    """A new campaign of one 2-slot HIT on MTurk; the HIT's MTurk id."""
    env.campaign(hits=1, slots=2, provider="mturk")
    with env.sessions() as s:
        return s.scalar(select(Hit.provider_hit_id))


def test_a_completed_mturk_assignment_keeps_its_assignment_id(env):
    hit_id = mturk_hit(env)
    client = env.app.test_client()
    base = mturk(client, hit_id, "ASSIGN1").location
    for score in (10, 20):
        slot, _ = current(client, base)
        rate(client, base, slot, score)
    assert assignment_of(env, mturk(client, hit_id, "ASSIGN1").location) == assignment_of(env, base)  # same id: resumes
    other = mturk(env.app.test_client(), hit_id, "ASSIGN2")  # another id is another assignment, never this one
    assert other.status_code == 303 and assignment_of(env, other.location) != assignment_of(env, base)
    with env.sessions() as s:
        rows = s.execute(select(Assignment.provider_assignment_id, Assignment.status, Assignment.next_position)
                         .order_by(Assignment.id)).all()
    assert [tuple(r) for r in rows] == [("ASSIGN1", AssignmentStatus.completed, 2),
                                        ("ASSIGN2", AssignmentStatus.in_progress, 0)]


def test_an_abandoned_assignment_is_never_reopened(env):
    """Its own id is told the time ran out (410), and nothing changes."""
    hit_id = mturk_hit(env)
    client = env.app.test_client()
    base = mturk(client, hit_id, "ASSIGN1").location
    with env.sessions() as s:  # returned to MTurk (as the sync marks it)
        s.execute(update(Assignment).values(status=AssignmentStatus.abandoned))
        s.commit()
    before = snapshot(env)
    again = mturk(client, hit_id, "ASSIGN1")
    assert again.status_code == 410 and "time for this task ran out" in again.text
    assert snapshot(env) == before
    assert assignment_of(env, base)  # (the old token still names it; its pages say the time is up)


def test_a_hit_returned_and_accepted_again_within_its_time_limit_is_a_new_assignment_in_the_workers_place(env):
    """MTurk gives the HIT back at once when a worker returns it; our row of it holds its place until its time
    limit. His re-accept (a new id) still gets in, without more room (before: 409 "already under way"); someone
    else does not, while the HIT's one place is held."""
    hit_id = mturk_hit(env)
    first = mturk(env.app.test_client(), hit_id, "ASSIGN1")
    again = mturk(env.app.test_client(), hit_id, "ASSIGN2")
    assert again.status_code == 303 and assignment_of(env, again.location) != assignment_of(env, first.location)
    before = snapshot(env)
    other = mturk(env.app.test_client(), hit_id, "ASSIGN3", worker="W2")
    assert other.status_code == 409 and "no task left" in other.text
    assert snapshot(env) == before


@pytest.fixture
def world(database_url, tmp_path):
    yield from mturk_world(database_url, tmp_path)


def test_an_mturk_hit_accepted_again_after_its_time_ran_out_starts_afresh(world):
    """Issue: a worker whose assignment timed out accepts the HIT again on MTurk (a new assignment id); the old
    row was reopened with its old start time, so the page said the time had run out (410) at once. The new id
    is a new assignment with MTurk's full time limit; sync confirms it, and only it counts."""
    campaign_id = quality_campaign(world.env, hits=1, name="again")
    world.cli("mturk", "launch", "again", "--reward", "2.00", "--duration-minutes", "60")
    (hit_id,) = world.hit_ids(campaign_id)
    first = world.fake.accept(hit_id, "W1")
    client = world.env.app.test_client()
    base = client.get("/mturk", query_string={"assignmentId": first, "hitId": hit_id, "workerId": "W1",
                                              "turkSubmitTo": world.url}).location
    for score in (10, 20):
        slot, _ = current(client, base)
        assert accepted(rate(client, base, slot, score))
    world.fake.give_up(first)  # MTurk's AssignmentDurationInSeconds passed
    with world.env.sessions() as s:
        s.execute(update(Assignment).values(started_at=utcnow() - timedelta(minutes=61)))
        s.commit()
    second = world.fake.accept(hit_id, "W1")
    arrived = client.get("/mturk", query_string={"assignmentId": second, "hitId": hit_id, "workerId": "W1",
                                                 "turkSubmitTo": world.url})
    assert arrived.status_code == 303
    slot, page = current(client, arrived.location)  # before: 410 "Time is up"
    assert "1 / 50" in page
    with world.env.sessions() as s:
        fresh = s.scalar(select(Assignment.started_at).where(Assignment.provider_assignment_id == second))
    assert utcnow() - aware(fresh) < timedelta(minutes=1)
    rate_hit(world.env, client, arrived.location, good)
    action, fields = submit_form(client.get(arrived.location + "done").text)
    assert fields["assignmentId"] == second
    assert requests.post(action, data=fields, timeout=10).status_code == 200
    world.cli("mturk", "sync", "again")
    with world.env.sessions() as s:
        rows = {a.provider_assignment_id: (a.status, a.next_position) for a in s.scalars(select(Assignment))}
        table = load_ratings(s, s.get(Campaign, campaign_id))
    assert rows == {first: (AssignmentStatus.abandoned, 2), second: (AssignmentStatus.submitted, 50)}
    assert len(table) == 50 and set(table.worker.labels) == {"mturk:W1"}


def test_a_blocked_worker_gets_nothing_and_stays_blocked(env):
    campaign = env.campaign(hits=2, slots=2)
    link = urlsplit(mint_invites(tokens(env), "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]).path
    client = env.app.test_client()
    assert client.get(link).status_code == 303
    with env.sessions() as s:
        s.execute(update(Worker).values(blocked=True))
        s.execute(update(Assignment).values(status=AssignmentStatus.completed))
        s.commit()
    for _ in range(2):
        refused = client.get(link)
        assert refused.status_code == 403 and "cannot take part" in refused.text
    with env.sessions() as s:
        assert s.scalar(select(Worker.blocked)) is True
        assert len(s.scalars(select(Assignment.id)).all()) == 1
