"""What "acknowledged = durable" costs on SQLite: rating throughput with each ``DA_SQLITE_COMMIT`` mode
(da_platform/db/sqlite_commit.py) — ``group`` (the default: each commit waits for a sync of the log that may
cover several commits), ``full`` (SQLite's ``synchronous=FULL``: one fsync inside every commit, under the
write lock) and ``normal`` (no wait: not durable) — with this disk's fsync latency beside them.

1. ``fsync``: in the folder the databases live in, ``--fsyncs`` times: append 4 KiB to a file and
   ``os.fdatasync`` it (about what a commit costs SQLite with FULL: its frames, then the sync). FULL
   commits one after the other, so 1 / (mean fsync time) bounds its commits per second.
2. ``commits``: the database alone, for each mode: 3 processes × 4 threads (as gunicorn's) commit a
   one-row INSERT and an UPDATE through the platform's engine (``make_engine``) back to back for
   ``--commit-seconds``: commits per second, and for ``group`` how many fsyncs served them.
3. ``--rounds`` times, each mode once per round in a rotating order: a fresh copy of one built sample
   campaign, gunicorn (gthread 3 × 4, as ``serve_load.py``) started with that ``DA_SQLITE_COMMIT``, then

   - ``saturate``: ``--clients`` pool workers rate back to back (no think time, no images), HIT after
     HIT, for ``--seconds``: the most ratings per second the server takes;
   - ``need``: ``--crowd`` workers with ``--think`` s ± 50 % between ratings for ``--need-seconds``:
     a crowd's pace (1,000 workers on 10 s items rate about 100 items per second), and how long a
     rating then waits;

   and a check that every rating the clients saw accepted is stored exactly once.

    PYTHONPATH=. python benchmarks/durability.py                   # 2 rounds × 3 modes; about 6 minutes
    PYTHONPATH=. python benchmarks/durability.py --rounds 1 --seconds 5 --need-seconds 10   # quick
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.*, da_platform
from benchmarks.serve_load import (  # noqa: E402  (the same server set-up, clients and check)
    INVITES_PER_CLIENT,
    RATE,
    SECRET,
    build,
    free_port,
    percentile,
    run_phase,
    start_gunicorn,
    stop,
    verify,
)

MODES = ("group", "full", "normal")


def fsync_latency(folder: Path, count: int) -> list[float]:
    """Seconds per ``fdatasync`` of 4 KiB appended to a file in ``folder``."""
    handle, path = tempfile.mkstemp(dir=folder, suffix=".fsync")
    times = []
    try:
        for _ in range(count):
            os.write(handle, b"\0" * 4096)
            started = time.perf_counter()
            os.fdatasync(handle)
            times.append(time.perf_counter() - started)
    finally:
        os.close(handle)
        os.remove(path)
    return times


def commit_worker(job: tuple[str, str, int, float]) -> tuple[int, int]:
    """One process of the ``commits`` phase: its commits and (``group``) the fsyncs that served them."""
    import threading

    from sqlalchemy import text

    from da_platform.db.engine import make_engine
    from da_platform.db.sqlite_commit import SqliteCommit, WalSync

    url, mode, threads, deadline = job
    engine = make_engine(url, sqlite_commit=SqliteCommit(mode))
    counts = [0] * threads

    def run(index: int) -> None:
        with engine.connect() as connection:
            while time.time() < deadline:
                connection.execute(text("INSERT INTO probe (v) VALUES (:v)"), {"v": "x" * 200})
                connection.execute(text("UPDATE tally SET n = n + 1"))
                connection.commit()
                counts[index] += 1

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    engine.dispose()
    path = url.removeprefix("sqlite:///") + "-wal"
    return sum(counts), WalSync.of(os.path.abspath(path)).syncs


def commits_per_second(folder: Path, mode: str, seconds: float) -> tuple[float, int]:
    """The ``commits`` phase for one mode on a fresh database: commits/s and fsyncs made by group commit."""
    import multiprocessing

    path = folder / f"commits-{mode}.sqlite"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE probe (id INTEGER PRIMARY KEY, v TEXT)")
        setup.execute("CREATE TABLE tally (n INTEGER)")
        setup.execute("INSERT INTO tally VALUES (0)")
    start = time.time() + 1.0
    jobs = [(f"sqlite:///{path}", mode, 4, start + seconds)] * 3
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        results = pool.map(commit_worker, jobs)
    return sum(n for n, _ in results) / (time.time() - start), sum(s for _, s in results)


def copy_database(source: Path, target: Path) -> str:
    """A consistent copy of the built database (SQLite's backup API); its URL."""
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
    return f"sqlite:///{target}"


def rating_stats(result: dict) -> tuple[float, float, float]:
    """Ratings per second, and the p50 / p99 of the rating request (ms)."""
    times = [seconds * 1000 for kind, seconds, _ in result["samples"] if kind == RATE] or [float("nan")]
    return len(result["accepted"]) / result["elapsed"], statistics.median(times), percentile(times, 0.99)


def one_run(mode: str, built: Path, images: Path, folder: Path, campaign_id: int, run: int,
            args: argparse.Namespace) -> dict:
    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.providers.tokens import Tokens

    url = copy_database(built, folder / f"run-{run}-{mode}.sqlite")
    port = free_port()
    load_before = os.getloadavg()[0]
    process = start_gunicorn(url, images, port, 3, 4, settings={"DA_SQLITE_COMMIT": mode})
    try:
        invites = mint_invites(Tokens(SECRET), f"http://127.0.0.1:{port}", campaign_id,
                               args.clients * INVITES_PER_CLIENT + args.crowd * 2, 1)
        saturate = run_phase("rate", port, args.clients, 2, args.seconds,
                             [invites[i::args.clients][:INVITES_PER_CLIENT] for i in range(args.clients)])
        rest = invites[args.clients * INVITES_PER_CLIENT:]
        need = run_phase("rate", port, args.crowd, 2, args.need_seconds,
                         [rest[2 * i:2 * i + 2] for i in range(args.crowd)], think=args.think)
    finally:
        stop(process)
    check = verify(url, campaign_id, saturate["accepted"] + need["accepted"])
    errors = saturate["errors"] + need["errors"]
    return {"mode": mode, "run": run, "saturate": rating_stats(saturate), "need": rating_stats(need),
            "check": check, "errors": errors, "load": (load_before, os.getloadavg()[0])}


def main() -> None:
    from da_platform.db.engine import upgrade

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every mode, in a rotating order")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the saturate phase")
    parser.add_argument("--clients", type=int, default=16, help="back-to-back clients (saturate)")
    parser.add_argument("--crowd", type=int, default=300, help="workers at a crowd's pace (need)")
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds between a worker's ratings (need)")
    parser.add_argument("--need-seconds", type=float, default=20.0, help="length of the need phase")
    parser.add_argument("--fsyncs", type=int, default=500, help="fdatasync calls timed")
    parser.add_argument("--commit-seconds", type=float, default=8.0, help="length of the commits phase, per mode")
    parser.add_argument("--folder", type=Path, default=None,
                        help="where the databases live (default: a new temporary folder; it must be on the disk "
                             "to measure, not tmpfs)")
    args = parser.parse_args()
    print(f"command: PYTHONPATH=. python benchmarks/durability.py {' '.join(sys.argv[1:])}".rstrip())
    folder = Path(tempfile.mkdtemp(prefix="da-durability-", dir=args.folder))
    try:
        syncs = sorted(t * 1000 for t in fsync_latency(folder, args.fsyncs))
        mean = statistics.fmean(syncs)
        print(f"\nfsync (fdatasync of 4 KiB appended) in {folder.parent}, {len(syncs)} times: p50 "
              f"{statistics.median(syncs):.2f} ms, p90 {percentile(syncs, 0.9):.2f} ms, "
              f"p99 {percentile(syncs, 0.99):.2f} ms, "
              f"mean {mean:.2f} ms -> at most {1000 / mean:.0f} commits/s one after the other\n", flush=True)
        print("| DA_SQLITE_COMMIT | commits/s (database alone, 3 processes × 4 threads) | fsyncs | load avg |")
        print("|---|---|---|---|")
        for mode in MODES:
            rate, served = commits_per_second(folder, mode, args.commit_seconds)
            fsyncs = served if mode == "group" else "(inside SQLite)" if mode == "full" else 0
            print(f"| {mode} | {rate:.0f} | {fsyncs} "
                  f"| {os.getloadavg()[0]:.1f} |", flush=True)
        print()
        if args.rounds < 1:
            return
        images = folder / "images"
        built = folder / "built.sqlite"
        places = args.clients * INVITES_PER_CLIENT + args.crowd * 2
        upgrade(f"sqlite:///{built}")
        campaign_id = build(f"sqlite:///{built}", images, places)
        order = [MODES[r % len(MODES):] + MODES[:r % len(MODES)] for r in range(args.rounds)]
        rows = []
        print("| run | DA_SQLITE_COMMIT | saturate: ratings/s | p50 ms | p99 ms | need: ratings/s | p50 ms "
              "| p99 ms | load avg before/after | check |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for run, mode in enumerate([mode for modes in order for mode in modes], start=1):
            row = one_run(mode, built, images, folder, campaign_id, run, args)
            rows.append(row)
            (s_rate, s_p50, s_p99), (n_rate, n_p50, n_p99) = row["saturate"], row["need"]
            print(f"| {run} | {mode} | {s_rate:.0f} | {s_p50:.1f} | {s_p99:.1f} | {n_rate:.0f} | {n_p50:.1f} | "
                  f"{n_p99:.1f} | {row['load'][0]:.1f} / {row['load'][1]:.1f} | {row['check']}; client errors: "
                  f"{len(row['errors'])}{' ' + row['errors'][0] if row['errors'] else ''} |", flush=True)
        print()
        for r in range(args.rounds):
            by_mode = {row["mode"]: row for row in rows[len(MODES) * r:len(MODES) * (r + 1)]}
            normal = by_mode["normal"]
            print(f"- round {r + 1}, saturate ÷ normal: " + ", ".join(
                f"{mode} {by_mode[mode]['saturate'][0] / normal['saturate'][0]:.2f}" for mode in MODES[:-1])
                + "; need (ratings/s, p99 ms): " + ", ".join(
                f"{mode} {by_mode[mode]['need'][0]:.0f} / {by_mode[mode]['need'][2]:.0f}" for mode in MODES))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
