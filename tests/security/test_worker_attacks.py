"""Attack suite, worker side: what a hostile crowd worker tried (docs/security.md#workers), on SQLite and PostgreSQL.

Each test is the attack as a worker's browser or script would send it, and asserts the refusal and
that the database did not change (``snapshot``).
"""
from __future__ import annotations

import io
from urllib.parse import urlsplit

import numpy as np
import pytest
from PIL import Image
from sqlalchemy import select, text, update

from da_platform.config.campaign_settings import DEFAULT_POOL_TIME_LIMIT_MINUTES
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Slot, SlotType, Worker
from da_platform.providers.pool.arrival import mint_invites
from da_platform.providers.prolific.arrival import study_url
from da_platform.rating.campaign_ratings import load_ratings
from tests.worker_flow import (
    FAKE_TURK,
    accepted,
    age_assignments,
    arrive_pool,
    assignment_of,
    current,
    rate,
    ratings,
    refused_as_late,
    snapshot,
    tokens,
)


def _mturk(client, hit_id: str, assignment_id: str, worker_id: str = "W1"):
    return client.get("/mturk", query_string={"assignmentId": assignment_id, "hitId": hit_id,
                                              "workerId": worker_id, "turkSubmitTo": FAKE_TURK})


def _finish(client, base: str, slots: int) -> None:
    for _ in range(slots):
        slot, _ = current(client, base)
        assert accepted(rate(client, base, slot, 50))


def test_a_finished_mturk_worker_cannot_replace_the_assignment_id(env):
    """Item 1: a made-up assignmentId after finishing would hide the real one from review. It is an assignment of
    its own (docs/security.md, "Arrival rules"): the finished one keeps its id, ratings and completion form."""
    env.campaign(slots=2, provider="mturk")
    with env.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()
    client = env.app.test_client()
    base = _mturk(client, hit_id, "REALASSIGNMENT").location
    _finish(client, base, 2)
    with env.sessions() as s:
        before = (s.execute(text("SELECT * FROM assignment")).one(),
                  s.execute(text("SELECT * FROM rating ORDER BY id")).all())
    for made_up in ("MADEUP1", "ASSIGNMENT_ID_X"):
        response = _mturk(env.app.test_client(), hit_id, made_up)
        assert response.status_code == 303 and assignment_of(env, response.location) != assignment_of(env, base)
    with env.sessions() as s:
        rows = s.execute(select(Assignment.provider_assignment_id, Assignment.next_position)
                         .order_by(Assignment.id)).all()
        assert [tuple(r) for r in rows] == [("REALASSIGNMENT", 2), ("MADEUP1", 0), ("ASSIGNMENT_ID_X", 0)]
        assert (s.execute(text("SELECT * FROM assignment ORDER BY id")).first(),
                s.execute(text("SELECT * FROM rating ORDER BY id")).all()) == before
    done = client.get(base + "done")
    assert 'name="assignmentId" value="REALASSIGNMENT"' in done.text
    again = _mturk(client, hit_id, "REALASSIGNMENT")  # the real one still resumes
    assert assignment_of(env, again.location) == assignment_of(env, base)


@pytest.mark.parametrize("status", [AssignmentStatus.rejected, AssignmentStatus.approved, AssignmentStatus.submitted])
def test_no_prolific_completion_code_for_an_unfinished_assignment(env, status):
    """Item 2: an assignment closed with 0 or 1 of its 3 ratings gets no completion code."""
    campaign = env.campaign(hits=2, slots=3, completion_code="SECRET-CODE")
    client = env.app.test_client()
    path = urlsplit(study_url(tokens(env), "", campaign.campaign_id)).path
    bases = [client.get(path, query_string={"PROLIFIC_PID": f"p{rated}", "STUDY_ID": "s1", "SESSION_ID": f"e{rated}"}
                        ).location for rated in (0, 1)]
    slot, _ = current(client, bases[1])
    assert accepted(rate(client, bases[1], slot, 40))
    with env.sessions() as s:
        s.execute(update(Assignment).values(status=status))
        s.commit()
    before = snapshot(env)
    for base in bases:
        for page in ("done", "slot"):
            response = client.get(base + page, follow_redirects=True)
            assert response.status_code == 409 and "SECRET-CODE" not in response.text
            assert "prolific.com" not in response.headers.get("Location", "")
    assert snapshot(env) == before


def test_timing_hits_out_does_not_lift_the_cap_and_their_ratings_stay_out(env):
    """Item 3: abandoned HITs count against max_hits_per_worker; their ratings do not enter the analysis."""
    campaign = env.campaign(hits=3, slots=4, max_hits_per_worker=1)
    link = urlsplit(mint_invites(tokens(env), "", campaign.campaign_id, 1, 1)[0]).path
    client = env.app.test_client()
    base = client.get(link).location
    slot, _ = current(client, base)
    assert accepted(rate(client, base, slot, 90))
    age_assignments(env, DEFAULT_POOL_TIME_LIMIT_MINUTES + 1)  # let it time out ...
    arrive_pool(env, env.app.test_client(), campaign.campaign_id)  # ... and someone else arrives
    before = snapshot(env)
    again = client.get(link)
    assert again.status_code == 409 and "as many of these tasks" in again.text
    assert snapshot(env) == before
    with env.sessions() as s:
        assert AssignmentStatus.abandoned in set(s.scalars(select(Assignment.status)))
        assert len(load_ratings(s, s.get(Campaign, campaign.campaign_id))) == 0
    assert len(ratings(env)) == 1  # stored all the same


VIAS = ("slot", "rating")


