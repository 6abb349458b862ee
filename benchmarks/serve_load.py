"""Load test of the worker pages under gunicorn, on SQLite and on PostgreSQL (loopback only).

For each database: build a campaign from the bundled sample data, start gunicorn, then

1. ``healthz``: C clients call the trivial endpoint ``/healthz`` back to back (the baseline);
2. ``saturate``: C pool workers rate back to back as the page's script does (POST a rating, get the
   next item as JSON), no images, no pause, HIT after HIT (a new invite each: arrivals included);
3. ``crowd``: N workers (default 200) arrive over a ramp (default 30 s) and each rates one whole HIT
   (100 slots) like a browser would — the slot page once, then per item its two images, a pause
   (think time, default 3 s ± 50 %, several times faster than real DA workers), and the POST.

Reports requests/s, ratings/s, p50/p99 latency per request kind, the ratio of the rating path's
throughput (rating POSTs per second, one per rating) to the trivial endpoint's, and checks in the
database that every rating the clients saw accepted is stored exactly once (zero lost, zero
duplicated). Targets: p99 ≤ 50 ms with 200 concurrent workers on PostgreSQL, and rating-path
throughput ≥ half the trivial endpoint's.

    python benchmarks/serve_load.py                       # both databases, defaults below
    python benchmarks/serve_load.py --databases postgres --workers 200 --think 1.0
    python benchmarks/serve_load.py --workers 0           # healthz and saturate only (quick)

PostgreSQL: a throw-away database is created on the server at --postgres-url (default
$DA_TEST_POSTGRES_URL, else postgresql+psycopg://postgres@127.0.0.1:54330/postgres) and dropped after.
"""
from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import math
import multiprocessing
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
SECRET = "benchmark-secret-key"
SLOT_RE = re.compile(r'name="slot" value="([^"]+)"')
IMAGE_RE = re.compile(r'<img id="answer-[ab]" src="([^"]+)"')
RATE = "rate (POST, JSON)"
INVITES_PER_CLIENT = 40  # saturate: each back-to-back client takes HIT after HIT


# Set-up -------------------------------------------------------------------------------------------------


def prepare_database(kind: str, postgres_url: str, folder: Path) -> tuple[str, Callable[[], None]]:
    """A fresh, migrated database URL and a function that removes it."""
    from da_platform.db.engine import upgrade

    if kind == "sqlite":
        url = f"sqlite:///{folder / 'load.sqlite'}"
        upgrade(url)
        return url, lambda: None
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"da_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    upgrade(url)

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def build(url: str, images: Path, places: int) -> int:
    """Sample campaign, opened, with enough places for ``places`` workers; returns the campaign id."""
    from sqlalchemy import update

    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.db.engine import make_engine, session_factory, transaction
    from da_platform.db.models import CampaignStatus, Hit
    from da_platform.simulation.sample import import_sample
    from hit_builder.storage import LocalImageStorage

    engine = make_engine(url)
    with transaction(session_factory(engine)) as session:
        campaign = build_campaign(session, BuildSpec(name="load", test_set=import_sample(session), seed=1),
                                  storage=LocalImageStorage(images))
        campaign.status = CampaignStatus.running
        per_hit = math.ceil(places / len(campaign.hits))
        session.execute(update(Hit).where(Hit.campaign_id == campaign.id).values(max_assignments=per_hit))
        campaign_id = campaign.id
    engine.dispose()
    return campaign_id


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(url: str, images: Path, port: int, workers: int, threads: int,
                   access_log: Path | None = None, settings: dict[str, str] | None = None) -> subprocess.Popen:
    """The platform under gunicorn, configured from the environment as in production (``settings``: more
    variables); with ``access_log``, gunicorn logs each request's method, path, status and its time inside
    the server (µs)."""
    env = {**os.environ, "DA_DATABASE_URL": url, "DA_SECRET_KEY": SECRET, "DA_IMAGE_FOLDER": str(images),
           "DA_ENV": "production", "DA_PUBLIC_URL": f"http://127.0.0.1:{port}", **(settings or {})}
    extra = ["--access-logfile", str(access_log), "--access-logformat", "%(m)s %(U)s %(s)s %(D)s"] if access_log else []
    # Started in the folder holding the da_platform this process imported (PYTHONPATH's, if it names another
    # checkout): `python -m gunicorn` puts its working folder first on the path, so the server runs the very
    # code that built the database. Each worker loads the app (seconds of CPU on a busy machine): a wide bound.
    spec = importlib.util.find_spec("da_platform")
    if spec is None or spec.origin is None:
        raise RuntimeError("da_platform is not importable: run from the repository root with PYTHONPATH=.")
    code = Path(spec.origin).parents[1]
    return launch_gunicorn("da_platform.web:create_app()", port, workers, threads, env, code, extra, startup=180)


