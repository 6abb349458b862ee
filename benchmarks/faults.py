"""Fault benchmark: a crowd rating on gunicorn + PostgreSQL while the server is killed and the database restarts.

Starts its OWN PostgreSQL server (initdb in a temporary folder, a free port, its socket in that
folder, as ``.ci/run`` does; it never touches another server), builds the sample campaign, starts
gunicorn, and lets ``--workers`` simulated workers rate whole HITs as the page's script does (POST a
rating, get the next item as JSON). Meanwhile gunicorn's whole process group is killed with SIGKILL
``--kills`` times (and started again) and PostgreSQL is restarted ``--pg-restarts`` times
(``pg_ctl restart -m fast``).

A worker whose request fails (connection refused or reset, 5xx) waits, reloads the slot page and
checks where it stands, as a person pressing reload would: the page must show either the item it was
rating (the rating was not stored: it is sent again) or the next one (it was stored before the crash).
Anything else is a wrong resume. At the end it prints the ratings acknowledged to the workers, stored
in the database, lost (acknowledged but not stored) and duplicated (two ratings of one slot in one
assignment), and the number of resumes and wrong resumes. The figure to keep: 0 lost, 0 duplicated,
0 wrong resumes.

    python benchmarks/faults.py                                  # 20 workers, 4 kills, 1 restart
    python benchmarks/faults.py --workers 40 --kills 6 --pg-restarts 2

Needs the PostgreSQL server binaries (``/usr/lib/postgresql/*/bin``); run as root it starts the server
as the ``postgres`` user.
"""
from __future__ import annotations

import argparse
import glob
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.*, da_platform

from benchmarks.serve_load import (
    SECRET,
    SLOT_RE,
    build,
    first_group,
    free_port,
    path_of,
    prepare_database,
    start_gunicorn,
    stop,
)

RETRY_PAUSE = 0.3  # seconds a worker waits after a failed request


# PostgreSQL of our own -------------------------------------------------------------------------------------


