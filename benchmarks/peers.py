"""da-platform against the tools a researcher would use instead: Potato and Pearmut, same load, same machine.

Each peer is installed from PyPI into its own virtual environment under ``benchmarks/out/venvs/``
(created on the first run, reused after; ``python -m venv`` + pip) and set up with a 0–100 slider
task of 100 items, one task per simulated worker:

- **Potato** (``potato-annotation``): a ``slider`` scheme (0–100), the items as a JSON-lines data
  file, ``fixed_order`` assignment; served as its container deployment does it (gunicorn, 1 worker ×
  8 threads, on its ``create_app`` factory). A rating is the page's two requests: ``POST
  /updateinstance`` (JSON) and ``POST /annotate`` ``{"action": "next_instance"}``, whose answer is
  the next item's page. Storage: ``<output>/<user>/user_state.json``.
- **Pearmut** (``pearmut``, needs Python ≥ 3.12): a task-based campaign, protocol ``DA`` (its
  0–100 slider), one task of 100 one-item documents per worker; served as ``pearmut run`` does it
  (uvicorn, one process — its state lives in that process), bound to 127.0.0.1. A rating is the
  page's two requests: ``POST /log-response`` and ``POST /get-next-item``. Storage:
  ``data/annotations/<campaign>.jsonl``.
- **da-platform** on SQLite and on PostgreSQL (a server of the benchmark's own: initdb in a
  temporary folder, a free loopback port, default ``fsync``/``synchronous_commit``), the sample
  campaign (HITs of 100 items) under gunicorn 3 × 4 as in ``serve_load.py``. A rating is the page's
  one request (``POST …/rating`` answered with the next item as JSON).

Rounds are interleaved: in each round, for 50 and then 200 concurrent workers, every tool in turn
(the order rotates by round) gets a fresh store and server; each worker rates its own 100 items back
to back (no think time, no images), bounded by ``--seconds`` per run. Reported per run: ratings/s,
p50/p99 of one rating cycle (save + next item, as the worker waits for it), acknowledged ratings
missing from the tool's storage afterwards (read from its files or database once the server has
stopped), errors, the load average. The figure to keep: da-platform's ratings/s ÷ the fastest
peer's, in the same round.

    python benchmarks/peers.py                          # 2 rounds, 50 and 200 workers, all four
    python benchmarks/peers.py --rounds 1 --workers 50 --tools potato pearmut

Loopback only; nothing of the peers is imported by the project or its tests.
"""
from __future__ import annotations

import argparse
import glob
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.*, da_platform

from benchmarks.faults import OwnPostgres  # same PostgreSQL set-up
from benchmarks.serve_load import (  # same server and client code
    RATE,
    ROOT,
    SECRET,
    Client,
    build,
    first_group,
    free_port,
    launch_gunicorn,
    percentile,
    prepare_database,
    rate_until,
    start_gunicorn,
    stop,
    verify,
    wait_until_up,
)

VENVS = ROOT / "benchmarks" / "out" / "venvs"
ITEMS = 100
TOOLS = ["da-sqlite", "da-postgres", "potato", "pearmut"]
PEERS = ["potato", "pearmut"]
INSTANCE_RE = re.compile(r'<script id="instance_data" type="application/json">\s*\{"id": "([^"]+)"')
JSON = {"Content-Type": "application/json"}

# What each tool does before it answers a rating, read in its code (the versions this file was written
# against: Potato 2.12.1, Pearmut 1.1.6). "Durable" = on disk (fsync or a synchronous commit) before the
# answer, so an acknowledged rating survives a power loss, not only a crash of the server process.
DURABILITY = {
    "da-sqlite": "yes: the rating is committed before the answer and the answer waits for an fsync of the "
                 "write-ahead log begun after the commit (group commit, `DA_SQLITE_COMMIT=group`: the default, "
                 "set explicitly here; `da_platform/db/sqlite_commit.py`)",
    "da-postgres": "yes: one autocommitted statement before the answer; PostgreSQL's defaults "
                   "(`synchronous_commit=on`, `fsync=on`) wait for the WAL flush",
    "potato": "yes (the file): `/updateinstance` → `finish_annotation_write` → `save_user_state` → "
              "`UserState.save` writes the whole user state to a temporary file, `os.fsync`, `os.replace` "
              "(the folder is not fsynced, so the rename itself can be lost), then appends and fsyncs "
              "`annotation_history.jsonl`, all before the answer",
    "pearmut": "no: `/log-response` → `save_db_payload` appends a line to `data/annotations/<campaign>.jsonl` "
               "under an `flock` and closes the file (no fsync): it survives a crash of the server, not of the "
               "machine; the progress file is rewritten in place (`open(..., 'w')`, no fsync) on every rating",
}