# A gunicorn configuration file whose hook notes each worker process once it has loaded the app (a file named
# by its pid in $DA_BENCH_READY): the measurements start when every worker is serving, not while some are
# still importing the app (seconds of CPU each on a busy machine), which would be counted as the server's.
READY_HOOK = """import os


def post_worker_init(worker):
    open(os.path.join(os.environ["DA_BENCH_READY"], str(worker.pid)), "w").close()
"""


def launch_gunicorn(app: str, port: int, workers: int, threads: int, env: dict, cwd: Path,
                    extra: list[str] | None = None, python: str = sys.executable,
                    health: str = "/healthz", startup: float = 30) -> subprocess.Popen:
    """gunicorn (gthread, run by ``python``) serving ``app`` on 127.0.0.1:``port``, once ``health`` answers and
    each of its ``workers`` has loaded the app."""
    ready = Path(tempfile.mkdtemp(prefix="da-gunicorn-ready-"))
    (ready / "hooks.py").write_text(READY_HOOK)
    process = subprocess.Popen(
        [python, "-m", "gunicorn", "--workers", str(workers), "--threads", str(threads),
         "--worker-class", "gthread", "--bind", f"127.0.0.1:{port}", "--backlog", "2048",
         "--log-level", "warning", "--config", str(ready / "hooks.py"), *(extra or []), app],
        env={**env, "DA_BENCH_READY": str(ready)}, cwd=cwd, start_new_session=True,
    )
    try:
        return wait_until_up(process, port, health, startup, ready=(ready, workers))
    finally:
        shutil.rmtree(ready, ignore_errors=True)


def wait_until_up(process: subprocess.Popen, port: int, health: str = "/healthz",
                  seconds: float = 30, ready: tuple[Path, int] | None = None) -> subprocess.Popen:
    """``process`` once GET ``health`` on 127.0.0.1:``port`` answers 200 (and, with ``ready``, once that folder
    holds a file per worker: :data:`READY_HOOK`); stopped and an error after ``seconds``."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", health)
            if connection.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.2)
    while time.time() < deadline:
        if ready is None or len([f for f in ready[0].iterdir() if f.name.isdigit()]) >= ready[1]:
            return process
        time.sleep(0.1)
    stop(process)
    raise RuntimeError(f"the server on port {port} did not start")


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


# Clients --------------------------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP connection that times every request."""

    def __init__(self, port: int, samples: list) -> None:
        self.port, self.samples = port, samples
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, kind: str, method: str, path: str, body: str | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, str, str]:
        headers = {**({"Content-Type": "application/x-www-form-urlencoded"} if body else {}), **(headers or {})}
        for attempt in (0, 1):
            try:
                started = time.perf_counter()
                self.connection.request(method, path, body=body, headers=headers)
                response = response_ = self.connection.getresponse()
                data = response_.read()
                self.samples.append((kind, time.perf_counter() - started, response.status))
                return response.status, response.getheader("Location", ""), data.decode("utf-8", "replace")
            except (http.client.HTTPException, ConnectionError):
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")


def path_of(location: str) -> str:
    return urlsplit(location).path or location


