"""The worker flow over HTTP (Flask test client), on SQLite and PostgreSQL.

Every attack is refused with no change to the database: the ratings, assignments and workers
tables are compared before and after.
"""
from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import create_engine, select, text, update
from sqlalchemy.pool import NullPool

from da_platform.config.campaign_settings import DEFAULT_POOL_TIME_LIMIT_MINUTES
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit, Rating, Slot, SlotType, Worker
from da_platform.providers.mturk.arrival import PREVIEW_ASSIGNMENT_ID
from da_platform.providers.pool.arrival import mint_invites
from da_platform.providers.prolific.arrival import study_url
from tests.web_factories import CHINESE_QUESTION, WebEnv, make_web_env
from tests.worker_flow import (
    FAKE_TURK,
    accepted,
    age_assignments,
    arrive_at_new_hit,
    arrive_pool,
    assignment_of,
    current,
    rate,
    ratings,
    refused_as_late,
    snapshot,
    tokens,
    via,
)


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path, MTURK_SUBMIT_ORIGINS=["https://www.mturk.com", FAKE_TURK])


def test_pool_worker_rates_a_whole_hit_in_order(env):
    campaign = env.campaign(slots=12)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    instructions = client.get(base)
    assert instructions.status_code == 200
    assert "Answer B answers the question as adequately as Answer A." in instructions.text
    assert "12 items" in instructions.text
    for number in range(1, 13):
        slot, page = current(client, base)
        assert f"{number} / 12" in page
        assert rate(client, base, slot, number * 7).status_code == 303
    assert client.get(base + "slot").location.endswith("/done")
    done = client.get(base + "done")
    assert done.status_code == 200 and "All 12 ratings are saved" in done.text
    with env.sessions() as s:
        slots = list(s.scalars(select(Slot).where(Slot.hit_id == campaign.hit_ids[0]).order_by(Slot.position)))
        stored = list(s.scalars(select(Rating).order_by(Rating.id)))
        assignment = s.scalars(select(Assignment)).one()
    assert [r.slot_id for r in stored] == [slot.id for slot in slots]
    assert [r.score for r in stored] == [n * 7 for n in range(1, 13)]
    assert all(r.shown_at is not None and r.shown_at <= r.rated_at for r in stored)
    assert all(a.rated_at <= b.shown_at for a, b in zip(stored, stored[1:]))
    assert assignment.status == AssignmentStatus.completed and assignment.next_position == 12
    assert assignment.completed_at is not None and assignment.source == "pool"


def test_reload_resumes_at_the_first_unrated_slot_and_keeps_the_served_time(env):
    client, base = arrive_at_new_hit(env, slots=4)
    for _ in range(2):  # reading (and reloading) the instructions is not being shown the first item
        assert client.get(base).status_code == 200
    with env.sessions() as s:
        assert s.scalars(select(Assignment.current_shown_at)).one() is None
    first, _ = current(client, base)
    with env.sessions() as s:
        served = s.scalars(select(Assignment.current_shown_at)).one()
    assert current(client, base)[0] == first  # reload: same slot
    assert client.get(base).location.endswith("/slot")  # instructions no longer shown once started
    rate(client, base, first, 10)
    second, page = current(client, base)
    assert second != first and "2 / 4" in page
    assert current(client, base)[0] == second
    assert ratings(env)[0].shown_at == served


def test_page_shows_nothing_that_identifies_system_type_or_question(env):
    campaign = env.campaign(slots=10)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    with env.sessions() as s:
        slots = list(s.scalars(select(Slot).where(Slot.hit_id == campaign.hit_ids[0]).order_by(Slot.position)))
    seen_images = []
    for slot in slots:
        public, page = current(client, base)
        assert public == slot.public_id
        # Random tokens and ids may contain "q3" or "REF" by chance: look at the rest of the page.
        token = base.split("/a/")[1].split("/")[0]
        rest = page.replace(token, "").replace(slot.public_id, "")
        for secret in ("sys-a", slot.slot_type.value, slot.candidate_image, slot.reference_image,
                       f"q{slot.position}", "SYSTEM", "REPEAT", "BAD_REF"):
            assert secret not in rest
        images = re.findall(r'<img id="answer-[ab]" src="([^"]+)"', page)
        assert len(images) == 2 and all(slot.public_id in src for src in images)
        seen_images += images
        for src in images:
            response = client.get(src)
            assert response.status_code == 200 and response.mimetype == "image/png"
            assert "ETag" not in response.headers and "Last-Modified" not in response.headers
        rate(client, base, public, 50)
    # The REPEAT at position 7 shows the same pictures as position 0, under different URLs.
    assert slots[7].slot_type == SlotType.REPEAT and slots[7].candidate_image == slots[0].candidate_image
    assert len(set(seen_images)) == len(seen_images)