class OwnPostgres:
    """A throw-away PostgreSQL server in a temporary folder on a free loopback port."""

    def __init__(self) -> None:
        self.bin = max(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
        self.folder = Path(tempfile.mkdtemp(prefix="da-faults-pg."))
        self.port = free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.folder), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([*self.as_postgres, f"{self.bin}/{tool}", *args], check=True, stdout=subprocess.DEVNULL)

    def _ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.folder), "-l", str(self.folder / "server.log"), "-w", "-o", options,
                  *extra, action)

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast")

    def remove(self) -> None:
        try:
            self._ctl("stop", "-m", "immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


# The crowd -------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    acknowledged: list[tuple[str, str, int]] = field(default_factory=list)  # (assignment path, slot, score)
    failures: int = 0
    resumes: int = 0
    stored_before_crash: int = 0  # the reload showed the next item: stored, its answer lost in the crash
    wrong_resumes: int = 0
    unfinished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Server:
    """How the workers reach the server: a port that stays the same across gunicorn restarts."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: str | None = None) -> tuple[int, str, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheader("Location", ""), response.read().decode("utf-8", "replace")
        finally:
            connection.close()


def _until_ok(server: Server, tally: Tally, method: str, path: str, deadline: float) -> tuple[int, str, str]:
    """A request repeated (after a pause) while the server is down or answers 5xx."""
    while time.time() < deadline:
        try:
            status, location, body = server.request(method, path)
            if status < 500:
                return status, location, body
        except (OSError, http.client.HTTPException):
            pass
        with tally.lock:
            tally.failures += 1
        time.sleep(RETRY_PAUSE)
    raise TimeoutError(f"{method} {path}: the server did not come back")


def worker(server: Server, invite: str, seed: int, think: float, tally: Tally, deadline: float) -> None:
    """One simulated worker; an unexpected answer ends it and counts it as unfinished."""
    try:
        rate_hit(server, invite, seed, think, tally, deadline)
    except Exception as error:  # noqa: BLE001 - reported in the result, the others go on
        print(f"worker {seed}: {error}", file=sys.stderr)
        with tally.lock:
            tally.unfinished += 1


def rate_hit(server: Server, invite: str, seed: int, think: float, tally: Tally, deadline: float) -> None:
    """Rate one whole HIT through faults, as the page's script and a person pressing reload would."""
    rng = random.Random(seed)
    status, location, _ = _until_ok(server, tally, "GET", path_of(invite), deadline)
    if status != 303:
        raise RuntimeError(f"arrival refused: {status}")
    base = path_of(location)
    _, _, page = _until_ok(server, tally, "GET", base + "slot", deadline)
    slot = first_group(SLOT_RE, page)
    while time.time() < deadline:
        time.sleep(rng.uniform(0.5 * think, 1.5 * think))
        score = rng.randint(0, 100)
        try:
            status, _, body = server.request("POST", base + "rating", f"slot={slot}&score={score}")
        except (OSError, http.client.HTTPException):
            status, body = 0, ""
        if status == 200:
            with tally.lock:
                tally.acknowledged.append((base, slot, score))
            answer = json.loads(body)
            if "done" in answer:
                return
            slot = answer["screen"]["slot"]
            continue
        # A fault: reload the slot page and see where the server says we are.
        with tally.lock:
            tally.failures += 1
        time.sleep(RETRY_PAUSE)
        status, location, page = _until_ok(server, tally, "GET", base + "slot", deadline)
        shown = first_group(SLOT_RE, page) if status == 200 and SLOT_RE.search(page) else None
        with tally.lock:
            tally.resumes += 1
        if shown == slot:
            continue  # not stored: send it again
        # Stored before the crash but not acknowledged: the page shows the next item (or the end).
        # The stored score is this attempt's; it counts as acknowledged once the page confirms it.
        with tally.lock:
            tally.acknowledged.append((base, slot, score))
            tally.stored_before_crash += 1
        if shown is None and status == 303 and location.endswith("/done"):
            return
        if shown is None:
            with tally.lock:
                tally.wrong_resumes += 1
            return
        slot = shown
    raise TimeoutError("the HIT was not finished in time")


# Faults and checks ---------------------------------------------------------------------------------------


def verify(url: str, tally: Tally) -> dict[str, int]:
    from sqlalchemy import func, select

    from da_platform.db.engine import make_engine
    from da_platform.db.models import Assignment, Rating, Slot

    engine = make_engine(url)
    with engine.connect() as connection:
        stored = {(a, s): score for a, s, score in connection.execute(
            select(Assignment.public_id, Slot.public_id, Rating.score)
            .join(Assignment, Assignment.id == Rating.assignment_id).join(Slot, Slot.id == Rating.slot_id))}
        duplicated = connection.execute(select(func.count()).select_from(
            select(Rating.assignment_id, Rating.slot_id).group_by(Rating.assignment_id, Rating.slot_id)
            .having(func.count() > 1).subquery())).scalar_one()
        total = connection.execute(select(func.count(Rating.id))).scalar_one()
    engine.dispose()
    from da_platform.providers.tokens import Tokens

    tokens = Tokens(SECRET)
    acknowledged = {(tokens.read_assignment(base.split("/")[2]), slot): score
                    for base, slot, score in tally.acknowledged}
    lost = sum(1 for key in acknowledged if key not in stored)
    wrong_score = sum(1 for key, score in acknowledged.items() if key in stored and stored[key] != score)
    return {"acknowledged": len(tally.acknowledged), "stored": total, "lost": lost, "duplicated": duplicated,
            "wrong score": wrong_score, "failed requests": tally.failures, "resumes": tally.resumes,
            "of which stored before the crash": tally.stored_before_crash,
            "wrong resumes": tally.wrong_resumes, "workers unfinished": tally.unfinished}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=20, help="simulated workers, one whole HIT each")
    parser.add_argument("--think", type=float, default=0.05, help="mean seconds between ratings")
    parser.add_argument("--kills", type=int, default=4, help="SIGKILLs of gunicorn's process group")
    parser.add_argument("--pg-restarts", type=int, default=1, help="PostgreSQL restarts")
    parser.add_argument("--interval", type=float, default=4.0, help="seconds between faults")
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()

    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.providers.tokens import Tokens

    postgres = OwnPostgres()
    folder = Path(tempfile.mkdtemp(prefix="da-faults."))
    gunicorn = None
    try:
        url, _drop = prepare_database("postgres", postgres.url, folder)
        images = folder / "images"
        campaign_id = build(url, images, args.workers)
        port = free_port()
        invites = mint_invites(Tokens(SECRET), f"http://127.0.0.1:{port}", campaign_id,
                               args.workers, 1)
        gunicorn = start_gunicorn(url, images, port, args.gunicorn_workers, args.threads)
        tally, server = Tally(), Server(port)
        deadline = time.time() + 600
        threads = [threading.Thread(target=worker, args=(server, invite, i, args.think, tally, deadline), daemon=True)
                   for i, invite in enumerate(invites)]
        started = time.time()
        for thread in threads:
            thread.start()
        faults = ["kill"] * args.kills + ["pg-restart"] * args.pg_restarts
        random.Random(0).shuffle(faults)
        for fault in faults:
            time.sleep(args.interval)
            if not any(t.is_alive() for t in threads):
                print(f"the crowd finished before the fault {fault!r}: raise --workers or lower --interval")
                break
            if fault == "kill":
                os.killpg(gunicorn.pid, signal.SIGKILL)
                gunicorn.wait()
                print(f"{time.time() - started:6.1f} s  SIGKILL gunicorn ({len(tally.acknowledged)} acknowledged)")
                time.sleep(1.0)
                gunicorn = start_gunicorn(url, images, port, args.gunicorn_workers, args.threads)
            else:
                print(f"{time.time() - started:6.1f} s  restart PostgreSQL ({len(tally.acknowledged)} acknowledged)")
                postgres.restart()
        for thread in threads:
            thread.join(max(0.0, deadline - time.time()))
        print(f"{time.time() - started:6.1f} s  crowd done")
        result = verify(url, tally)
        print("; ".join(f"{k}: {v}" for k, v in result.items()))
        ok = result["lost"] == result["duplicated"] == result["wrong resumes"] == result["wrong score"] == 0
        print("OK: 0 lost, 0 duplicated, every worker resumed on the right item" if ok else "FAILED")
        sys.exit(0 if ok else 1)
    finally:
        if gunicorn is not None and gunicorn.poll() is None:
            stop(gunicorn)
        postgres.remove()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
