"""Benchmark: dashboard page loads on a campaign of realistic size, with the analysis cache.

Usage (from the repository root):
    python benchmarks/dashboard_pages.py [--questions 300] [--passes 5]            # 15,000 ratings
    python benchmarks/dashboard_pages.py --questions 2000 --passes 50 --bulk      # 1,000,000 ratings

Builds a campaign with the real builder (7 systems x ``questions`` items, ``passes`` passes: 7 x 300 x 5
= 10,500 items = 150 HITs of 100), rates every HIT (one worker each, 15 % careless) on a SQLite file
(``--bulk``: the same ratings written with Core executemany instead of the ORM factory, for size),
logs in with the Flask test client and times, best of 3: the campaign page (progress + the cached
analysis), the p-value heatmap PNG, the workers page, one worker page with its two plots; then the
bundle, ratings and WMT exports: the export link (from ``EXPORT_BACKGROUND_FROM`` ratings on it leads
to the status page, and the campaign page's button, a POST, starts a preparation off the request path
and answers 303), the status page, the preparation itself, the download of the prepared file, and each
export built synchronously as the CLI does. Then one more HIT is rated and the first page load after it
is timed (the analysis is out of date: it is recomputed off the request path, a thread below
``ANALYSIS_PROCESS_FROM`` ratings, a process from there; the page waits for it at most
``ANALYSIS_WAIT_SECONDS``), with how long the recomputation took. Target: each page under 2 s.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.serve_load import first_group  # noqa: E402
from da_platform.building.build import BuildSpec, build_campaign  # noqa: E402
from da_platform.config.accounts import create_user  # noqa: E402
from da_platform.db.engine import upgrade  # noqa: E402
from da_platform.db.models import Campaign  # noqa: E402
from da_platform.exports.files import bundle, ratings, wmt  # noqa: E402
from da_platform.exports.prepared import app_exports as prepared_exports  # noqa: E402
from da_platform.web import create_app  # noqa: E402
from da_platform.web.admin.context import analysis_cache  # noqa: E402
from hit_builder.storage import LocalImageStorage  # noqa: E402
from tests import dashboard_factories as factories  # noqa: E402
from tests.factories import make_test_set  # noqa: E402

if TYPE_CHECKING:
    from flask.testing import FlaskClient
    from werkzeug.test import TestResponse

    from da_platform.results.analysis_cache import Cached

SYSTEMS = {f"system-{i}": 85 - 7 * i for i in range(7)}
EXPORTS = (("bundle", "partial=1"), ("ratings", "partial=1"), ("wmt", "partial=1"))
CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def best_of(client: FlaskClient, url: str, repeat: int = 3) -> tuple[float, int]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return min(times), len(response.data)


def timed(client: FlaskClient, url: str) -> tuple[float, TestResponse]:
    start = time.perf_counter()
    response = client.get(url)
    return time.perf_counter() - start, response


def computed(state: Cached) -> tuple[int, float]:
    """The ratings and seconds of the cache's analysis, once the cache has waited for it."""
    if state.stamp is None or state.seconds is None:
        raise RuntimeError(f"the analysis was not computed: {state.error or 'no result'}")
    return state.stamp.ratings, state.seconds


def press(client: FlaskClient, url: str, page: str) -> tuple[float, TestResponse]:
    """POST ``url`` with the CSRF token of the form on ``page`` (a dashboard button); the time of the POST."""
    token = first_group(CSRF_RE, client.get(page).text)
    start = time.perf_counter()
    response = client.post(url, data={"csrf_token": token})
    return time.perf_counter() - start, response