def test_question_text_is_escaped_and_chinese_is_utf8(env):
    client, base = arrive_at_new_hit(env, slots=2)
    slot, page = current(client, base)
    response = client.get(base + "slot")
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert CHINESE_QUESTION in response.get_data(as_text=True)
    rate(client, base, slot, 1)
    _, page = current(client, base)
    assert "what is &lt;b&gt;1&lt;/b&gt; &amp; why?" in page and "<b>1</b>" not in page


def test_the_script_gets_each_next_item_with_its_rating(env):
    """POST /rating answers with the item the slot page would show next, then with the completion URL."""
    client, base = arrive_at_new_hit(env, slots=4)
    slot, page = current(client, base)
    assert f'data-rating-url="{base}rating"' in page
    for number in range(1, 5):
        response = rate(client, base, slot, number, "rating")
        assert response.status_code == 200 and response.mimetype == "application/json"
        assert response.headers["Cache-Control"] == "no-store"
        if number == 4:
            assert response.json == {"done": base + "done"}
            break
        screen = response.json["screen"]
        slot, page = current(client, base)  # what a reload would show now
        assert screen["slot"] == slot and screen["progress"] == f"{number + 1} / 4" in page
        assert screen["title"] == f"Item {number + 1} of 4"
        assert f'src="{screen["candidate_image"]}"' in page and f'src="{screen["reference_image"]}"' in page
        assert client.get(screen["candidate_image"]).status_code == 200
        # Raw text in JSON (the script puts it into textContent); the same text escaped in the page.
        assert screen["question"] == f"Question number {number}: what is <b>{number}</b> & why?"
        assert f"what is &lt;b&gt;{number}&lt;/b&gt; &amp; why?" in page
    assert [r.score for r in ratings(env)] == [1, 2, 3, 4]
    with env.sessions() as s:
        assert s.scalars(select(Assignment.status)).one() == AssignmentStatus.completed
    stale = rate(client, base, slot, 4, "rating")  # the last rating again: stored once, still done
    assert stale.json == {"done": base + "done"} and len(ratings(env)) == 4


def test_the_script_gets_refusals_as_json(env):
    client, base = arrive_at_new_hit(env, slots=2)
    slot, _ = current(client, base)
    before = snapshot(env)
    bad_score = rate(client, base, slot, "x", "rating")
    assert bad_score.status_code == 400 and "whole number" in bad_score.json["error"]
    token = base.split("/")[2]
    forged_token = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    forged = client.post(f"/a/{forged_token}/rating", data={"slot": slot, "score": "5"})
    assert forged.status_code == 403 and forged.json["error"] == "This link is not valid."
    assert snapshot(env) == before


def test_security_headers(env):
    client = env.app.test_client()
    base = arrive_pool(env, client, env.campaign(slots=2).campaign_id)
    response = client.get(base + "slot")
    csp = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://www.mturk.com https://workersandbox.mturk.com" in csp
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in response.text and " on" + "click=" not in response.text
    assert "Set-Cookie" not in response.headers


# Attacks: each refused, nothing changed -------------------------------------------------------------


@via
def test_rating_a_later_slot_is_refused(env, via):
    campaign = env.campaign(slots=5)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    current(client, base)
    with env.sessions() as s:
        later = s.scalars(select(Slot.public_id).where(Slot.hit_id == campaign.hit_ids[0], Slot.position == 3)).one()
    before = snapshot(env)
    assert rate(client, base, later, 40, via).status_code == 409
    assert rate(client, base, "no-such-slot", 40, via).status_code == 409
    assert snapshot(env) == before


@via
def test_going_back_is_refused(env, via):
    client, base = arrive_at_new_hit(env, slots=5)
    first, _ = current(client, base)
    rate(client, base, first, 30, via)
    current(client, base)
    before = snapshot(env)
    response = rate(client, base, first, 31, via)  # a changed score for an already rated slot
    assert response.status_code == 409
    if via == "slot":
        assert "Continue with the current item" in response.text
    else:
        assert "not the current one" in response.json["error"] and response.json["resume"] == base + "slot"
    assert snapshot(env) == before
    assert [r.score for r in ratings(env)] == [30]


