"""The CPU one rating costs inside the application, without a server or a network: the rating request
(``POST /a/<t>/rating``, answered with the next item as JSON) called on the WSGI application directly,
one after the other in one thread, on a fresh SQLite database (group commit, the default) or PostgreSQL.

The figure is CPU time (``time.process_time``: this process, every thread) per rating, the median of
``--repeats`` passes over fresh assignments, each pass rating ``--ratings`` items after a warm-up. CPU time
is inflated on a busy machine (two cores shared: caches, the other hyperthread), so ``--callgrind`` counts
instructions instead: the database is built first, then the app and the passes run under
``valgrind --tool=callgrind`` with the counting switched on only around the measured passes
(``callgrind_control``); instructions per rating are the same whatever the machine's load. ``--profile``
prints cProfile's functions by cumulative CPU time for one pass.

    PYTHONPATH=. python benchmarks/rating_cpu.py                       # SQLite, 5 × 500 ratings
    PYTHONPATH=. python benchmarks/rating_cpu.py --database postgres
    PYTHONPATH=. python benchmarks/rating_cpu.py --callgrind --ratings 300 --repeats 1
    PYTHONPATH=. python benchmarks/rating_cpu.py --profile 40
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.*, da_platform

from benchmarks.serve_load import SECRET, build, prepare_database  # noqa: E402  (the same campaign)


def call(app, method: str, path: str, body: bytes = b"") -> tuple[str, dict, bytes]:
    """One request through the WSGI application: status, headers, body."""
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0),
        "HTTP_HOST": "127.0.0.1:8000",
    }
    if body:
        environ["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
        environ["CONTENT_LENGTH"] = str(len(body))
    answer: dict = {}

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = status, dict(headers)

    chunks = app(environ, start_response)
    try:
        data = b"".join(chunks)
    finally:
        getattr(chunks, "close", lambda: None)()
    return answer["status"], answer["headers"], data


class Worker:
    """One pool worker of the campaign, arrived, on its first slot."""

    def __init__(self, app, invite: str) -> None:
        self.app = app
        status, headers, _ = call(app, "GET", urlsplit(invite).path)
        assert status.startswith("303"), status
        self.base = urlsplit(headers["Location"]).path
        status, _, page = call(app, "GET", self.base + "slot")
        assert status.startswith("200"), status
        self.slot = page.decode().split('name="slot" value="', 1)[1].split('"', 1)[0]
        self.score = 0

    def rate(self) -> bool:
        """One rating; False once the HIT is done."""
        self.score = (self.score + 37) % 101
        status, _, body = call(self.app, "POST", self.base + "rating",
                               f"slot={self.slot}&score={self.score}".encode())
        assert status.startswith("200"), (status, body[:200])
        answer = json.loads(body)
        if "done" in answer:
            return False
        self.slot = answer["screen"]["slot"]
        return True


def one_pass(app, invites: list[str], ratings: int, counting: bool = False) -> float:
    """CPU seconds per rating over ``ratings`` ratings (whole HITs, new workers as needed); ``counting``:
    callgrind counts the instructions of these ratings (and of the arrivals among them) only."""
    worker = Worker(app, invites.pop())
    for _ in range(20):  # warm-up: the statements compiled, the templates loaded
        if not worker.rate():
            worker = Worker(app, invites.pop())
    worker = Worker(app, invites.pop())
    done = 0
    if counting:
        instructions(os.getpid(), "on")
    started = time.process_time()
    while done < ratings:
        done += 1
        if not worker.rate():
            worker = Worker(app, invites.pop())
    used = time.process_time() - started
    if counting:
        instructions(os.getpid(), "off")
    return used / ratings


def instructions(pid: int, switch: str) -> None:
    """Switch callgrind's counting of process ``pid`` on or off (``callgrind_control -i``)."""
    subprocess.run(["callgrind_control", "-i", switch, str(pid)], check=True, capture_output=True)