def _rated_the_first_item(env, campaign_id: int, score: int, via: str = "slot") -> tuple[object, str, str]:
    """A pool worker arrives and rates the first item: their client, base path and next slot."""
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign_id)
    slot, _ = current(client, base)
    assert accepted(rate(client, base, slot, score, via))
    return client, base, current(client, base)[0]


def test_a_worker_blocked_while_rating_can_rate_nothing_more(env):
    """Item 4: blocking applies to the HIT in hand, not only to the next arrival (both ways of posting)."""
    campaign = env.campaign(hits=2, slots=4)
    clients, bases, slots = zip(*(_rated_the_first_item(env, campaign.campaign_id, 70) for _ in range(2)))
    with env.sessions() as s:
        s.execute(update(Worker).values(blocked=True))
        s.commit()
    before = snapshot(env)
    for via, client, base, slot in zip(VIAS, clients, bases, slots):
        refused = rate(client, base, slot, 71, via)
        assert refused.status_code == 403
        assert "cannot take part" in (refused.text if via == "slot" else refused.json["error"])
        assert client.get(base + "slot").status_code == 403
        assert client.get(base + f"image/{slot}/candidate").status_code == 404
    assert snapshot(env) == before


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the limit is the web layer's, not the database's
def test_oversized_worker_posts_are_refused_with_413(env):
    """Item 5: bodies are limited before they are read into memory."""
    campaign = env.campaign(slots=2)
    link = urlsplit(mint_invites(tokens(env), "", campaign.campaign_id, 1, 1)[0]).path
    client = env.app.test_client()
    base = client.get(link).location
    slot, _ = current(client, base)
    before = snapshot(env)
    for via in ("slot", "rating"):
        for data in ({"slot": slot, "score": "5", "behaviour": "x" * 200_000},
                     {"slot": slot, "score": "5", **{f"f{i}": "1" for i in range(5000)}},
                     {"slot": slot, "score": "5", "upload": (io.BytesIO(b"x" * 30 * 2**20), "big.bin")}):
            response = client.post(base + via, data=data)
            assert response.status_code == 413
            assert "too large" in (response.text if via == "slot" else response.json["error"])
    assert snapshot(env) == before
    assert accepted(rate(client, base, slot, 5, "rating"))  # a normal rating still goes through


def test_a_late_pool_worker_is_stopped_on_their_own_next_request(env):
    """Item 12: the time limit holds even when nobody else arrives to release the HIT (both ways of posting)."""
    campaign = env.campaign(hits=2, slots=4)
    clients, bases, slots = zip(*(_rated_the_first_item(env, campaign.campaign_id, 10, via) for via in VIAS))
    age_assignments(env, DEFAULT_POOL_TIME_LIMIT_MINUTES + 1)
    before = snapshot(env)
    for via, client, base, slot in zip(VIAS, clients, bases, slots):
        assert refused_as_late(client, base, slot, 11, via)
    assert snapshot(env) == before
    assert [r.score for r in ratings(env)] == [10, 10]


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)


def test_a_repeat_image_is_not_byte_identical_to_its_original(env):
    """Item 12: the REPEAT slot's bytes differ from its original's (hashing cannot pair them), by
    at most one level on a few pixels; the same slot always gets the same bytes."""
    campaign = env.campaign(slots=8)
    link = urlsplit(mint_invites(tokens(env), "", campaign.campaign_id, 1, 1)[0]).path
    client = env.app.test_client()
    base = client.get(link).location
    served: dict[int, dict[str, bytes]] = {}
    for position in range(8):
        slot, _ = current(client, base)
        served[position] = {role: client.get(base + f"image/{slot}/{role}").data for role in ("candidate", "reference")}
        assert served[position]["candidate"] == client.get(base + f"image/{slot}/candidate").data  # stable
        assert accepted(rate(client, base, slot, 50))
    with env.sessions() as s:
        repeat = s.scalars(select(Slot).where(Slot.slot_type == SlotType.REPEAT)).one()
        original = repeat.original_slot
        assert repeat.candidate_image == original.candidate_image  # one stored image for both
        stored = env.storage.read(original.candidate_image)
        repeat_position, original_position = repeat.position, original.position
    for role in ("candidate", "reference"):
        a, b = served[repeat_position][role], served[original_position][role]
        assert a != b
        difference = np.abs(_pixels(a) - _pixels(b))
        assert difference.max() == 1 and 0 < (difference > 0).sum() <= 24
    assert np.abs(_pixels(served[original_position]["candidate"]) - _pixels(stored)).max() == 1


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_workers_get_a_retry_page_when_the_database_is_down(tmp_path, database):
    """Item 10: a database fault is a 503 'your ratings are safe' page (JSON for the page's script).
    The faults: a SQLite file without its tables; a PostgreSQL server that does not answer."""
    from tests.web_factories import make_web_env

    dead = {"sqlite": f"sqlite:///{tmp_path / 'not-migrated.sqlite'}",
            "postgres": "postgresql+psycopg://postgres@127.0.0.1:1/postgres"}  # nothing listens on port 1
    env = make_web_env(dead[database], tmp_path)
    client = env.app.test_client()
    token = env.app.extensions["da_platform"].tokens.assignment("some-assignment")
    page = client.get(f"/a/{token}/slot")
    assert page.status_code == 503 and "ratings so far are safe" in page.text
    assert "Internal Server Error" not in page.text
    script = client.post(f"/a/{token}/rating", data={"slot": "s", "score": "5"})
    assert script.status_code == 503 and "ratings so far are safe" in script.json["error"]
    assert script.json["resume"].endswith("/slot")
    link = urlsplit(mint_invites(env.app.extensions["da_platform"].tokens, "", 1, 1, 1)[0]).path
    arrival = client.get(link)
    assert arrival.status_code == 503 and "reload the page" in arrival.text