@via
def test_the_same_rating_twice_is_stored_once(env, via):
    client, base = arrive_at_new_hit(env, slots=3)
    slot, _ = current(client, base)
    assert accepted(rate(client, base, slot, 64, via))
    before = snapshot(env)
    second, _ = current(client, base)
    again = rate(client, base, slot, 64, via)
    assert accepted(again)
    if via == "rating":  # the answer to a repeat is the current item, as for the first sending
        assert again.json["screen"]["slot"] == second
    assert snapshot(env) == before
    assert len(ratings(env)) == 1


@via
def test_another_workers_assignment_is_refused(env, via):
    campaign = env.campaign(hits=2, slots=3)
    alice, bob = env.app.test_client(), env.app.test_client()
    base_a = arrive_pool(env, alice, campaign.campaign_id)
    base_b = arrive_pool(env, bob, campaign.campaign_id)
    slot_a, _ = current(alice, base_a)
    slot_b, _ = current(bob, base_b)
    before = snapshot(env)
    assert rate(bob, base_b, slot_a, 10, via).status_code == 409  # Alice's slot through Bob's token
    assert rate(alice, base_a, slot_b, 10, via).status_code == 409
    assert alice.get(base_a + f"image/{slot_b}/candidate").status_code == 404
    assert snapshot(env) == before


@via
@pytest.mark.parametrize("score", ["101", "-1", "50.5", "1e2", "abc", "", " 5", "05", "0x10", None, "１０"])
def test_malformed_scores_are_refused(env, score, via):
    client, base = arrive_at_new_hit(env, slots=2)
    slot, _ = current(client, base)
    before = snapshot(env)
    assert rate(client, base, slot, score, via).status_code == 400
    assert snapshot(env) == before


@via
def test_scores_at_both_ends_are_accepted(env, via):
    client = env.app.test_client()
    base = arrive_pool(env, client, env.campaign(slots=2).campaign_id)
    for score in (0, 100):
        slot, _ = current(client, base)
        assert accepted(rate(client, base, slot, score, via))
    assert [r.score for r in ratings(env)] == [0, 100]


def test_forged_and_expired_tokens_are_refused(env):
    campaign = env.campaign(slots=2)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    slot, _ = current(client, base)
    token = base.split("/")[2]
    with env.sessions() as s:
        public_id = s.scalars(select(Assignment.public_id)).one()

    class LongAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 30 * 24 * 3600

    expired = URLSafeTimedSerializer("test-secret-key", salt="da-platform.assignment", signer=LongAgo).dumps(public_id)
    other_key = URLSafeTimedSerializer("another-key", salt="da-platform.assignment").dumps(public_id)
    invite_as_assignment = tokens(env).invite(campaign.campaign_id, "x", int(time.time()) + 99)
    before = snapshot(env)
    for bad in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), expired, other_key, invite_as_assignment):
        assert client.post(f"/a/{bad}/slot", data={"slot": slot, "score": "5"}).status_code == 403
        assert client.get(f"/a/{bad}/slot").status_code == 403
    expired_page = client.get(f"/a/{expired}/slot")
    assert "expired" in expired_page.text
    # Invites: expired, forged, or signed with another key.
    stale = mint_invites(tokens(env), "", campaign.campaign_id, 1, valid_days=-1)[0]
    assert client.get(stale).status_code == 403 and "expired" in client.get(stale).text
    assert client.get(stale[:-3] + "abc").status_code == 403
    assert client.get(f"/pool/{other_key}").status_code == 403
    assert snapshot(env) == before


def test_mturk_preview_writes_nothing(env):
    campaign = env.campaign(slots=3, provider="mturk")
    with env.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()
    client = env.app.test_client()
    before = snapshot(env)
    preview = client.get(f"/mturk?assignmentId={PREVIEW_ASSIGNMENT_ID}&hitId={hit_id}"
                         f"&workerId=W1&turkSubmitTo={FAKE_TURK}")
    assert preview.status_code == 200 and "This is a preview" in preview.text and 'id="start"' not in preview.text
    assert "3 items" in preview.text
    assert client.post(f"/mturk?assignmentId={PREVIEW_ASSIGNMENT_ID}&hitId={hit_id}").status_code == 405
    assert client.get(f"/mturk?assignmentId={PREVIEW_ASSIGNMENT_ID}&hitId=UNKNOWN").status_code == 404
    assert snapshot(env) == before
    assert campaign.hit_ids


