"""Hand-out rules of the worker pages' Core arrival (da_platform/sources/arrival.py), over HTTP on
SQLite and PostgreSQL: abandoned HITs count against the per-worker cap; a completed MTurk assignment
is final; blocked workers get nothing; an abandoned MTurk HIT accepted again is reopened."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from sqlalchemy import select, update

from da_platform.config.campaign_settings import DEFAULT_POOL_TIME_LIMIT_MINUTES
from da_platform.db.models import Assignment, AssignmentStatus, Hit, Worker
from da_platform.sources.pool import mint_invites
from tests.web_factories import WebEnv, make_web_env
from tests.worker_flow import FAKE_TURK, age_assignments, assignment_of, current, rate, snapshot, tokens


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
    before = snapshot(env)
    other = mturk(client, hit_id, "ASSIGN2")
    assert other.status_code == 409 and "already finished this task" in other.text
    assert snapshot(env) == before
    with env.sessions() as s:
        assert s.scalar(select(Assignment.provider_assignment_id)) == "ASSIGN1"


def test_an_abandoned_mturk_hit_accepted_again_is_reopened_with_the_new_id(env):
    hit_id = mturk_hit(env)
    client = env.app.test_client()
    base = mturk(client, hit_id, "ASSIGN1").location
    with env.sessions() as s:  # returned to MTurk (as the sync marks it)
        s.execute(update(Assignment).values(status=AssignmentStatus.abandoned))
        s.commit()
    again = mturk(client, hit_id, "ASSIGN2")
    assert again.status_code == 303 and assignment_of(env, again.location) == assignment_of(env, base)
    with env.sessions() as s:
        row = s.execute(select(Assignment.status, Assignment.provider_assignment_id, Assignment.provider_data)).one()
    assert row.status == AssignmentStatus.in_progress and row.provider_assignment_id == "ASSIGN2"
    assert row.provider_data == {"hitId": hit_id, "turkSubmitTo": FAKE_TURK}


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
