"""Two app servers, one PostgreSQL, images in the database: a crowd alternating between the servers,
one server killed mid-run. Nothing is lost or stored twice, and every worker resumes on the right item.

Each server is a real gunicorn (gthread) with its own, empty instance folder; they share only the
database and the secret key, as behind a load balancer. Each worker's requests alternate between
the two; once server B is killed (its whole process group, SIGKILL) a request that got no answer, or an
answer cut off mid-body by the kill, is sent again to server A, as a load balancer's retry would (or the
worker pressing Next again: the page says the rating could not be sent). A rating B stored whose answer was
cut off is such a resend's repeat: A acknowledges it, once.
"""
from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from PIL import Image
from sqlalchemy import func, select

from da_platform.db.engine import make_engine, session_factory
from da_platform.db.models import Assignment, AssignmentStatus, Rating, Slot
from da_platform.images.database import DatabaseImageStorage
from da_platform.providers.pool.arrival import mint_invites
from da_platform.providers.tokens import Tokens
from tests.web_factories import make_campaign

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
SECRET = "multi-server-test-secret"
WORKERS, SLOTS, KILL_AFTER = 6, 20, 45  # B is killed once this many ratings were acknowledged


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(url: str, instance: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "DA_DATABASE_URL": url, "DA_SECRET_KEY": SECRET, "DA_ENV": "production",
           "DA_IMAGE_STORE": "database", "DA_INSTANCE_PATH": str(instance), "DA_PUBLIC_URL": f"http://127.0.0.1:{port}",
           "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "2", "--threads", "4", "--worker-class", "gthread",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "da_platform.web:create_app()"],
        env=env, cwd=instance, start_new_session=True)
    deadline = time.monotonic() + 180  # a generous bound for a loaded machine, not a measurement
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200:
                return process
        except requests.RequestException:
            time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    raise RuntimeError("gunicorn did not start")


class Crowd:
    """Shared state: which servers are up, how many ratings were acknowledged."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.down: set[int] = set()
        self.acknowledged = 0
        self.lock = threading.Lock()
        self.killed = threading.Event()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_two_servers_one_killed_mid_run(database_url: str, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        campaign = make_campaign(session, DatabaseImageStorage(database_url), hits=WORKERS, slots=SLOTS)
        order = {hit_id: [public_id for (public_id,) in session.execute(
            select(Slot.public_id).where(Slot.hit_id == hit_id).order_by(Slot.position))]
            for hit_id in campaign.hit_ids}
    ports = [free_port(), free_port()]
    servers = []
    for name, port in zip("ab", ports):
        (tmp_path / name).mkdir()
        servers.append(start_server(database_url, tmp_path / name, port))
    crowd = Crowd(ports)
    links = [re.sub(r"^https?://[^/]+", "", link)
             for link in mint_invites(Tokens(SECRET), "http://x", campaign.campaign_id, WORKERS, 1)]
    results: dict[int, dict] = {}
    errors: list[BaseException] = []

    def request(n: int, method: str, path: str, **kwargs) -> requests.Response:
        """Server n % 2 unless it is down; a request that gets no answer, or an answer cut short, goes to the
        other one."""
        for attempt in range(2):
            port = crowd.ports[(n + attempt) % 2]
            if port in crowd.down:
                continue
            try:
                return requests.request(method, f"http://127.0.0.1:{port}{path}", timeout=60,
                                        allow_redirects=False, **kwargs)
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                if crowd.killed.is_set():
                    crowd.down.add(port)
                    continue
                raise
        raise AssertionError(f"no server answered {method} {path}")

    def worker(index: int) -> None:
        try:
            n = index
            arrival = request(n, "GET", links[index])
            assert arrival.status_code == 303, arrival.text
            base = urlsplit(arrival.headers["Location"]).path
            page = request(n := n + 1, "GET", base + "slot")
            slot = re.search(r'name="slot" value="([^"]+)"', page.text).group(1)
            acked: list[tuple[str, int]] = []
            resumed = None
            while True:
                if resumed is None and crowd.killed.is_set():
                    # The first step after the kill: the slot page must show exactly the item after
                    # the last acknowledged rating, whichever server answers.
                    page = request(n := n + 1, "GET", base + "slot")
                    resumed = re.search(r'name="slot" value="([^"]+)"', page.text).group(1)
                    assert resumed == slot, (index, len(acked))
                for role in ("candidate", "reference"):
                    image = request(n := n + 1, "GET", f"{base}image/{slot}/{role}")
                    assert image.status_code == 200 and Image.open(io.BytesIO(image.content)).format == "PNG"
                score = (index * 37 + len(acked) * 11) % 101
                answer = request(n := n + 1, "POST", base + "rating", data={"slot": slot, "score": str(score)})
                assert answer.status_code == 200, answer.text
                acked.append((slot, score))
                with crowd.lock:
                    crowd.acknowledged += 1
                    if crowd.acknowledged == KILL_AFTER:
                        crowd.killed.set()  # before the kill: from now on, no answer means B is gone
                        os.killpg(servers[1].pid, signal.SIGKILL)
                        servers[1].wait()
                if "done" in answer.json():
                    break
                slot = answer.json()["screen"]["slot"]
            results[index] = {"acked": acked, "resumed": resumed, "finished_before_kill": not crowd.killed.is_set()}
        except BaseException as error:  # noqa: BLE001 - re-raised in the test thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=600)
        assert not errors, errors
        assert all(not thread.is_alive() for thread in threads)
        assert crowd.killed.is_set() and servers[1].poll() is not None
    finally:
        for process in servers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    with sessions() as session:
        stored = session.execute(select(Assignment.public_id, Assignment.hit_id, Assignment.status, Slot.public_id,
                                        Rating.score)
                                 .join(Rating, Rating.assignment_id == Assignment.id)
                                 .join(Slot, Slot.id == Rating.slot_id).order_by(Assignment.id, Slot.position)).all()
        assignments = session.scalar(select(func.count(Assignment.id)))
    engine.dispose()
    assert assignments == WORKERS
    by_hit: dict[int, list[tuple[str, int]]] = {}
    for row in stored:
        assert row.status == AssignmentStatus.completed
        by_hit.setdefault(row.hit_id, []).append((row[3], row.score))
    assert len(stored) == WORKERS * SLOTS  # 0 lost, 0 duplicated
    acknowledged = sorted(result["acked"] for result in results.values())
    assert acknowledged == sorted(by_hit.values())  # every acknowledged rating stored, with its score
    for hit_id, rows in by_hit.items():
        assert [slot for slot, _ in rows] == order[hit_id]  # in order, each slot once
    assert all(result["resumed"] or result["finished_before_kill"] for result in results.values())
    assert any(result["resumed"] for result in results.values())