@pytest.mark.parametrize(
    "submit_to", ["https://evil.example", "http://www.mturk.com", "https://www.mturk.com/path",
                  "javascript:alert(1)", ""]
)
def test_mturk_submit_host_must_be_allowed(env, submit_to):
    env.campaign(slots=2, provider="mturk")
    with env.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()
    before = snapshot(env)
    client = env.app.test_client()
    response = client.get("/mturk", query_string={"assignmentId": "A1", "hitId": hit_id, "workerId": "W1",
                                                   "turkSubmitTo": submit_to})
    assert response.status_code == 400
    assert snapshot(env) == before


def test_mturk_worker_completes_and_page_posts_back(env):
    env.campaign(slots=2, provider="mturk")
    with env.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()
    client = env.app.test_client()
    arrival = client.get("/mturk", query_string={"assignmentId": "ASSIGN1", "hitId": hit_id, "workerId": "WORKER1",
                                                  "turkSubmitTo": FAKE_TURK + "/"})
    assert arrival.status_code == 303
    base = arrival.location
    again = client.get("/mturk", query_string={"assignmentId": "ASSIGN1", "hitId": hit_id, "workerId": "WORKER1",
                                                "turkSubmitTo": FAKE_TURK})
    assert assignment_of(env, again.location) == assignment_of(env, base)  # the same assignment resumed
    for _ in range(2):
        slot, _ = current(client, base)
        rate(client, base, slot, 77)
    done = client.get(base + "done")
    assert done.status_code == 200
    assert f'action="{FAKE_TURK}/mturk/externalSubmit"' in done.text
    assert 'name="assignmentId" value="ASSIGN1"' in done.text
    assert f"form-action 'self' https://app.prolific.com {FAKE_TURK}" in done.headers["Content-Security-Policy"]
    receipt = re.search(r'name="completion" value="([^"]+)"', done.text).group(1)
    with env.sessions() as s:
        assignment = s.scalars(select(Assignment)).one()
        worker = s.scalars(select(Worker)).one()
    assert tokens(env).read_receipt(receipt) == (assignment.public_id, 2)
    assert (worker.source, worker.external_id) == ("mturk", "WORKER1")
    assert assignment.provider_assignment_id == "ASSIGN1"
    assert assignment.provider_data == {"hitId": hit_id, "turkSubmitTo": FAKE_TURK}


def test_prolific_completion_redirects_with_the_campaign_code(env):
    campaign = env.campaign(slots=2, completion_code="CODE-42")
    client = env.app.test_client()
    url = study_url(tokens(env), "http://127.0.0.1", campaign.campaign_id)
    path = urlsplit(url).path
    assert "{{%PROLIFIC_PID%}}" in url
    arrival = client.get(path, query_string={"PROLIFIC_PID": "5f1a2b", "STUDY_ID": "st1", "SESSION_ID": "se1"})
    base = arrival.location
    for _ in range(2):
        slot, _ = current(client, base)
        rate(client, base, slot, 12)
    done = client.get(base + "done")
    assert done.status_code == 302
    target = urlsplit(done.location)
    assert (target.scheme, target.netloc, target.path) == ("https", "app.prolific.com", "/submissions/complete")
    assert parse_qs(target.query) == {"cc": ["CODE-42"]}
    with env.sessions() as s:
        assignment = s.scalars(select(Assignment)).one()
    assert assignment.provider_assignment_id == "se1" and assignment.source == "prolific"
    before = snapshot(env)
    assert client.get(path, query_string={"PROLIFIC_PID": "x y", "STUDY_ID": "s", "SESSION_ID": "t"}).status_code == 400
    assert client.get("/prolific/forged", query_string={"PROLIFIC_PID": "a", "STUDY_ID": "s", "SESSION_ID": "t"}
                      ).status_code == 403
    assert snapshot(env) == before


def test_prolific_without_a_completion_code_says_so(env):
    campaign = env.campaign(slots=1, completion_code=None)
    client = env.app.test_client()
    path = urlsplit(study_url(tokens(env), "", campaign.campaign_id)).path
    base = client.get(path, query_string={"PROLIFIC_PID": "p1", "STUDY_ID": "s1", "SESSION_ID": "e1"}).location
    slot, _ = current(client, base)
    rate(client, base, slot, 9)
    done = client.get(base + "done")
    assert done.status_code == 200 and "No completion code is configured" in done.text


