"""Where a rating's CPU goes in the server: the peers benchmark's da-platform load under py-spy.

The set-up and the clients are ``peers.py``'s (the sample campaign, gunicorn gthread 3 × 4, ``--workers``
pool workers each rating its own HIT back to back, one ``POST …/rating`` per rating, answered with the
next item). While they rate, ``py-spy record`` samples every gunicorn process (``--subprocesses``,
``--nonblocking``: the server is never paused; threads waiting, e.g. in ``fdatasync`` or on a lock, are
not sampled: this is CPU). Reported:

- ratings/s and the server's CPU per rating, from ``/proc`` (user + system of every gunicorn process,
  over the run, divided by the ratings stored: arrivals and the first pages included, as in
  ``serve_load.py``). CPU time is far less sensitive to the machine's load than wall time;
- the share of the server's samples in each stage of a request (:data:`NAMED`, then :data:`LAYERS`), and the
  functions with the most samples (inclusive and self), the waits left out. py-spy counts a thread as busy
  unless the system says it sleeps: a thread in ``fdatasync`` or ``epoll_wait`` can be counted, so those are
  named as waits; on a busy machine a thread waiting for a core is counted too (the shares are of wall time
  of the threads not asleep, not of CPU time).

    PYTHONPATH=. python benchmarks/rating_profile.py                     # SQLite, 50 workers, 10 s
    PYTHONPATH=. python benchmarks/rating_profile.py --database postgres --workers 200

Needs ``py-spy`` on PATH (``pip install py-spy``) and permission to read other processes' memory
(root, or ``ptrace_scope`` 0); without it, only the rate and the CPU per rating are reported.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.*, da_platform

from benchmarks.peers import run_load, setup_da  # noqa: E402  (the peers benchmark's set-up and clients)
from benchmarks.serve_load import cpu_seconds, stop  # noqa: E402

# Stages of a request. A sample is counted in the first of NAMED whose pattern matches any of its frames, else in
# the first of LAYERS (in that order) that its innermost frame belongs to. Frames read "function (file:line)".
NAMED: list[tuple[str, str]] = [
    ("group commit: waiting for the log's sync (not CPU: a thread in fdatasync)", r"\bwait_durable \("),
    ("gunicorn: waiting for sockets (not CPU: epoll)", r"\bselect \(selectors\.py"),
    ("token decode (itsdangerous)", r"itsdangerous/"),
    ("behaviour record (parse)", r"\bparse_behaviour \("),
    ("the next screen's URLs (url_for)", r"\burl_for \("),
    ("JSON answer", r"\bDefaultJSONProvider\.response \("),
]
LAYERS: list[tuple[str, str]] = [
    ("SQLite (statements, commit: inside the sqlite3 module)", r"sqlite_commit\.py|sqlite3/"),
    ("PostgreSQL driver (psycopg)", r"psycopg/"),
    ("SQLAlchemy (execution, pool, rows)", r"sqlalchemy/"),
    ("da-platform's own code", r"da_platform/"),
    ("Flask/Werkzeug/Jinja (request, routing, response)", r"flask/|flask_wtf/|werkzeug/|jinja2/|markupsafe/"),
    ("gunicorn (HTTP parsing, sending, threads)", r"gunicorn/|concurrent/futures/|selectors\.py|socket\.py"),
]


def profile(pid: int, seconds: float, rate: int, output: Path) -> subprocess.Popen | None:
    """``py-spy record`` of ``pid`` and its children for ``seconds`` (None when py-spy is not installed)."""
    spy = shutil.which("py-spy")
    if spy is None:
        return None
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--subprocesses", "--nonblocking", "--rate",
                             str(rate), "--duration", str(int(seconds)), "--format", "raw", "--output", str(output)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def read_stacks(path: Path) -> Counter:
    """Collapsed stacks (``frame;frame;… count``) without py-spy's process frames, file paths shortened."""
    stacks: Counter = Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            frames = [re.sub(r" \(/[^)]*/(site-packages|lib/python3\.\d+)/", " (", frame)
                      for frame in stack.split(";") if not frame.startswith("process ")]
            stacks[";".join(frames)] += int(count)
    return stacks