def rate_bulk(session, campaign, hits: list[int], rng: random.Random) -> int:
    """Rate whole HITs as ``factories.rate_hit`` does (same behaviours and times), with Core executemany."""
    from datetime import timedelta
    from types import SimpleNamespace

    from sqlalchemy import insert, select

    from da_platform.db.models import Assignment, AssignmentStatus, Hit, Rating, Slot, System, Worker

    hit_ids = dict(session.execute(select(Hit.index, Hit.id).where(Hit.campaign_id == campaign.id)).all())
    wanted = {hit_ids[i]: i for i in hits}
    rows = session.execute(select(Slot.hit_id, Slot.id, Slot.slot_type, System.name).join(System)
                           .where(Slot.hit_id.in_(select(Hit.id).where(Hit.campaign_id == campaign.id)))
                           .order_by(Slot.hit_id, Slot.position)).all()
    by_hit: dict[int, list] = {}
    for hit_id, slot_id, slot_type, system in rows:
        if hit_id in wanted:
            by_hit.setdefault(hit_id, []).append((slot_id, SimpleNamespace(slot_type=slot_type,
                                                                           system=SimpleNamespace(name=system))))
    session.execute(insert(Worker), [{"source": "pool", "external_id": f"w{wanted[h]}", "blocked": False}
                                     for h in by_hit])
    workers = dict(session.execute(select(Worker.external_id, Worker.id)).all())
    start = factories.START
    session.execute(insert(Assignment), [
        {"hit_id": h, "worker_id": workers[f"w{wanted[h]}"], "public_id": f"a{h}", "source": "pool",
         "started_at": start, "next_position": len(slots), "status": AssignmentStatus.completed,
         "completed_at": start + timedelta(seconds=6 * len(slots))} for h, slots in by_hit.items()])
    assignments = dict(session.execute(select(Assignment.hit_id, Assignment.id)
                                       .where(Assignment.hit_id.in_(list(by_hit)))).all())
    batch, count = [], 0
    for h, slots in by_hit.items():
        behaviour = factories.careless if rng.random() < 0.15 else factories.good
        local = random.Random(wanted[h])
        for i, (slot_id, slot) in enumerate(slots):
            batch.append({"assignment_id": assignments[h], "slot_id": slot_id, "score": behaviour(slot, local),
                          "shown_at": start + timedelta(seconds=6 * i),
                          "rated_at": start + timedelta(seconds=6 * (i + 1))})
        if len(batch) >= 100_000:
            session.execute(insert(Rating), batch)
            count, batch = count + len(batch), []
    if batch:
        session.execute(insert(Rating), batch)
        count += len(batch)
    session.commit()
    return count


def _build_and_rate(sessions, folder: Path, args) -> tuple[int, int, random.Random]:
    """Build the campaign and rate every HIT but the last; (campaign id, HITs, the random source)."""
    start = time.perf_counter()
    with sessions() as session:
        test_set = make_test_set(session, name="bench", questions=args.questions, systems=tuple(SYSTEMS))
        campaign = build_campaign(session, BuildSpec(name="bench", test_set=test_set, passes=args.passes, seed=1),
                                  storage=LocalImageStorage(Path(folder) / "images"))
        session.commit()
        hits = len(campaign.hits)
        print(f"built {hits} HITs in {time.perf_counter() - start:.1f} s", flush=True)
        rng = random.Random(0)
        start = time.perf_counter()
        if args.bulk:
            rated = rate_bulk(session, campaign, list(range(hits - 1)), rng)
        else:
            for hit in range(hits - 1):  # the last HIT is rated later: the "new ratings"
                careless = rng.random() < 0.15
                factories.rate_hit(session, campaign, hit, f"w{hit}",
                                   factories.careless if careless else factories.good, seed=hit)
            rated = 100 * (hits - 1)
        print(f"rated {rated} slots in {time.perf_counter() - start:.1f} s", flush=True)
        create_user(session, "bench", "benchmark password")
        session.commit()
        campaign_id = session.query(Campaign.id).scalar()
    return campaign_id, hits, rng