def test_blocked_worker_is_refused(env):
    campaign = env.campaign(hits=2, slots=2)
    link = mint_invites(tokens(env), "", campaign.campaign_id, 1, 1)[0]
    client = env.app.test_client()
    client.get(link)
    with env.sessions() as s:
        s.execute(update(Worker).values(blocked=True))
        s.execute(update(Assignment).values(status=AssignmentStatus.abandoned))
        s.commit()
    before = snapshot(env)
    response = client.get(link)
    assert response.status_code == 403 and "cannot take part" in response.text
    assert snapshot(env) == before


def test_limits_per_worker_and_per_hit(env):
    campaign = env.campaign(hits=3, slots=2, max_hits_per_worker=2)
    link = mint_invites(tokens(env), "", campaign.campaign_id, 1, 1)[0]
    client = env.app.test_client()
    seen_hits = []
    for _ in range(2):
        base = client.get(link).location
        assert assignment_of(env, client.get(link).location) == assignment_of(env, base)  # resumed
        for _ in range(2):
            slot, _ = current(client, base)
            rate(client, base, slot, 3)
        with env.sessions() as s:
            seen_hits = list(s.scalars(select(Assignment.hit_id).order_by(Assignment.id)))
    assert len(seen_hits) == 2 == len(set(seen_hits))
    before = snapshot(env)
    refused = client.get(link)
    assert refused.status_code == 409 and "as many of these tasks" in refused.text
    assert snapshot(env) == before
    # The third HIT is still there for somebody else; after that, nothing is left.
    other = env.app.test_client()
    assert arrive_pool(env, other, campaign.campaign_id)
    before = snapshot(env)
    late = mint_invites(tokens(env), "", campaign.campaign_id, 1, 1)[0]
    assert client.get(late).status_code == 409
    assert snapshot(env) == before


