"""HIT hand-out and rating under concurrent requests (threads), on SQLite and PostgreSQL."""
from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select, text

from da_platform.db.models import Assignment, Rating
from da_platform.providers.pool.arrival import mint_invites
from tests.web_factories import WebEnv, make_web_env

THREADS = 8


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path, MTURK_SUBMIT_ORIGINS=["https://www.mturk.com"])


def together(count: int, action) -> list:
    """Run ``action(i)`` in ``count`` threads released at the same moment."""
    barrier = threading.Barrier(count)

    def run(i):
        barrier.wait()
        return action(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def invite_paths(env: WebEnv, campaign_id: int, count: int) -> list[str]:
    tokens = env.app.extensions["da_platform"].tokens
    return [urlsplit(link).path for link in mint_invites(tokens, "", campaign_id, count, 1)]


def assignments(env: WebEnv) -> list[Assignment]:
    with env.sessions() as s:
        return list(s.scalars(select(Assignment).order_by(Assignment.id)))


@pytest.mark.parametrize("hits, per_hit", [(3, 1), (2, 2)])
def test_concurrent_arrivals_never_overfill_a_hit(env, hits, per_hit):
    campaign = env.campaign(hits=hits, slots=2, max_assignments=per_hit)
    paths = invite_paths(env, campaign.campaign_id, THREADS)
    statuses = together(THREADS, lambda i: env.app.test_client().get(paths[i]).status_code)
    assert Counter(statuses) == {303: hits * per_hit, 409: THREADS - hits * per_hit}
    taken = Counter(a.hit_id for a in assignments(env))
    assert taken == {hit_id: per_hit for hit_id in campaign.hit_ids}
    assert len({a.worker_id for a in assignments(env)}) == hits * per_hit


def test_one_worker_arriving_many_times_at_once_gets_one_hit(env):
    campaign = env.campaign(hits=4, slots=2, max_hits_per_worker=3)
    path = invite_paths(env, campaign.campaign_id, 1)[0]
    statuses = together(THREADS, lambda i: env.app.test_client().get(path).status_code)
    assert set(statuses) == {303}
    assert len(assignments(env)) == 1


def test_mturk_workers_racing_for_one_named_hit(env):
    campaign = env.campaign(hits=2, slots=2, max_assignments=3, provider="mturk")
    with env.sessions() as s:
        provider_hit_id = s.execute(
            text("SELECT provider_hit_id FROM hit WHERE id = :id"), {"id": campaign.hit_ids[1]}
        ).scalar_one()

    def arrive(i):
        query = {"assignmentId": f"A{i}", "hitId": provider_hit_id, "workerId": f"W{i}",
                 "turkSubmitTo": "https://www.mturk.com"}
        return env.app.test_client().get("/mturk", query_string=query).status_code

    assert Counter(together(THREADS, arrive)) == {303: 3, 409: THREADS - 3}
    assert [a.hit_id for a in assignments(env)] == [campaign.hit_ids[1]] * 3


@pytest.mark.parametrize("via, accepted", [("slot", 303), ("rating", 200)])  # the form, the page's script
def test_concurrent_duplicates_of_one_rating_store_it_once(env, via, accepted):
    campaign = env.campaign(slots=3)
    client = env.app.test_client()
    base = client.get(invite_paths(env, campaign.campaign_id, 1)[0]).location
    page = client.get(base + "slot").text
    slot = page.split('name="slot" value="')[1].split('"')[0]
    same = together(THREADS, lambda i: env.app.test_client().post(base + via, data={"slot": slot, "score": "42"}))
    assert {r.status_code for r in same} == {accepted}
    page = client.get(base + "slot").text
    slot = page.split('name="slot" value="')[1].split('"')[0]
    mixed = together(
        THREADS, lambda i: env.app.test_client().post(base + via, data={"slot": slot, "score": str(i)}).status_code
    )
    assert Counter(mixed) == {accepted: 1, 409: THREADS - 1}
    with env.sessions() as s:
        stored = list(s.scalars(select(Rating).order_by(Rating.id)))
    assert len(stored) == 2 and stored[0].score == 42 and 0 <= stored[1].score < THREADS
    assert assignments(env)[0].next_position == 2
