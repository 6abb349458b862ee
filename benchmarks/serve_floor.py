"""The floor under benchmarks/serve_load.py: how fast can *any* request that touches PostgreSQL be,
next to a trivial endpoint, with this stack on this machine?

A throw-away Flask app (not the platform) under the same gunicorn (gthread 3 × 4) and the same kind of
back-to-back clients answers ``/healthz`` (no database) and endpoints doing 1 or 5 round trips of
``SELECT 1`` on raw psycopg (autocommit, one connection per thread), one durable one-row INSERT on raw
psycopg, and one ``SELECT 1`` through a SQLAlchemy engine (pool checkout, execute, commit). The
INSERTs go to a table ``floor_probe`` in the database named by --postgres-url (use a throw-away one;
drop the table after). Prints each one's throughput as a ratio to
``/healthz`` — what serve_load.py's "rating path ≥ 0.5 × /healthz" target is up against.

    python benchmarks/serve_floor.py [--postgres-url URL] [--seconds 8] [--clients 16]
"""
from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.*, da_platform
from benchmarks.serve_load import free_port, launch_gunicorn, stop  # noqa: E402  (same server set-up)

APP = '''
import os, threading
import psycopg
from flask import Flask
from sqlalchemy import create_engine, literal, select

app = Flask(__name__)
URL = os.environ["FLOOR_POSTGRES_URL"]
engine = create_engine(URL)
local = threading.local()
ONE = select(literal(1))


def raw():
    if getattr(local, "connection", None) is None:
        local.connection = psycopg.connect(URL.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
    return local.connection


@app.get("/healthz")
def healthz():
    return {"status": "ok"}


@app.get("/raw-1")
def raw_1():
    return {"x": raw().execute("SELECT 1 WHERE %s = %s", (1, 1)).fetchone()[0]}


@app.get("/raw-5")
def raw_5():
    for _ in range(5):
        value = raw().execute("SELECT 1 WHERE %s = %s", (1, 1)).fetchone()[0]
    return {"x": value}


@app.get("/raw-insert")
def raw_insert():
    """One durable write: the commit waits for PostgreSQL's WAL flush, as a rating's does."""
    return {"x": raw().execute("INSERT INTO floor_probe (v) VALUES (%s) RETURNING id", (1,)).fetchone()[0]}


@app.get("/sqlalchemy-1")
def sqlalchemy_1():
    with engine.connect() as connection:
        value = connection.execute(ONE).scalar()
        connection.commit()
    return {"x": value}
'''

ENDPOINTS = ["/raw-1", "/raw-5", "/raw-insert", "/sqlalchemy-1"]


def hammer(job: tuple[int, str, float]) -> int:
    port, path, seconds = job
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    done, deadline = 0, time.time() + seconds
    while time.time() < deadline:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}")
        done += 1
    return done


def rate(port: int, path: str, seconds: float, clients: int) -> float:
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        return sum(pool.map(hammer, [(port, path, seconds)] * clients)) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres-url", default=os.environ.get(
        "DA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:54330/postgres"))
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    print(f"command: python benchmarks/serve_floor.py {' '.join(sys.argv[1:])}".rstrip())
    from sqlalchemy import create_engine

    probe = create_engine(args.postgres_url)
    with probe.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS floor_probe (id serial PRIMARY KEY, v integer)")
    probe.dispose()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "floor_app.py").write_text(APP)
        port = free_port()
        server = launch_gunicorn("floor_app:app", port, 3, 4, {**os.environ, "FLOOR_POSTGRES_URL": args.postgres_url},
                                 Path(folder))
        try:
            base = rate(port, "/healthz", args.seconds, args.clients)
            print(f"| endpoint | req/s | ÷ /healthz |\n|---|---|---|\n| /healthz | {base:.0f} | 1.00 |")
            for path in ENDPOINTS:
                value = rate(port, path, args.seconds, args.clients)
                print(f"| {path} | {value:.0f} | {value / base:.2f} |", flush=True)
        finally:
            stop(server)


if __name__ == "__main__":
    main()