def under_callgrind(args: argparse.Namespace, url: str, images: Path, campaign_id: int) -> str:
    """The passes of ``args`` run by a child under callgrind on the database built already, counting only the
    measured ratings: its report line."""
    output = Path(tempfile.mkdtemp(prefix="da-rating-callgrind-")) / "callgrind.out"
    python = os.path.realpath(sys.executable)  # (not a shell shim: valgrind would measure the shell)
    child = [python, __file__, "--database", args.database, "--ratings", str(args.ratings), "--repeats",
             str(args.repeats), "--counted", f"{url}|{images}|{campaign_id}"]
    result = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={output}",
                             *child], capture_output=True, text=True)
    shutil.rmtree(output.parent, ignore_errors=True)
    # (every process valgrind ran prints its count: the child's forks, counting nothing, too)
    collected = [int(n) for n in re.findall(r"Collected : (\d+)", result.stderr)]
    counted = re.search(r"counted ratings: (\d+)", result.stdout)
    if result.returncode != 0 or not collected or counted is None:
        raise SystemExit(f"callgrind run failed: {result.stdout[-500:]} {result.stderr[-1500:]}")
    return (f"{args.database}: {sum(collected) / int(counted.group(1)) / 1e6:.3f} million instructions per rating "
            f"(callgrind, {counted.group(1)} ratings counted), load average {os.getloadavg()[0]:.1f}")


def measure(args: argparse.Namespace, url: str, images: Path, campaign_id: int) -> str:
    """The passes of ``args`` in this process: the report line (nothing under ``--profile`` or ``--counted``)."""
    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.providers.tokens import Tokens
    from da_platform.web import create_app

    os.environ.update({"DA_DATABASE_URL": url, "DA_SECRET_KEY": SECRET, "DA_IMAGE_FOLDER": str(images),
                       "DA_ENV": "production", "DA_PUBLIC_URL": "http://127.0.0.1:8000", "DA_SQLITE_COMMIT": "group"})
    app = create_app()
    invites = mint_invites(Tokens(SECRET), "http://127.0.0.1:8000", campaign_id, places(args), 1)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile(time.process_time)  # CPU, not the waits for the disk
        profiler.enable()
        per = one_pass(app, invites, args.ratings)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
        return f"(under cProfile: {per * 1000:.3f} ms CPU per rating)"
    passes = [one_pass(app, invites, args.ratings, counting=bool(args.counted)) for _ in range(args.repeats)]
    if args.counted:
        return f"counted ratings: {args.ratings * args.repeats}"
    return (f"{args.database}: CPU per rating {statistics.median(passes) * 1000:.3f} ms (median of {args.repeats} "
            f"passes of {args.ratings}: {', '.join(f'{p * 1000:.3f}' for p in passes)}), "
            f"load average {os.getloadavg()[0]:.1f}")


def places(args: argparse.Namespace) -> int:
    """Workers the passes need (each pass: a warm-up worker, then one per HIT of 100 items)."""
    return (args.repeats + 1) * (args.ratings // 100 + 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--ratings", type=int, default=500, help="ratings per pass")
    parser.add_argument("--repeats", type=int, default=5, help="passes (the median is reported)")
    parser.add_argument("--profile", type=int, metavar="N", help="cProfile one pass, print the top N functions")
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind instead")
    parser.add_argument("--counted", help=argparse.SUPPRESS)  # (the child under callgrind: url|images|campaign)
    parser.add_argument("--postgres-url", default=os.environ.get("DA_TEST_POSTGRES_URL", ""))
    args = parser.parse_args()
    if args.counted:
        url, images, campaign_id = args.counted.split("|")
        print(measure(args, url, Path(images), int(campaign_id)))
        return
    print(f"command: python benchmarks/rating_cpu.py {' '.join(sys.argv[1:])}".rstrip(), flush=True)
    folder = Path(tempfile.mkdtemp(prefix="da-rating-cpu-"))
    url, drop = prepare_database(args.database, args.postgres_url, folder)
    try:
        campaign_id = build(url, folder / "images", places=places(args))
        run = under_callgrind if args.callgrind else measure
        print(run(args, url, folder / "images", campaign_id))
    finally:
        drop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