def first_group(pattern: re.Pattern[str] | str, page: str) -> str:
    """The first group of ``pattern``'s first match in ``page`` (a page without it is an error)."""
    found = re.search(pattern, page)
    if found is None:
        raise RuntimeError(f"not in the page: {pattern if isinstance(pattern, str) else pattern.pattern}")
    return found.group(1)


def rate_until(port: int, invites: list[str], deadline: float, think: float, images: bool, whole_hit: bool,
               seed: int, samples: list, accepted: list, delay: float = 0.0) -> None:
    """One simulated worker, as the page's script does it: arrive (after ``delay`` s), load the slot
    page once, then per item [GET its two images, think,] POST the rating, whose JSON answer is the
    next item. ``whole_hit``: one HIT to its end; else HIT after HIT (a new invite each) until the
    deadline."""
    rng = random.Random(seed)
    time.sleep(delay)
    client = Client(port, samples)
    for invite in invites:
        if not whole_hit and time.time() >= deadline:
            return
        status, location, _ = client.request("arrive", "GET", path_of(invite))
        if status != 303:
            raise RuntimeError(f"arrival refused: {status}")
        base = path_of(location)
        client.request("instructions", "GET", base)
        _, _, page = client.request("slot page", "GET", base + "slot")
        slot = first_group(SLOT_RE, page)
        sources = IMAGE_RE.findall(page)
        while whole_hit or time.time() < deadline:
            if images:
                for src in sources:
                    client.request("image", "GET", src)
            if think:
                time.sleep(rng.uniform(0.5 * think, 1.5 * think))
            score = rng.randint(0, 100)
            status, _, body = client.request(RATE, "POST", base + "rating", f"slot={slot}&score={score}")
            if status != 200:
                raise RuntimeError(f"rating refused: {status}")
            accepted.append((slot, score))
            answer = json.loads(body)
            if "done" in answer:
                break
            slot = answer["screen"]["slot"]
            sources = [src for src in (answer["screen"]["reference_image"], answer["screen"]["candidate_image"]) if src]
        if whole_hit:
            return
    raise RuntimeError("saturate: more invites needed (raise INVITES_PER_CLIENT)")


def hammer_healthz(port: int, deadline: float, samples: list) -> None:
    client = Client(port, samples)
    while time.time() < deadline:
        client.request("healthz", "GET", "/healthz")


