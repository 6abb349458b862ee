"""The simulated crowd under load and at the time limit, against the real app on both databases: a rating sent
again after a lost answer is recognised, a HIT whose time ran out is left without an error (the demo's crash)."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from sqlalchemy import func, select

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Campaign, Rating, Slot
from da_platform.providers.pool.arrival import mint_invites
from da_platform.simulation.adversaries import OracleAgent
from da_platform.simulation.crowd import SimulatedClock, SimulatedWorker, SlotOracle, arrive, run_crowd, send_rating
from da_platform.simulation.profiles import WorkerProfile
from tests.fakes.server import serve_wsgi
from tests.web_factories import make_web_env


class _SlowFirstAnswer(BaseHTTPRequestHandler):
    """Answers the first POST after 1 s (a client waiting less gives up), later ones at once."""

    bodies: list[bytes] = []
    lock = threading.Lock()

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.lock:
            self.bodies.append(body)
            first = len(self.bodies) == 1
        if first:
            time.sleep(1.0)
        payload = b'{"screen": {"slot": "next"}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def slow_first_answer() -> Iterator[str]:
    _SlowFirstAnswer.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowFirstAnswer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/a/t/rating"
    finally:
        server.shutdown()
        server.server_close()


def test_a_rating_without_an_answer_in_time_is_sent_again(slow_first_answer: str) -> None:
    with requests.Session() as http:
        answer = send_rating(http, slow_first_answer, {"slot": "s1", "score": "40"}, timeout=0.3)
    assert answer.status_code == 200 and answer.json() == {"screen": {"slot": "next"}}
    assert _SlowFirstAnswer.bodies == [b"slot=s1&score=40"] * 2  # the very same rating, twice


@pytest.fixture
def served(database_url, tmp_path):
    """The app on a fresh database (both engines), served on 127.0.0.1, on a simulated clock."""
    clock = SimulatedClock()
    env = make_web_env(database_url, tmp_path, clock=clock)
    with serve_wsgi(env.app) as url:
        env.url = url
        yield env, clock


def invite(env, campaign_id: int) -> str:
    return mint_invites(env.app.extensions["da_platform"].tokens, env.url, campaign_id, 1, 1)[0]


def test_a_rating_sent_again_after_its_answer_was_lost_gets_the_next_item(served) -> None:
    """The first sending reached the server and was stored, but its answer never came back; the crowd sends it
    again, and the server recognises it: success, with the item after it, and one rating stored."""
    env, _ = served
    campaign = env.campaign(slots=3)
    with requests.Session() as http:
        slot_url = arrive(http, invite(env, campaign.campaign_id))
        page = http.get(slot_url, timeout=10)
        rating_url = slot_url.rsplit("/", 1)[0] + "/rating"
        with env.sessions() as s:
            first, second = s.scalars(select(Slot.public_id).where(Slot.hit_id == campaign.hit_ids[0])
                                      .order_by(Slot.position).limit(2)).all()
        assert f'value="{first}"' in page.text
        http.post(rating_url, data={"slot": first, "score": "40"}, timeout=10)  # its answer is "lost"
        again = send_rating(http, rating_url, {"slot": first, "score": "40"})
    assert again.status_code == 200 and again.json()["screen"]["slot"] == second
    with env.sessions() as s:
        assert s.scalars(select(Rating.score)).all() == [40]


def test_a_worker_whose_hit_runs_out_of_time_leaves_it_without_an_error(served) -> None:
    """On the crowd's clock the HIT's time limit passes after two items: the third rating is refused as late,
    the worker leaves the HIT keeping its two ratings, and the crowd finishes (it used to raise "HTTP 409 ...
    that item is not the current one", which the hardened demo printed as a traceback)."""
    env, clock = served
    campaign = env.campaign(slots=10)
    with env.sessions() as s:
        row = s.get(Campaign, campaign.campaign_id)
        CampaignSettings.update(row, pool_time_limit_minutes=1)
        slots = s.scalars(select(Slot.public_id)).all()
        s.commit()
    worker = SimulatedWorker("slow", WorkerProfile(), invite(env, campaign.campaign_id), max_hits=1,
                             rater=OracleAgent(seconds=20.0))  # 20 s (+ 0.15 s of network) per item
    [outcome] = run_crowd([worker], SlotOracle(dict.fromkeys(slots, 60.0)), seed=1, clock=clock)
    assert (outcome.hits, outcome.ratings) == (1, 2)
    with env.sessions() as s:
        assert s.scalar(select(func.count(Rating.id))) == 2
