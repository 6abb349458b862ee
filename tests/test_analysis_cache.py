"""The campaign analysis cached across requests: reused while nothing changed, never shown as current
after a new rating or decision, computed off the request path (a thread; a process for large campaigns),
and "computing…" while a page has none yet.

Campaigns are built by the real builder and rated with tests/dashboard_factories.py.
"""
from __future__ import annotations

import re
import secrets
import threading

import pytest
from sqlalchemy import delete, func, select

from da_platform.analysis_cache import (
    AnalysisCache,
    _add_new_ratings,
    compute,
    read_stamp,
)
from da_platform.campaign_analysis import CampaignAnalysis
from da_platform.models import Campaign, Rating, ReviewDecision, Worker
from da_platform.web.admin.accounts import create_user
from da_platform.web.admin.context import analysis_cache
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD, login
from tests.web_factories import make_web_env


@pytest.fixture
def env(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path)
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        campaign = factories.build(session, env.storage, passes=2, hostile=False)
        factories.rate_hit(session, campaign, 0, "first", seed=1)
        env.campaign_id = campaign.id
    return env


class Counting:
    """The real ``compute``, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, session, campaign):
        self.calls += 1
        return compute(session, campaign)


def ranking_of(analysis: CampaignAnalysis) -> list[tuple[str, float]]:
    group = analysis.group
    by_system = group.scores.by_system()
    return [(name, by_system[name].z) for name in group.ranking.systems]


def exclude(env, worker: str) -> None:
    with env.sessions() as session:
        worker_id = session.scalar(select(Worker.id).where(Worker.external_id == worker))
        session.add(ReviewDecision(campaign_id=env.campaign_id, worker_id=worker_id, action="exclude_data",
                                   use_data=False, reason="test", request_token=secrets.token_hex(16), status="done"))
        session.commit()


def test_reused_while_nothing_changes_and_recomputed_on_a_rating_or_a_decision(env) -> None:
    counting = Counting()
    cache = AnalysisCache(env.sessions, compute=counting, wait_seconds=120)
    with env.sessions() as session:
        campaign = session.get(Campaign, env.campaign_id)
        first = cache.get(session, campaign)
        again = cache.get(session, campaign)
        assert first.current and again.current and again.analysis is first.analysis and counting.calls == 1
        assert first.stamp.ratings == 100 and len(first.analysis.table) == 100

        factories.rate_hit(session, campaign, 1, "second", seed=2)
        after_rating = cache.get(session, campaign)
        assert after_rating.current and counting.calls == 2 and after_rating.stamp.ratings == 200
        fresh = CampaignAnalysis(session, campaign)
        assert len(after_rating.analysis.table) == len(fresh.table) == 200
        assert ranking_of(after_rating.analysis) == ranking_of(fresh)

        exclude(env, "second")
        after_decision = cache.get(session, campaign)
        assert counting.calls == 3 and after_decision.current
        assert set(after_decision.analysis.excluded) == {"pool:second"}
        assert cache.get(session, campaign).analysis is after_decision.analysis and counting.calls == 3


class Held:
    """The real ``compute``, held until ``release`` is set; ``started`` is set (and ``thread`` kept) when it runs."""

    def __init__(self) -> None:
        self.started, self.release, self.thread = threading.Event(), threading.Event(), None

    def __call__(self, session, campaign):
        self.thread = threading.current_thread()
        self.started.set()
        assert self.release.wait(120)
        return compute(session, campaign)


def test_a_small_campaign_is_analysed_off_the_request_path_and_waited_for_briefly(env) -> None:
    held = Held()
    cache = AnalysisCache(env.sessions, compute=held, wait_seconds=0.2)
    with env.sessions() as session:
        campaign = session.get(Campaign, env.campaign_id)
        first = cache.get(session, campaign)  # answers although the computation has not finished
        assert first.analysis is None and not first.current and first.computing and first.latest.ratings == 100
        assert held.started.wait(60) and held.thread is not threading.current_thread()
        assert cache.get(session, campaign).computing  # the one computation still runs: none started again
        held.release.set()
        assert cache.wait(campaign.id, timeout=120)
        ready = cache.get(session, campaign)
        assert ready.current and ready.stamp.ratings == 100 and len(ready.analysis.table) == 100

        quick = AnalysisCache(env.sessions, wait_seconds=120)  # done within the wait: the page gets it at once
        assert quick.get(session, campaign).current


def test_a_failed_computation_is_reported_not_retried_in_a_loop(env) -> None:
    calls = []

    def failing(session, campaign):
        calls.append(1)
        raise RuntimeError("out of memory")

    cache = AnalysisCache(env.sessions, compute=failing, wait_seconds=60)
    with env.sessions() as session:
        campaign = session.get(Campaign, env.campaign_id)
        state = cache.get(session, campaign)
    assert state.analysis is None and not state.computing and state.error == "RuntimeError: out of memory"
    assert len(calls) == 1


def test_the_first_view_says_computing_and_reloads_itself(database_url, tmp_path) -> None:
    env = make_web_env(database_url, tmp_path, ANALYSIS_WAIT_SECONDS=0)
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        campaign = factories.build(session, env.storage, hostile=False)
        factories.rate_hit(session, campaign, 0, "first", seed=1)
        campaign_id = campaign.id
    client = env.app.test_client()
    login(client)
    base = f"/admin/campaigns/{campaign_id}"
    first = client.get(f"{base}/workers")
    assert first.status_code == 503 and first.headers["Retry-After"] == "2"
    assert '<meta http-equiv="refresh" content="2">' in first.text
    assert '<h1 id="computing">Computing…</h1>' in first.text
    assert "The analysis of dash (100 ratings) is being computed off the request path" in first.text
    with env.app.app_context():
        assert analysis_cache().wait(campaign_id, timeout=120)
    assert "from 100 ratings; up to date" in state_of(client.get(f"{base}/workers").text)


@pytest.mark.slow
def test_large_campaigns_are_analysed_in_the_background_and_shown_out_of_date_meanwhile(env) -> None:
    cache = AnalysisCache(env.sessions, process_from=1, wait_seconds=0)
    with env.sessions() as session:
        campaign = session.get(Campaign, env.campaign_id)
        pending = cache.get(session, campaign)
        assert pending.analysis is None and not pending.current and pending.computing
        assert cache.wait(campaign.id, timeout=300)
        ready = cache.get(session, campaign)
        assert ready.current and ready.stamp.ratings == 100

        factories.rate_hit(session, campaign, 1, "second", seed=2)
        stale = cache.get(session, campaign)
        assert not stale.current and stale.analysis is ready.analysis and stale.computing
        assert stale.changes == "100 new ratings"
        assert cache.wait(campaign.id, timeout=300)
        renewed = cache.get(session, campaign)
        assert renewed.current and renewed.stamp.ratings == 200 and len(renewed.analysis.table) == 200


def state_of(page: str) -> str:
    return re.sub(r"\s+", " ", re.search(r'<p[^>]*id="analysis-state"[^>]*>(.*?)</p>', page, re.DOTALL).group(1))


def test_the_pages_say_when_the_analysis_was_computed(env) -> None:
    client = env.app.test_client()
    login(client)
    base = f"/admin/campaigns/{env.campaign_id}"
    for path in (base, f"{base}/workers", f"{base}/workers/1"):
        page = client.get(path)
        assert page.status_code == 200
        assert "from 100 ratings; up to date" in state_of(page.text)
    assert '<span class="big">100</span> ratings' in client.get(base).text  # the live progress panel
    with env.sessions() as session:
        factories.rate_hit(session, session.get(Campaign, env.campaign_id), 1, "second", seed=2)
    page = client.get(base).text
    assert "from 200 ratings; up to date" in state_of(page)
    assert '<span class="big">200</span> ratings' in page


def test_the_progress_counts_are_recounted_after_a_rating(env) -> None:
    from da_platform.progress import ratings_by_system

    cache = AnalysisCache(env.sessions)
    with env.sessions() as session:
        campaign = session.get(Campaign, env.campaign_id)
        first = cache.rating_counts(session, campaign, cache.get(session, campaign).latest)
        assert first == ratings_by_system(session, campaign) and sum(first.values()) == 100
        old_stamp = cache.get(session, campaign).latest
        factories.rate_hit(session, campaign, 1, "second", seed=2)
        new_stamp = cache.get(session, campaign).latest
        # the new ratings are added to the kept counts (not counted afresh), with the same result
        assert _add_new_ratings(session, campaign, old_stamp, first, new_stamp) == ratings_by_system(session, campaign)
        after = cache.rating_counts(session, campaign, new_stamp)
        assert after == ratings_by_system(session, campaign) and sum(after.values()) == 200
        # a rating removed in between: the kept counts cannot be brought up to date, so they are not
        session.execute(delete(Rating).where(Rating.id == session.scalar(select(func.min(Rating.id)))))
        session.commit()
        assert _add_new_ratings(session, campaign, new_stamp, after, read_stamp(session, campaign)) is None
        again = cache.rating_counts(session, campaign, cache.get(session, campaign).latest)
        assert again == ratings_by_system(session, campaign) and sum(again.values()) == 199


@pytest.mark.slow
def test_the_dashboard_in_background_mode(database_url, tmp_path) -> None:
    env = make_web_env(database_url, tmp_path, ANALYSIS_PROCESS_FROM=1, ANALYSIS_WAIT_SECONDS=0,
                       EXPORT_BACKGROUND_FROM=10**9)  # exports in the request (prepared ones: test_prepared_exports.py)
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        campaign = factories.build(session, env.storage, passes=2, hostile=False)
        factories.rate_hit(session, campaign, 0, "first", seed=1)
        campaign_id = campaign.id
    client = env.app.test_client()
    login(client)
    base = f"/admin/campaigns/{campaign_id}"
    first = client.get(base)
    assert first.status_code == 503 and "is being computed off the request path" in first.text
    with env.app.app_context():
        cache = analysis_cache()
    assert cache.wait(campaign_id, timeout=300)
    assert "from 100 ratings; up to date" in state_of(client.get(base).text)
    with env.sessions() as session:
        factories.rate_hit(session, session.get(Campaign, campaign_id), 1, "second", seed=2)
    stale = client.get(base)
    assert stale.status_code == 200
    assert state_of(stale.text).startswith("<strong>Out of date:</strong> the analysis below was computed")
    assert "from 100 ratings; since then 100 new ratings. A new analysis is being computed" in state_of(stale.text)
    assert cache.wait(campaign_id, timeout=300)
    assert "from 200 ratings; up to date" in state_of(client.get(base).text)
    export = client.get(f"{base}/export/ratings?partial=1")  # exports never use an out-of-date analysis
    assert export.status_code == 200 and export.data.count(b"\n") >= 200


def test_the_workers_page_medians_are_each_workers_median(env) -> None:
    """The workers page computes every worker's median time per item in one pass; each equals numpy's
    median of that worker's timed ratings."""
    import math

    import numpy as np

    from da_platform.web.admin.workers import _median_seconds

    with env.sessions() as session:
        campaign = session.get(Campaign, env.campaign_id)
        factories.rate_hit(session, campaign, 1, "slow", seconds=9, seed=2)
        factories.rate_hit(session, campaign, 2, "partial", seconds=4, slots=30, seed=3)
        analysis = compute(session, campaign)
    table = analysis.table
    for label in table.worker.labels:
        rows = np.flatnonzero(np.array([table.worker.labels[c] == label for c in table.worker.codes]))
        seconds = table.seconds[rows]
        expected = float(np.median(seconds[~np.isnan(seconds)]))
        assert _median_seconds(analysis, label) == expected
    assert {label: _median_seconds(analysis, label) for label in table.worker.labels} == {
        "pool:first": 6.0, "pool:slow": 9.0, "pool:partial": 4.0}
    assert math.isnan(_median_seconds(analysis, "pool:nobody"))