def client_process(job: dict) -> dict:
    """Run ``job["threads"]`` simulated clients in threads; return their samples and accepted ratings."""
    samples: list = []
    accepted: list = []
    errors: list = []
    start = job["start_at"]
    time.sleep(max(0.0, start - time.time()))

    def run(index: int) -> None:
        try:
            if job["kind"] == "healthz":
                hammer_healthz(job["port"], job["deadline"], samples)
            else:
                rate_until(job["port"], job["invites"][index], job["deadline"], job["think"], job["images"],
                           job["whole_hit"], job["seed"] + index, samples, accepted,
                           delay=random.Random(job["seed"] + index).uniform(0, job["ramp"]))
        except Exception as error:  # reported, never hidden
            errors.append(repr(error))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(job["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"samples": samples, "accepted": accepted, "errors": errors}


def cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system) used so far by gunicorn's processes and by PostgreSQL's (Linux /proc)."""
    totals = {"server": 0.0, "database": 0.0}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        kind = "server" if b"gunicorn" in command else "database" if b"postgres" in command else None
        if kind is not None:
            totals[kind] += (int(fields[11]) + int(fields[12])) / tick
    return totals


def run_phase(kind: str, port: int, clients: int, processes: int, seconds: float, invites: list[list[str]] | None,
              think: float = 0.0, images: bool = False, whole_hit: bool = False, ramp: float = 0.0) -> dict:
    start_at = time.time() + 1.0
    deadline = start_at + seconds
    jobs, offset = [], 0
    for p in range(processes):
        count = clients // processes + (1 if p < clients % processes else 0)
        jobs.append({"kind": kind, "port": port, "threads": count, "deadline": deadline, "start_at": start_at,
                     "think": think, "images": images, "whole_hit": whole_hit, "seed": 1000 * p, "ramp": ramp,
                     "invites": (invites or [])[offset:offset + count]})
        offset += count
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        cpu_before = cpu_seconds()
        results = pool.map(client_process, jobs)
        cpu = {key: used - cpu_before[key] for key, used in cpu_seconds().items()}
    elapsed = time.time() - start_at
    merged = {"samples": [], "accepted": [], "errors": [], "elapsed": elapsed, "cpu": cpu}
    for result in results:
        for key in ("samples", "accepted", "errors"):
            merged[key] += result[key]
    return merged


# Reporting ------------------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def latency_rows(phase: str, result: dict) -> list[str]:
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, seconds, _status in result["samples"]:
        by_kind[kind].append(seconds * 1000)
    rows = []
    everything = [s * 1000 for _, s, _ in result["samples"]]
    for kind, values in [*sorted(by_kind.items()), ("all requests", everything)]:
        rows.append(f"| {phase} | {kind} | {len(values)} | {len(values) / result['elapsed']:.0f} | "
                    f"{statistics.median(values):.1f} | {percentile(values, 0.99):.1f} | {max(values):.1f} |")
    return rows


def verify(url: str, campaign_id: int, accepted: list[tuple[str, int]]) -> str:
    """Every accepted rating stored exactly once, nothing else stored."""
    from sqlalchemy import func, select

    from da_platform.db.engine import make_engine
    from da_platform.db.models import Rating, Slot

    engine = make_engine(url)
    with engine.connect() as connection:
        stored = Counter((public_id, score) for public_id, score in connection.execute(
            select(Slot.public_id, Rating.score).join(Slot, Slot.id == Rating.slot_id)))
        duplicates = connection.execute(
            select(func.count()).select_from(
                select(Rating.assignment_id, Rating.slot_id).group_by(Rating.assignment_id, Rating.slot_id)
                .having(func.count() > 1).subquery()
            )
        ).scalar_one()
    engine.dispose()
    sent = Counter(accepted)
    lost = sum((sent - stored).values())
    extra = sum((stored - sent).values())
    return (f"{sum(stored.values())} ratings stored, {len(accepted)} accepted: "
            f"{lost} lost, {extra} unexpected, {duplicates} duplicated")


def server_times(log: Path, offset: int, client_ms: list[float]) -> str:
    """The crowd phase's requests as gunicorn timed them (from parsing the request to sending the
    answer: no accept queue, no client), against the clients' own times."""
    with log.open("rb") as handle:
        handle.seek(offset)
        server_ms = [int(line.split()[-1]) / 1000 for line in handle.read().decode().splitlines() if line.strip()]
    slow = sum(1 for ms in server_ms if ms > 100)
    return (f"- crowd, inside gunicorn (access log, {len(server_ms)} requests): "
            f"p50 {statistics.median(server_ms):.1f} ms, "
            f"p99 {percentile(server_ms, 0.99):.1f} ms, max {max(server_ms):.1f} ms, {slow} over 100 ms "
            f"(clients: {sum(1 for ms in client_ms if ms > 100)} over 100 ms)")


