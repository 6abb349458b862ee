"""Benchmark: dashboard page loads on a campaign of realistic size (everything recomputed per request).

Usage (from the repository root):  python benchmarks/dashboard_pages.py [--questions 300] [--passes 5]

Builds a campaign with the real builder (7 systems x ``questions`` items, ``passes`` passes: 7 x 300 x 5
= 10,500 items = 150 HITs of 100), rates every HIT (one worker each, 15 % careless) on a SQLite file,
logs in with the Flask test client and times, best of 3: the campaign page (load ratings + QC +
scores + ranking + planning), the p-value heatmap PNG, the workers page, one worker page with its
two plots, and the reproducibility bundle. Target: each page under 2 s at this size.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from da_platform.db import upgrade  # noqa: E402
from da_platform.models import Campaign  # noqa: E402
from da_platform.web import create_app  # noqa: E402
from da_platform.web.admin.accounts import create_user  # noqa: E402
from hit_builder.build import build_campaign  # noqa: E402
from hit_builder.storage import LocalImageStorage  # noqa: E402
from tests import dashboard_factories as factories  # noqa: E402
from tests.factories import make_test_set  # noqa: E402

SYSTEMS = {f"system-{i}": 85 - 7 * i for i in range(7)}


def best_of(client, url: str, repeat: int = 3) -> tuple[float, int]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return min(times), len(response.data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    factories.QUALITY.clear()
    factories.QUALITY.update(SYSTEMS)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        upgrade(url)
        app = create_app({"TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url,
                          "IMAGE_FOLDER": str(Path(folder) / "images"), "PUBLIC_URL": "http://127.0.0.1"})
        sessions = app.config["SESSIONS"]
        start = time.perf_counter()
        with sessions() as session:
            test_set = make_test_set(session, name="bench", questions=args.questions, systems=tuple(SYSTEMS))
            campaign = build_campaign(session, name="bench", test_set=test_set, passes=args.passes, seed=1,
                                      storage=LocalImageStorage(Path(folder) / "images"))
            session.commit()
            print(f"built {len(campaign.hits)} HITs in {time.perf_counter() - start:.1f} s")
            rng = random.Random(0)
            start = time.perf_counter()
            for hit in range(len(campaign.hits)):
                careless = rng.random() < 0.15
                factories.rate_hit(session, campaign, hit, f"w{hit}", factories.careless if careless else factories.good,
                                   seed=hit)
            print(f"rated {100 * len(campaign.hits)} slots in {time.perf_counter() - start:.1f} s")
            create_user(session, "bench", "benchmark password")
            session.commit()
            campaign_id = session.query(Campaign.id).scalar()
        client = app.test_client()
        page = client.get("/admin/login").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        client.post("/admin/login", data={"csrf_token": token, "username": "bench", "password": "benchmark password"})
        base = f"/admin/campaigns/{campaign_id}"
        rows = []
        for name, path in (("campaign page", base), ("p-value heatmap", f"{base}/pvalues.png"),
                           ("workers page", f"{base}/workers"), ("worker page", f"{base}/workers/1"),
                           ("worker scatter + timeline", None), ("bundle export", f"{base}/export/bundle")):
            if path is None:
                a, _ = best_of(client, f"{base}/workers/1/scatter.png")
                b, size = best_of(client, f"{base}/workers/1/timeline.png")
                rows.append((name, a + b, size))
                continue
            seconds, size = best_of(client, path)
            rows.append((name, seconds, size))
        print("| request | best of 3 | bytes |\n|---|---|---|")
        for name, seconds, size in rows:
            print(f"| {name} | {seconds:.2f} s | {size:,} |")


if __name__ == "__main__":
    main()