class PeerUnavailable(RuntimeError):
    """A peer that could not be installed or started here; the message says why."""


# Virtual environments ----------------------------------------------------------------------------------------


def python_at_least(minor: int) -> str | None:
    """A working Python 3.``minor``+ interpreter on this machine (PATH, then pyenv's versions), or None."""
    candidates = [found for m in range(14, minor - 1, -1) if (found := shutil.which(f"python3.{m}"))]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python")), reverse=True)
    for candidate in candidates:  # a pyenv shim on PATH may name a version that is not installed
        probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[1])"],
                               check=False, capture_output=True, text=True)
        if probe.returncode == 0 and int(probe.stdout) >= minor:
            return candidate
    return None


def ensure_venv(name: str, python: str | None, packages: list[str]) -> Path:
    """The venv's Python, creating the venv and pip-installing ``packages`` on first use."""
    folder = VENVS / name
    interpreter = folder / "bin" / "python"
    marker = folder / "installed.txt"
    if marker.exists() and marker.read_text().split() == packages:
        return interpreter
    if python is None:
        raise PeerUnavailable(f"{name}: no suitable Python interpreter on this machine")
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(folder)], check=True)
    result = subprocess.run([str(interpreter), "-m", "pip", "install", "--quiet", *packages],
                            check=False, capture_output=True, text=True)
    if result.returncode != 0:
        errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
        raise PeerUnavailable(f"{name}: pip install {' '.join(packages)} failed: {' / '.join(errors[-2:])}")
    marker.write_text(" ".join(packages))
    return interpreter