def _reuse(sessions) -> bool:
    """Whether a kept database holds a rated campaign; if so its last HIT is made unrated again."""
    from sqlalchemy import delete, select

    from da_platform.db.models import Assignment, Hit, Rating, Worker

    with sessions() as session:
        campaign_id = session.query(Campaign.id).scalar()
        if campaign_id is None:
            return False
        last = session.scalar(select(Hit.id).where(Hit.campaign_id == campaign_id).order_by(Hit.index.desc()))
        mine = select(Assignment.id).where(Assignment.hit_id == last)
        session.execute(delete(Rating).where(Rating.assignment_id.in_(mine)))
        session.execute(delete(Assignment).where(Assignment.hit_id == last))
        session.execute(delete(Worker).where(~Worker.id.in_(select(Assignment.worker_id))))
        session.commit()
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--bulk", action="store_true", help="write the ratings with Core executemany (for size)")
    parser.add_argument("--keep", type=Path, help="keep the SQLite database and images in this folder (a "
                        "campaign already kept there is reused: its last HIT's ratings are removed first)")
    args = parser.parse_args()
    factories.QUALITY.clear()
    factories.QUALITY.update(SYSTEMS)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        upgrade(url)
        app = create_app({"TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url,
                          "IMAGE_FOLDER": str(Path(folder) / "images"), "PUBLIC_URL": "http://127.0.0.1",
                          "EXPORT_FOLDER": str(Path(scratch) / "exports")})
        sessions = app.config["SESSIONS"]
        if args.keep and _reuse(sessions):
            print("reusing the campaign kept in", folder, "(its last HIT's ratings removed)", flush=True)
            with sessions() as session:
                campaign_id = session.query(Campaign.id).scalar()
                hits = len(session.get(Campaign, campaign_id).hits)
            rng = random.Random(0)
        else:
            campaign_id, hits, rng = _build_and_rate(sessions, folder, args)
        client = app.test_client()
        page = client.get("/admin/login").text
        token = first_group(CSRF_RE, page)
        client.post("/admin/login", data={"csrf_token": token, "username": "bench", "password": "benchmark password"})
        base = f"/admin/campaigns/{campaign_id}"
        with app.app_context():
            cache = analysis_cache()
        rows: list[tuple[str, float, int]] = []
        seconds, first = timed(client, base)
        rows.append((f"first campaign page after start (status {first.status_code})", seconds, len(first.data)))
        cache.wait(campaign_id)
        with sessions() as session:
            state = cache.get(session, session.get(Campaign, campaign_id))
        counted, seconds = computed(state)
        rows.append(("(the analysis itself, off the request path" + (", after the page answered"
                                                                     if first.status_code == 503 else "")
                     + f", {counted:,} ratings)", seconds, 0))
        for name, path in (("campaign page", base), ("p-value heatmap", f"{base}/pvalues.png"),
                           ("workers page", f"{base}/workers"), ("worker page", f"{base}/workers/1"),
                           ("worker scatter + timeline", None)):
            if path is None:
                a, _ = best_of(client, f"{base}/workers/1/scatter.png")
                b, size = best_of(client, f"{base}/workers/1/timeline.png")
                rows.append((name, a + b, size))
                continue
            seconds, size = best_of(client, path)
            rows.append((name, seconds, size))
            print(f"{name}: {seconds:.2f} s", flush=True)
        exports_ = prepared_exports(app)
        for kind, query in EXPORTS:  # large exports: prepared off the request path, then downloaded
            url = f"{base}/export/{kind}?{query}"
            seconds, link = timed(client, url)
            how = ": in the request)"
            if link.status_code == 303:  # a large campaign: the link starts nothing, the page's button does
                seconds, link = press(client, f"{base}/prepared/{kind}?{query}", base)
                how = ": preparation started)"
            rows.append((f"{kind} export (status {link.status_code}" + how, seconds, len(link.data)))
            seconds, status_page = timed(client, f"{base}/prepared/{kind}?{query}")
            rows.append((f"{kind} status page (status {status_page.status_code})", seconds, len(status_page.data)))
            started = time.perf_counter()
            exports_.wait(campaign_id)
            rows.append((f"({kind} prepared in the background, analysis included)", time.perf_counter() - started, 0))
            seconds, size = best_of(client, url)
            rows.append((f"{kind} download, prepared file", seconds, size))
            print(f"{kind}: {rows[-2][1]:.1f} s to prepare, {seconds:.2f} s to download", flush=True)
        for kind, build in (("bundle", bundle), ("ratings", ratings), ("wmt", wmt)):
            with sessions() as session:  # what the CLI does (synchronously), analysis included
                started = time.perf_counter()
                made = build(session, session.get(Campaign, campaign_id), partial=True)
                rows.append((f"({kind} export built synchronously, as by the CLI)", time.perf_counter() - started,
                             len(made.content)))
        with sessions() as session:  # 100 new ratings: the cached analysis is out of date
            campaign = session.get(Campaign, campaign_id)
            if args.bulk:
                rate_bulk(session, campaign, [hits - 1], rng)
            else:
                factories.rate_hit(session, campaign, hits - 1, f"w{hits - 1}", seed=hits - 1)
        seconds, after = timed(client, base)
        current = b'data-current="1"' in after.data
        rows.append((f"first campaign page after 100 new ratings ({'up to date' if current else 'marked out of date'})",
                     seconds, len(after.data)))
        cache.wait(campaign_id)
        with sessions() as session:
            state = cache.get(session, session.get(Campaign, campaign_id))
        rows.append(("(its recomputation" + ("" if current else ", in the background") + ")", computed(state)[1], 0))
        seconds, size = best_of(client, base)
        rows.append(("campaign page, recomputed analysis", seconds, size))
        seconds, link = press(client, f"{base}/prepared/bundle?partial=1", base)
        rows.append((f"bundle export button after new ratings (status {link.status_code}: stale, prepared again)",
                     seconds, len(link.data)))
        seconds, status_page = timed(client, f"{base}/prepared/bundle?partial=1")
        rows.append(("bundle status page, out-of-date file offered" if b'id="export-older"' in status_page.data
                     else "bundle status page", seconds, len(status_page.data)))
        exports_.wait(campaign_id)
        print("| request | best of 3 | bytes |\n|---|---|---|")
        for name, seconds, size in rows:
            print(f"| {name} | {seconds:.2f} s | {size:,} |")


if __name__ == "__main__":
    main()