def bench_database(kind: str, args: argparse.Namespace) -> list[str]:
    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.providers.tokens import Tokens

    folder = Path(tempfile.mkdtemp(prefix=f"da-serve-load-{kind}-"))
    url, drop = prepare_database(kind, args.postgres_url, folder)
    process = None
    try:
        images = folder / "images"
        saturating = args.clients * INVITES_PER_CLIENT
        campaign_id = build(url, images, places=args.workers + saturating)
        port = free_port()
        access_log = folder / "access.log" if args.server_times else None
        process = start_gunicorn(url, images, port, args.gunicorn_workers, args.threads, access_log)
        invites = mint_invites(Tokens(SECRET), f"http://127.0.0.1:{port}", campaign_id,
                               args.workers + saturating, 1)
        lines = [f"**{kind}** (gunicorn gthread, {args.gunicorn_workers} workers × {args.threads} threads)", "",
                 "| phase | request | count | per s | p50 ms | p99 ms | max ms |", "|---|---|---|---|---|---|---|"]
        health = run_phase("healthz", port, args.clients, args.processes, args.seconds, None)
        saturate = run_phase("rate", port, args.clients, args.processes, args.seconds,
                             [invites[i::args.clients][:INVITES_PER_CLIENT] for i in range(args.clients)])
        logged_before_crowd = access_log.stat().st_size if access_log and access_log.exists() else 0
        load_before_crowd = os.getloadavg()[0]
        crowd = run_phase("rate", port, args.workers, args.processes, 0, [[link] for link in invites[saturating:]],
                          think=args.think, images=True, whole_hit=True, ramp=args.ramp)
        lines += latency_rows(f"healthz ({args.clients} clients)", health)
        lines += latency_rows(f"saturate ({args.clients} clients)", saturate)
        if crowd["samples"]:
            lines += latency_rows(f"crowd ({args.workers} workers)", crowd)
        health_rate = len(health["samples"]) / health["elapsed"]
        rating_path = sum(1 for k, _, _ in saturate["samples"] if k == RATE)
        path_rate = rating_path / saturate["elapsed"]
        crowd_all = [s * 1000 for _, s, _ in crowd["samples"]] or [math.nan]
        health_cpu = {key: used / len(health["samples"]) * 1000 for key, used in health["cpu"].items()}
        rating_cpu = {key: used / rating_path * 1000 for key, used in saturate["cpu"].items()}
        errors = health["errors"] + saturate["errors"] + crowd["errors"]
        lines += [
            "",
            f"- saturation: {len(saturate['accepted']) / saturate['elapsed']:.0f} ratings/s; rating path "
            f"(POST a rating, answered with the next item) {path_rate:.0f} req/s = "
            f"**{path_rate / health_rate:.2f} ×** /healthz ({health_rate:.0f} req/s)",
            f"- CPU per request (from /proc): /healthz {health_cpu['server']:.2f} ms in gunicorn; a rating "
            f"{rating_cpu['server']:.2f} ms in gunicorn"
            + (" (SQLite runs inside it)" if kind == "sqlite" else f" + {rating_cpu['database']:.2f} ms in PostgreSQL")
            + " (saturate phase, the arrivals' share included); the clients use the rest of the cores",
            f"- crowd: {args.workers} workers arriving over {args.ramp:.0f} s, × 100 slots, think time "
            f"{args.think} s ± 50 %: "
            f"{len(crowd['accepted']) / crowd['elapsed']:.0f} ratings/s, all requests p50 "
            f"{statistics.median(crowd_all):.1f} ms, **p99 {percentile(crowd_all, 0.99):.1f} ms**, "
            f"{crowd['elapsed']:.0f} s (machine load average {load_before_crowd:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after)",
            *([server_times(access_log, logged_before_crowd, crowd_all)] if access_log else []),
            f"- check: {verify(url, campaign_id, saturate['accepted'] + crowd['accepted'])}; "
            f"client errors: {len(errors)}{' ' + errors[0] if errors else ''}",
            "",
        ]
        return lines
    finally:
        if process is not None:
            stop(process)
        drop()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--postgres-url", default=os.environ.get(
        "DA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:54330/postgres"))
    parser.add_argument("--workers", type=int, default=200, help="simulated crowd workers (whole HITs)")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean seconds a crowd worker spends on an item (real DA workers: 10-30 s)")
    parser.add_argument("--ramp", type=float, default=30.0,
                        help="crowd workers arrive at random moments over this many seconds")
    parser.add_argument("--clients", type=int, default=16, help="back-to-back clients (healthz, saturate)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the healthz and saturate phases")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--gunicorn-workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--server-times", action="store_true",
                        help="gunicorn access log with each request's time inside the server (crowd phase)")
    args = parser.parse_args()
    print(f"command: python benchmarks/serve_load.py {' '.join(sys.argv[1:])}".rstrip())
    for kind in args.databases:
        print("\n".join(bench_database(kind, args)), flush=True)


if __name__ == "__main__":
    main()
