"""The simulated crowd: workers arrive in the order given, whatever the threads do."""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from da_platform.simulation.crowd import SimulatedWorker, SlotOracle, run_crowd
from da_platform.simulation.profiles import WorkerProfile


class _FullCampaign(BaseHTTPRequestHandler):
    """An invite endpoint with nothing left to hand out, answering after a random delay."""

    arrivals: list[str] = []
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        with self.lock:
            self.arrivals.append(self.path.rsplit("/", 1)[-1])
        time.sleep(random.uniform(0, 0.02))  # answer order scrambled unless the client waits its turn
        self.send_response(409)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def full_campaign() -> Iterator[str]:
    _FullCampaign.arrivals = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FullCampaign)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/invite"
    finally:
        server.shutdown()
        server.server_close()


def test_workers_arrive_in_the_order_given(full_campaign: str) -> None:
    names = [f"w{i:02d}" for i in range(24)]
    workers = [SimulatedWorker(name, WorkerProfile(), f"{full_campaign}/{name}", max_hits=3) for name in names]
    outcomes = run_crowd(workers, SlotOracle({}), seed=1, threads=8)
    assert _FullCampaign.arrivals == names
    assert [(o.name, o.hits, o.ratings) for o in outcomes] == [(name, 0, 0) for name in names]


def test_a_worker_that_fails_does_not_hold_up_the_rest(full_campaign: str) -> None:
    """The second worker's link goes nowhere; the others still arrive, in order, and the error surfaces."""
    names = ["w00", "w01", "w02", "w03"]
    workers = [SimulatedWorker(name, WorkerProfile(), f"{full_campaign}/{name}", max_hits=1) for name in names]
    workers[1] = SimulatedWorker("w01", WorkerProfile(), "http://127.0.0.1:9/unreachable", max_hits=1)
    with pytest.raises(Exception, match="127.0.0.1"):
        run_crowd(workers, SlotOracle({}), seed=1, threads=2)
    assert _FullCampaign.arrivals == ["w00", "w02", "w03"]