def version_of(interpreter: Path, distribution: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    return subprocess.run([str(interpreter), "-c", code],
                          capture_output=True, text=True, check=True).stdout.strip()


# Set-ups: each returns (server process, port, seats, check), a seat being what one worker needs ---------------


def setup_da(kind: str, workers: int, folder: Path, postgres_url: str):
    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.providers.tokens import Tokens

    url, drop = prepare_database(kind, postgres_url, folder)
    images = folder / "images"
    campaign_id = build(url, images, places=workers)
    port = free_port()
    # (the default, set here all the same so that DURABILITY["da-sqlite"] holds whatever the environment says)
    process = start_gunicorn(url, images, port, 3, 4, settings={"DA_SQLITE_COMMIT": "group"})
    seats = mint_invites(Tokens(SECRET), f"http://127.0.0.1:{port}", campaign_id, workers, 1)

    def check(accepted: list) -> tuple[int, str]:
        try:
            summary = verify(url, campaign_id, [tuple(a) for a in accepted])
        finally:
            drop()
        return int(first_group(r"(\d+) lost", summary)), summary

    return process, port, seats, check


def setup_potato(interpreter: Path, workers: int, folder: Path):
    import http.client

    data = folder / "items.jsonl"
    data.write_text("".join(json.dumps({"id": f"item{i:03d}", "text": f"Question {i}: candidate answer {i}"}) + "\n"
                            for i in range(ITEMS)))
    output = folder / "annotation_output"
    (folder / "config.yaml").write_text(f"""annotation_task_name: peers benchmark
task_dir: {folder}
output_annotation_dir: {output}/
data_files:
- {data}
item_properties:
  id_key: id
  text_key: text
user_config:
  allow_all_users: true
  users: []
require_password: false
max_annotations_per_user: {ITEMS}
max_annotations_per_item: -1
assignment_strategy: fixed_order
annotation_schemes:
- annotation_type: slider
  name: score
  description: How good is this answer?
  min_value: 0
  max_value: 100
  starting_value: 50
alert_time_each_instance: 10000000
""")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": ""}
    process = launch_gunicorn(f"potato.flask_server:create_app('{folder / 'config.yaml'}')", port, 1, 8, env, folder,
                              python=str(interpreter), health="/health", startup=120)
    seats = []
    for index in range(workers):
        user = f"worker{index:03d}"
        cookie = ""
        for path, action in (("/register", "signup"), ("/auth", "login")):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("POST", path, body=f"action={action}&email={user}&pass=x",
                               headers={"Content-Type": "application/x-www-form-urlencoded",
                                        **({"Cookie": cookie} if cookie else {})})
            response = connection.getresponse()
            response.read()
            set_cookie = response.getheader("Set-Cookie", "")
            if set_cookie:
                cookie = set_cookie.split(";", 1)[0]
        seats.append((user, cookie))

    def check(accepted: list) -> tuple[int, str]:
        stored = set()
        for state_file in output.glob("*/user_state.json"):
            state = json.loads(state_file.read_text())
            for instance, labels in state.get("instance_id_to_label_to_value", {}).items():
                for _label, value in labels:
                    stored.add((state["user_id"], instance, int(value)))
        lost = sum(1 for a in accepted if tuple(a) not in stored)
        return lost, f"{len(stored)} ratings in the user_state.json files, {len(accepted)} acknowledged: {lost} lost"

    return process, port, seats, check


def setup_pearmut(interpreter: Path, workers: int, folder: Path):
    users = [f"worker{index:03d}" for index in range(workers)]
    items = [[{"src": f"Question {i}", "tgt": {"default": f"candidate answer {i}"}}] for i in range(ITEMS)]
    campaign = {"campaign_id": "peers", "info": {"assignment": "task-based", "protocol": "DA", "shuffle": False,
                                                 "users": users},
                "data": [items for _ in users]}
    (folder / "campaign.json").write_text(json.dumps(campaign))
    env = {**os.environ, "PYTHONPATH": "", "PEARMUT_ROOT": str(folder)}
    for sub in ("progress", "campaigns"):
        (folder / "data" / sub).mkdir(parents=True, exist_ok=True)
    added = subprocess.run([str(interpreter.parent / "pearmut"), "add", str(folder / "campaign.json")],
                           check=False, env=env, cwd=folder, capture_output=True, text=True)
    if added.returncode != 0:
        raise PeerUnavailable(f"pearmut add failed: {added.stdout[-300:]} {added.stderr[-300:]}")
    port = free_port()
    process = subprocess.Popen([str(interpreter), "-m", "uvicorn", "pearmut.app:app", "--host", "127.0.0.1",
                                "--port", str(port), "--log-level", "warning", "--no-access-log"],
                               env=env, cwd=folder, start_new_session=True)
    wait_until_up(process, port, "/", 60)

    def check(accepted: list) -> tuple[int, str]:
        log = folder / "data" / "annotations" / "peers.jsonl"
        stored = set()
        for line in (log.read_text().splitlines() if log.exists() else []):
            entry = json.loads(line)
            stored.add((entry["user_id"], entry["item_i"], entry["annotation"][0]["default"]["score"]))
        lost = sum(1 for a in accepted if tuple(a) not in stored)
        return lost, f"{len(stored)} ratings in {log.name}, {len(accepted)} acknowledged: {lost} lost"

    return process, port, users, check


# Workers -------------------------------------------------------------------------------------------------------


def rate_potato(port: int, seat: tuple[str, str], deadline: float, seed: int, cycles: list, accepted: list) -> None:
    user, cookie = seat
    rng = random.Random(seed)
    client = Client(port, [])
    headers = {**JSON, "Cookie": cookie}
    _, _, body = client.request("current", "GET", "/api/current_instance", headers={"Cookie": cookie})
    instance = json.loads(body)["instance_id"]
    for _ in range(ITEMS):
        if time.time() >= deadline:
            return
        score = rng.randint(0, 100)
        started = time.perf_counter()
        status, _, body = client.request("save", "POST", "/updateinstance", json.dumps(
            {"instance_id": instance, "annotations": {"score:score": str(score)}, "span_annotations": []}), headers)
        if status != 200:
            raise RuntimeError(f"potato /updateinstance: {status} {body[:200]}")
        accepted.append((user, instance, score))
        status, _, page = client.request("next", "POST", "/annotate", json.dumps(
            {"action": "next_instance", "instance_id": instance}), headers)
        cycles.append(time.perf_counter() - started)
        if status != 200:
            raise RuntimeError(f"potato /annotate next_instance: {status}")
        found = INSTANCE_RE.search(page)
        if found is None or found.group(1) == instance:
            return  # the last item
        instance = found.group(1)


def rate_pearmut(port: int, user: str, deadline: float, seed: int, cycles: list, accepted: list) -> None:
    rng = random.Random(seed)
    client = Client(port, [])
    ask = json.dumps({"campaign_id": "peers", "user_id": user})
    _, _, body = client.request("next", "POST", "/get-next-item", ask, JSON)
    answer = json.loads(body)
    while answer["status"] == "ok" and time.time() < deadline:
        item = answer["info"]["item_i"]
        score = rng.randint(0, 100)
        started = time.perf_counter()
        status, _, body = client.request("save", "POST", "/log-response", json.dumps(
            {"campaign_id": "peers", "user_id": user, "item_i": item,
             "payload": {"annotation": [{"default": {"score": score}}]}}), JSON)
        if status != 200:
            raise RuntimeError(f"pearmut /log-response: {status} {body[:200]}")
        accepted.append((user, item, score))
        status, _, body = client.request("next", "POST", "/get-next-item", ask, JSON)
        cycles.append(time.perf_counter() - started)
        answer = json.loads(body)


def client_process(job: dict) -> dict:
    """``len(job["seats"])`` workers in threads, started together at ``job["start_at"]``."""
    cycles: list = []
    accepted: list = []
    errors: list = []
    time.sleep(max(0.0, job["start_at"] - time.time()))

    def run(index: int, seat) -> None:
        seed = job["seed"] + index
        try:
            if job["tool"] == "potato":
                rate_potato(job["port"], seat, job["deadline"], seed, cycles, accepted)
            elif job["tool"] == "pearmut":
                rate_pearmut(job["port"], seat, job["deadline"], seed, cycles, accepted)
            else:
                samples: list = []
                try:  # its one HIT, until the deadline; having no second invite is how it ends early
                    rate_until(job["port"], [seat], job["deadline"], 0.0, False, False, seed, samples, accepted)
                except RuntimeError as error:
                    if not str(error).startswith("saturate: more invites needed"):
                        raise
                finally:
                    cycles.extend(seconds for kind, seconds, _ in samples if kind == RATE)
        except Exception as error:  # noqa: BLE001  (counted and shown, never hidden)
            errors.append(repr(error))

    threads = [threading.Thread(target=run, args=(i, seat)) for i, seat in enumerate(job["seats"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"cycles": cycles, "accepted": accepted, "errors": errors, "ended": time.time()}


def run_load(tool: str, port: int, seats: list, seconds: float, processes: int) -> dict:
    start_at = time.time() + 1.0
    deadline = start_at + seconds
    jobs = [{"tool": tool, "port": port, "seats": seats[p::processes], "start_at": start_at, "deadline": deadline,
             "seed": 1000 * p} for p in range(processes)]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        results = pool.map_async(client_process, jobs).get(timeout=seconds + 180)
    merged = {"cycles": [], "accepted": [], "errors": [], "elapsed": max(r["ended"] for r in results) - start_at}
    for result in results:
        for key in ("cycles", "accepted", "errors"):
            merged[key] += result[key]
    return merged


# One run, the rounds, the report ---------------------------------------------------------------------------------


def run_one(tool: str, workers: int, args: argparse.Namespace, interpreters: dict, postgres_url: str) -> dict:
    folder = Path(tempfile.mkdtemp(prefix=f"da-peers-{tool}-"))
    process = None
    load = os.getloadavg()[0]
    try:
        if tool == "potato":
            process, port, seats, check = setup_potato(interpreters["potato"], workers, folder)
        elif tool == "pearmut":
            process, port, seats, check = setup_pearmut(interpreters["pearmut"], workers, folder)
        else:
            process, port, seats, check = setup_da(tool.removeprefix("da-"), workers, folder, postgres_url)
        result = run_load(tool, port, seats, args.seconds, args.processes)
        stop(process)
        process = None
        lost, summary = check(result["accepted"])
        cycles = [s * 1000 for s in result["cycles"]] or [float("nan")]
        return {"tool": tool, "workers": workers, "ratings": len(result["accepted"]),
                "rate": len(result["accepted"]) / result["elapsed"], "p50": statistics.median(cycles),
                "p99": percentile(cycles, 0.99), "lost": lost, "check": summary, "errors": result["errors"],
                "load": load}
    finally:
        if process is not None:
            stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[50, 200], help="concurrent workers per run")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="time bound of one run (each worker: ≤ 100 ratings)")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that the servers and PostgreSQL are stopped
    print(f"command: python benchmarks/peers.py {' '.join(sys.argv[1:])}".rstrip(), flush=True)

    interpreters, unavailable = {}, {}
    wanted = {"potato": (sys.executable, ["potato-annotation", "gunicorn"], "potato-annotation"),
              "pearmut": (python_at_least(12), ["pearmut"], "pearmut")}
    for peer in [t for t in args.tools if t in PEERS]:
        python, packages, distribution = wanted[peer]
        try:
            interpreters[peer] = ensure_venv(peer, python, packages)
            print(f"- {peer} {version_of(interpreters[peer], distribution)} in {VENVS / peer}", flush=True)
        except (PeerUnavailable, subprocess.CalledProcessError) as error:
            unavailable[peer] = str(error)
            print(f"- {peer}: NOT MEASURED: {error}", flush=True)
    tools = [t for t in args.tools if t not in unavailable]

    own = OwnPostgres() if "da-postgres" in tools else None
    rows: list[dict] = []
    try:
        for round_ in range(args.rounds):
            for workers in args.workers:
                order = tools[round_ % len(tools):] + tools[:round_ % len(tools)]
                for tool in order:
                    try:
                        row = run_one(tool, workers, args, interpreters, own.url if own else "")
                    except Exception as error:  # noqa: BLE001  (a run that failed is a row that says so)
                        row = {"tool": tool, "workers": workers, "failed": repr(error), "load": os.getloadavg()[0]}
                    row["round"] = round_ + 1
                    rows.append(row)
                    print(json.dumps(row)[:600], flush=True)
    finally:
        if own is not None:
            own.remove()
    print(report(rows, tools, unavailable))


def report(rows: list[dict], tools: list[str], unavailable: dict[str, str]) -> str:
    lines = ["", "| round | workers | tool | ratings | ratings/s | p50 ms | p99 ms | acknowledged, not stored "
                 "| errors | load avg |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if "failed" in row:
            lines.append(f"| {row['round']} | {row['workers']} | {row['tool']} | failed: {row['failed'][:200]} "
                         "|  |  |  |  |  | "
                         f"{row['load']:.1f} |")
            continue
        lines.append(f"| {row['round']} | {row['workers']} | {row['tool']} | {row['ratings']} | {row['rate']:.0f} | "
                     f"{row['p50']:.1f} | {row['p99']:.1f} | {row['lost']} | {len(row['errors'])}"
                     f"{' (' + row['errors'][0][:80] + ')' if row['errors'] else ''} | {row['load']:.1f} |")
    lines += ["", "da-platform ÷ the fastest peer, ratings/s, same round:", ""]
    for (round_, workers) in sorted({(r["round"], r["workers"]) for r in rows}):
        here = {r["tool"]: r for r in rows if r["round"] == round_ and r["workers"] == workers and "failed" not in r}
        peers = [here[p] for p in PEERS if p in here]
        if not peers:
            continue
        fastest = max(peers, key=lambda r: r["rate"])
        ratios = [f"{t} {here[t]['rate'] / fastest['rate']:.2f} ×" for t in ("da-sqlite", "da-postgres") if t in here]
        lines.append(f"- round {round_}, {workers} workers: fastest peer {fastest['tool']} ({fastest['rate']:.0f}/s); "
                     + ", ".join(ratios))
    lines += ["", "Durable before the answer (from each tool's code):", ""]
    lines += [f"- {tool}: {DURABILITY[tool]}" for tool in tools]
    lines += [f"- {peer}: not measured: {why}" for peer, why in unavailable.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