def stage_of(frames: list[str]) -> str:
    for name, pattern in NAMED:
        if any(re.search(pattern, frame) for frame in frames):
            return name
    for frame in reversed(frames):
        for name, pattern in LAYERS:
            if re.search(pattern, frame):
                return name
    return "other (standard library)"


def stage_table(stacks: Counter) -> list[str]:
    total = sum(stacks.values()) or 1
    shares: Counter = Counter()
    for stack, count in stacks.items():
        shares[stage_of(stack.split(";"))] += count
    rows = ["| stage | share of the server's samples |", "|---|---|"]
    for name, count in shares.most_common():
        rows.append(f"| {name} | {100 * count / total:.1f} % |")
    rows.append(f"| (samples) | {total} |")
    return rows


def function_table(stacks: Counter, top: int) -> list[str]:
    """The functions (line numbers dropped) with the most samples, inclusive and self, waits left out."""
    busy = {stack: count for stack, count in stacks.items() if not stage_of(stack.split(";")).endswith("epoll)")
            and "wait_durable (" not in stack}
    total = sum(busy.values()) or 1
    inclusive: Counter = Counter()
    own: Counter = Counter()
    for stack, count in busy.items():
        frames = [re.sub(r":\d+\)$", ")", frame) for frame in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] += count
        own[frames[-1]] += count
    rows = ["| function (samples that are not waits) | inclusive | self |", "|---|---|---|"]
    for frame, count in inclusive.most_common(top):
        rows.append(f"| `{frame[:110]}` | {100 * count / total:.1f} % | {100 * own[frame] / total:.1f} % |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--workers", type=int, default=50, help="concurrent pool workers")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the run")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=30, help="functions listed")
    parser.add_argument("--postgres-url", default=os.environ.get("DA_TEST_POSTGRES_URL", ""))
    parser.add_argument("--keep", type=Path, help="keep py-spy's collapsed stacks in this file")
    args = parser.parse_args()
    print(f"command: python benchmarks/rating_profile.py {' '.join(sys.argv[1:])}".rstrip(), flush=True)
    folder = Path(tempfile.mkdtemp(prefix="da-rating-profile-"))
    process = None
    try:
        process, port, seats, check = setup_da(args.database, args.workers, folder, args.postgres_url)
        raw = folder / "stacks.txt"
        load = os.getloadavg()[0]
        cpu_before = cpu_seconds()
        spy = profile(process.pid, args.seconds + 1, args.rate, raw)
        result = run_load(f"da-{args.database}", port, seats, args.seconds, args.processes)
        cpu = {key: used - cpu_before[key] for key, used in cpu_seconds().items()}
        if spy is not None:
            _, errors = spy.communicate(timeout=60)
        stop(process)
        process = None
        lost, summary = check(result["accepted"])
        ratings = len(result["accepted"])
        print(f"\n- {ratings} ratings in {result['elapsed']:.1f} s: {ratings / result['elapsed']:.0f} ratings/s, "
              f"{args.workers} workers, load average {load:.1f} before, {os.getloadavg()[0]:.1f} after; "
              f"{summary}; client errors {len(result['errors'])}")
        print(f"- server CPU per rating (gunicorn, /proc): {cpu['server'] / ratings * 1000:.2f} ms"
              + (f"; PostgreSQL {cpu['database'] / ratings * 1000:.2f} ms" if args.database == "postgres" else ""))
        if spy is None:
            print("- py-spy is not on PATH: no profile")
            return
        if not raw.exists():
            print(f"- py-spy recorded nothing: {errors.strip()[-300:]}")
            return
        stacks = read_stacks(raw)
        if args.keep:
            shutil.copy(raw, args.keep)
        print("", *stage_table(stacks), "", *function_table(stacks, args.top), sep="\n")
    finally:
        if process is not None:
            stop(process)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
