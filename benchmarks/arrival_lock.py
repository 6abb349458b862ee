"""Benchmark: how long one arrival holds SQLite's write lock in the worker pages' hand-out.

Usage (from the repository root):  python benchmarks/arrival_lock.py [--hits 1000] [--arrivals 500]

A pool campaign of ``hits`` HITs (made with tests/web_factories.py, 1 slot each: the hand-out does not
read slots) on a SQLite file; ``arrivals`` new workers arrive one after the other through the worker
pages' Core hand-out (``da_platform.sources.arrival.take_assignment_id``; the ORM hand-out it was
compared with in docs/benchmarks.md was removed on 2026-11-23). For each arrival it times
``BEGIN IMMEDIATE`` … ``COMMIT`` (the span in which no other connection can write): from the call
that starts the transaction to the end of the commit, in wall time and in this process's CPU time
(SQLite runs in-process, so the CPU time is the lock's own work, whatever else the machine runs).
Prints p50, p99 and max.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from da_platform.db.engine import make_engine, session_factory, upgrade  # noqa: E402
from da_platform.db.states import WorkerSource  # noqa: E402
from da_platform.providers.arrival import Arrival  # noqa: E402
from da_platform.sources.arrival import take_assignment_id  # noqa: E402
from hit_builder.storage import LocalImageStorage  # noqa: E402
from tests.web_factories import make_campaign  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", type=int, default=1000)
    parser.add_argument("--arrivals", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'arrivals.sqlite'}"
        upgrade(url)
        engine = make_engine(url)
        sessions = session_factory(engine)
        with sessions() as session:
            campaign = make_campaign(session, LocalImageStorage(Path(folder) / "images"), hits=args.hits, slots=1)
        times: dict[str, list[float]] = {"core": []}
        cpu: dict[str, list[float]] = {"core": []}
        for i in range(args.arrivals):
            arrival = Arrival(source=WorkerSource.pool, campaign_id=campaign.campaign_id, worker_external_id=f"p-{i}")
            kind = "core"
            with sessions() as session:
                start, start_cpu = time.perf_counter(), time.process_time()
                take_assignment_id(session.connection(), arrival)
                session.commit()
                times[kind].append(time.perf_counter() - start)
                cpu[kind].append(time.process_time() - start_cpu)
        engine.dispose()
    print(f"{args.arrivals} arrivals on a campaign of {args.hits} HITs (SQLite, write lock per arrival)")
    print("| hand-out | arrivals | p50 ms | p99 ms | max ms | mean ms | CPU p50 ms | CPU p99 ms | CPU mean ms |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for kind, values in times.items():
        ms, cpu_ms = [v * 1000 for v in values], [v * 1000 for v in cpu[kind]]
        print(f"| {kind} | {len(ms)} | {statistics.median(ms):.2f} | {percentile(ms, 0.99):.2f} | {max(ms):.2f} "
              f"| {statistics.mean(ms):.2f} | {statistics.median(cpu_ms):.2f} | {percentile(cpu_ms, 0.99):.2f} "
              f"| {statistics.mean(cpu_ms):.2f} |")


if __name__ == "__main__":
    main()