def test_production_refuses_to_start_without_a_secret_key(monkeypatch, tmp_path):
    from da_platform.web import create_app

    monkeypatch.delenv("DA_SECRET_KEY", raising=False)
    monkeypatch.setenv("DA_ENV", "production")
    with pytest.raises(RuntimeError, match="DA_SECRET_KEY"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}"})
    monkeypatch.setenv("DA_SECRET_KEY", "from-the-environment")
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}"})
    assert app.config["SECRET_KEY"] == "from-the-environment"
    assert app.test_client().get("/healthz").json == {"status": "ok"}


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_dropped_database_connection_costs_no_rating(env, database_url):
    """Without pre-ping, a server that dropped our connections (a restart) shows on first use: the
    worker pages try once more on a fresh connection; other pages answer 503 and change nothing."""
    campaign = env.campaign(hits=2, slots=3)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    slot, _ = current(client, base)

    outside = create_engine(database_url, poolclass=NullPool)  # not the app's pool

    def drop_connections() -> None:
        with outside.connect() as connection:
            dropped = connection.execute(text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar_one()
        assert dropped >= 1

    drop_connections()
    response = rate(client, base, slot, 33, "rating")
    assert accepted(response) and [r.score for r in ratings(env)] == [33]
    drop_connections()
    assert current(client, base)[1].count("2 / 3") == 1
    before = snapshot(env)
    drop_connections()
    link = mint_invites(tokens(env), "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]
    refused = client.get(urlsplit(link).path)  # the arrival uses the ORM session: no second try
    assert refused.status_code == 503 and "reload the page" in refused.text
    assert snapshot(env) == before
    assert client.get(urlsplit(link).path).status_code == 303
    outside.dispose()


# The own pool's time limit per HIT ------------------------------------------------------------------


@via
def test_a_pool_hit_past_its_time_limit_goes_to_the_next_worker(env, via):
    campaign = env.campaign(hits=1, slots=3)
    alice, bob = env.app.test_client(), env.app.test_client()
    alice_link = mint_invites(tokens(env), "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]
    base = alice.get(urlsplit(alice_link).path).location
    first, _ = current(alice, base)
    assert accepted(rate(alice, base, first, 20, via))
    second, _ = current(alice, base)
    bob_link = mint_invites(tokens(env), "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]
    age_assignments(env, DEFAULT_POOL_TIME_LIMIT_MINUTES - 1)
    assert bob.get(urlsplit(bob_link).path).status_code == 409  # within the limit: Alice keeps the HIT
    age_assignments(env, DEFAULT_POOL_TIME_LIMIT_MINUTES + 1)
    assert bob.get(urlsplit(bob_link).path).status_code == 303  # past it: the HIT goes to Bob
    with env.sessions() as s:
        assert set(s.scalars(select(Assignment.status))) == {AssignmentStatus.in_progress,
                                                             AssignmentStatus.abandoned}
    before = snapshot(env)
    late = rate(alice, base, second, 30, via)
    assert late.status_code == 409
    assert "time for this task ran out" in (late.text if via == "slot" else late.json["error"])
    page = alice.get(base + "slot", follow_redirects=True)
    assert page.status_code == 410 and "Time is up" in page.text and "ratings you gave are kept" in page.text
    assert alice.get(urlsplit(alice_link).path).status_code == 409  # nothing left for her
    assert snapshot(env) == before
    assert [r.score for r in ratings(env)] == [20]  # her rating stays


@via
def test_a_rating_past_the_time_limit_on_a_simulated_clock_is_refused_as_late(database_url, tmp_path, via):
    """A simulation's server runs on its crowd's clock (``create_app(clock=...)``): a rating sent after the HIT's time
    limit by that clock is refused as late, and the slot page says time is up, judged at the same moment as the
    claim. (They used to judge lateness by the real clock: the rating came back "not the current one", which the
    demo's crowd reported as a crash.)"""
    from da_platform.simulation.crowd import SimulatedClock

    clock = SimulatedClock()
    env = make_web_env(database_url, tmp_path, clock=clock)
    client, base = arrive_at_new_hit(env, slots=3)
    token = base.split("/")[2]
    first, _ = current(client, base)
    clock.advance(token, 60_000)
    assert accepted(rate(client, base, first, 20, via))
    second, _ = current(client, base)
    clock.advance(token, (DEFAULT_POOL_TIME_LIMIT_MINUTES + 1) * 60_000)
    before = snapshot(env)
    assert refused_as_late(client, base, second, 30, via)
    assert snapshot(env) == before


@pytest.mark.parametrize("source", ["mturk", "prolific"])
def test_each_provider_keeps_its_own_time_limit(env, source):
    """MTurk's AssignmentDurationInSeconds and Prolific's maximum time, not the own pool's limit."""
    campaign = env.campaign(hits=2, slots=2, provider=source, completion_code="CODE")
    with env.sessions() as s:
        s.execute(update(Campaign).values(settings={"pool_time_limit_minutes": 30, "prolific": {"maximum_minutes": 60},
                                                    "mturk": {"assignment_duration": 3600}}))
        s.commit()
        hit_id = s.scalars(select(Hit.provider_hit_id).order_by(Hit.index)).first()
    client = env.app.test_client()
    if source == "mturk":
        arrival = client.get("/mturk", query_string={"assignmentId": "A1", "hitId": hit_id, "workerId": "W1",
                                                      "turkSubmitTo": FAKE_TURK})
    else:
        path = urlsplit(study_url(tokens(env), "", campaign.campaign_id)).path
        arrival = client.get(path, query_string={"PROLIFIC_PID": "p1", "STUDY_ID": "s1", "SESSION_ID": "e1"})
    assert arrival.status_code == 303
    base = arrival.location
    slot, _ = current(client, base)

    def status() -> AssignmentStatus:
        with env.sessions() as s:
            return s.scalars(select(Assignment.status).where(Assignment.source == source)).one()

    age_assignments(env, 59, source=source)  # past the pool's 30 minutes, within the provider's 60
    arrive_pool(env, env.app.test_client(), campaign.campaign_id)
    assert status() == AssignmentStatus.in_progress
    first = rate(client, base, slot, 50, "rating")
    assert accepted(first)
    age_assignments(env, 61, source=source)  # past the provider's own limit: the place goes back
    late = rate(client, base, first.json["screen"]["slot"], 60, "rating")
    assert late.status_code == 409 and "time for this task ran out" in late.json["error"]
    arrive_pool(env, env.app.test_client(), campaign.campaign_id)
    assert status() == AssignmentStatus.abandoned
    assert client.get(base + "slot", follow_redirects=True).status_code == 410
