"""A campaign's analysis kept between requests, recomputed when its inputs change.

The analysis (``da_platform.results.campaign_analysis.CampaignAnalysis``) depends on the campaign's ratings,
its data decisions and its quality-control settings. Each use first reads a cheap **stamp** of those
inputs (count, largest and sum of the rating ids, and how many of them are of abandoned assignments or of
assignments awaiting the provider's confirmation;
count, largest id and latest change of the review decisions; the quality-control policy and the name;
count and largest id of the judge scores). A cached analysis is used only while its stamp is the current
one, so no analysis is ever shown as current once a rating, a decision or a judge score has arrived, or
a HIT was abandoned. The stamp is read *before* the inputs are loaded, so an analysis holds at least
what its stamp says.

The pages never compute an analysis in the request: whenever the cached one is not current, a
computation starts off the request path (one per campaign at a time) and the request waits for it at
most ``wait_seconds`` (``ANALYSIS_WAIT_SECONDS``, default :data:`WAIT_SECONDS`). Meanwhile the pages get
the previous analysis marked as out of date (:class:`Cached` ``.current`` False, with what changed), or
none yet ("computing…", a page that reloads itself). Campaigns of ``process_from`` ratings or more
(``ANALYSIS_PROCESS_FROM``, default :data:`PROCESS_FROM`) are computed in a separate process (so a
long computation does not compete with the requests for the interpreter lock; a fresh process each
time, so its memory is returned), smaller ones in a thread (no process to start). Exports (``wait``)
compute in the call when the cached analysis is not current. Each app process keeps its own copy
(memory: about that of one analysis per campaign viewed).
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, sessionmaker

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import (
    Answer,
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignSystem,
    Hit,
    JudgeScore,
    Rating,
    ReviewDecision,
    utcnow,
)
from da_platform.rating.campaign_ratings import awaiting_confirmation
from da_platform.results.campaign_analysis import CampaignAnalysis

PROCESS_FROM = 50_000
"""Default: campaigns with at least this many ratings are analysed in a separate process (below: a thread)."""
BACKGROUND_FROM = PROCESS_FROM
"""Default: exports of campaigns with at least this many ratings are prepared off the request path
(``da_platform.exports.prepared``)."""
WAIT_SECONDS = 2.0
"""Default: how long a page waits for a computation it started before it answers "computing…"."""


@dataclass(frozen=True)
class Stamp:
    """What the analysis of a campaign was computed from (equal stamps: equal inputs)."""

    ratings: int
    rating_max_id: int
    rating_id_sum: int
    abandoned: int  # ratings of abandoned assignments (left out of the analysis)
    decisions: int
    decision_max_id: int
    decision_changed: str
    settings: str
    judge_scores: tuple[int, int] = (0, 0)  # count and largest id of the imported judge scores of its answers
    unconfirmed: int = 0  # ratings of MTurk/Prolific assignments the provider has not confirmed (left out)

    def changes_since(self, older: Stamp) -> str:
        """What changed from ``older`` to this stamp, for the page."""
        parts = []
        if (self.ratings, self.rating_max_id, self.rating_id_sum) != (older.ratings, older.rating_max_id,
                                                                      older.rating_id_sum):
            new = self.ratings - older.ratings
            parts.append(f"{new:,} new ratings" if new > 0 else "the ratings changed")
        if self.abandoned != older.abandoned:
            parts.append("HITs were abandoned" if self.abandoned > older.abandoned else "abandoned HITs were resumed")
        if self.unconfirmed != older.unconfirmed:
            parts.append("HITs awaiting the provider's confirmation were confirmed or released"
                         if self.unconfirmed < older.unconfirmed else "HITs await the provider's confirmation")
        if (self.decisions, self.decision_max_id, self.decision_changed) != (
                older.decisions, older.decision_max_id, older.decision_changed):
            parts.append("new decisions")
        if self.settings != older.settings:
            parts.append("the quality-control settings changed")
        if self.judge_scores != older.judge_scores:
            parts.append("judge scores were imported")
        return ", ".join(parts) or "the inputs changed"


def read_stamp(session: Session, campaign: Campaign) -> Stamp:
    """The campaign's current stamp: two aggregate queries over indexed columns."""
    abandoned = func.sum(case((Assignment.status == AssignmentStatus.abandoned, 1), else_=0))
    unconfirmed = func.sum(case((awaiting_confirmation(), 1), else_=0))
    ratings, max_id, id_sum, left, waiting = session.execute(
        select(func.count(Rating.id), func.coalesce(func.max(Rating.id), 0), func.coalesce(func.sum(Rating.id), 0),
               func.coalesce(abandoned, 0), func.coalesce(unconfirmed, 0))
        .join(Assignment, Assignment.id == Rating.assignment_id).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id)).one()
    decisions, decision_max, changed = session.execute(
        select(func.count(ReviewDecision.id), func.coalesce(func.max(ReviewDecision.id), 0),
               func.max(ReviewDecision.updated_at))
        .where(ReviewDecision.campaign_id == campaign.id)).one()
    qc = CampaignSettings.of(campaign).stored_qc
    settings = json.dumps([campaign.name, None if qc is None else qc.to_dict()], sort_keys=True, default=str)
    judged, judge_max = session.execute(
        select(func.count(JudgeScore.id), func.coalesce(func.max(JudgeScore.id), 0))
        .join(Answer, Answer.id == JudgeScore.answer_id)
        .join(CampaignSystem, CampaignSystem.system_id == Answer.system_id)
        .where(CampaignSystem.campaign_id == campaign.id)).one()
    return Stamp(int(ratings), int(max_id), int(id_sum), int(left), int(decisions), int(decision_max),
                 "" if changed is None else str(changed), settings, (int(judged), int(judge_max)), int(waiting))


@dataclass
class Cached:
    """An analysis with when and from what it was computed; ``current`` False: out of date (a newer
    one is being computed), ``changes`` says what arrived since. ``analysis`` None: none yet."""

    analysis: CampaignAnalysis | None
    stamp: Stamp | None
    computed_at: datetime | None
    seconds: float | None
    current: bool
    changes: str = ""
    computing: bool = False
    error: str | None = None  # the last background computation failed with this
    latest: Stamp | None = None  # the stamp read by this call (the inputs as they are now)


def compute(session: Session, campaign: Campaign) -> CampaignAnalysis:
    """The campaign's analysis with everything the pages use computed now (not lazily later)."""
    analysis = CampaignAnalysis(session, campaign)
    _ = analysis.result, analysis.worker_qc
    return analysis


@dataclass
class _Entry:
    analysis: CampaignAnalysis | None = None
    stamp: Stamp | None = None
    computed_at: datetime | None = None
    seconds: float | None = None
    running: Stamp | None = None  # the stamp a background computation is working on
    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None


class AnalysisCache:
    """Per-process cache of campaign analyses (thread-safe); ``sessions`` opens the background
    computations' own sessions."""

    def __init__(self, sessions: sessionmaker[Session], *, process_from: int = PROCESS_FROM,
                 wait_seconds: float = WAIT_SECONDS,
                 compute: Callable[[Session, Campaign], CampaignAnalysis] = compute) -> None:
        self.sessions = sessions
        self.process_from = process_from
        self.wait_seconds = wait_seconds
        self._compute = compute
        self._entries: dict[int, _Entry] = {}
        self._counts: dict[int, tuple[Stamp, dict[str, int]]] = {}
        self._lock = threading.Lock()

    def get(self, session: Session, campaign: Campaign, *, wait: bool = False) -> Cached:
        """The campaign's analysis: the cached one if its stamp is current; else recomputed in this
        call (``wait``: exports), or off the request path and waited for at most ``wait_seconds``
        (then the previous one comes back marked out of date, or none yet)."""
        stamp = read_stamp(session, campaign)
        deadline = time.monotonic() + self.wait_seconds
        tried = False  # a computation of this very stamp ran (or runs) for this call
        while True:
            with self._lock:
                entry = self._entries.setdefault(campaign.id, _Entry())
                if entry.stamp == stamp and entry.analysis is not None:
                    return self._view(entry, current=True, latest=stamp)
                if wait:
                    break
                if entry.running is None:
                    if tried:  # it ended without a result for this stamp (entry.error says why)
                        return self._pending(entry, stamp)
                    self._start(entry, campaign.id, stamp)  # one computation at a time per campaign
                tried = tried or entry.running == stamp
                done = entry.done
            left = deadline - time.monotonic()
            if left <= 0 or not done.wait(left):
                with self._lock:
                    return self._pending(entry, stamp)
        view = self._store_now(entry, session, campaign, stamp)
        view.latest = stamp
        return view

    def rating_counts(self, session: Session, campaign: Campaign, stamp: Stamp) -> dict[str, int]:
        """``progress.ratings_by_system`` of the campaign, kept while ``stamp`` (read before, by
        :meth:`get`) is current: counted afresh whenever the ratings changed."""
        from da_platform.campaigns.progress import ratings_by_system

        with self._lock:
            kept = self._counts.get(campaign.id)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        counts = _add_new_ratings(session, campaign, *kept, stamp) if kept is not None else None
        if counts is None:
            counts = ratings_by_system(session, campaign)
        with self._lock:
            self._counts[campaign.id] = (stamp, counts)
        return counts

    def wait(self, campaign_id: int, timeout: float | None = None) -> bool:
        """Block until the campaign's background computation (if any) has finished (for tests and
        benchmarks); whether it has."""
        with self._lock:
            entry = self._entries.get(campaign_id)
            if entry is None or entry.running is None:
                return True
        return entry.done.wait(timeout)

    def _view(self, entry: _Entry, *, current: bool, latest: Stamp | None = None) -> Cached:
        return Cached(entry.analysis, entry.stamp, entry.computed_at, entry.seconds, current, latest=latest)

    def _pending(self, entry: _Entry, stamp: Stamp) -> Cached:
        """(The caller holds the lock.) What the pages show while no current analysis is ready: the
        previous one marked out of date (what changed since), or none; whether one is being computed."""
        view = self._view(entry, current=False, latest=stamp)
        view.changes = stamp.changes_since(entry.stamp) if entry.stamp is not None else ""
        view.computing, view.error = entry.running is not None, entry.error
        return view

    def _store_now(self, entry: _Entry, session: Session, campaign: Campaign, stamp: Stamp) -> Cached:
        started = utcnow()
        analysis = self._compute(session, campaign)
        seconds = (utcnow() - started).total_seconds()
        with self._lock:
            if entry.computed_at is None or started >= entry.computed_at:
                entry.analysis, entry.stamp, entry.computed_at, entry.seconds = analysis, stamp, started, seconds
        return Cached(analysis, stamp, started, seconds, current=True)

    def _start(self, entry: _Entry, campaign_id: int, stamp: Stamp) -> None:
        """Start a background computation (the caller holds the lock)."""
        entry.running = stamp
        entry.done.clear()
        threading.Thread(target=self._background, args=(entry, campaign_id, stamp), daemon=True,
                         name=f"analysis-{campaign_id}").start()

    def _background(self, entry: _Entry, campaign_id: int, stamp: Stamp) -> None:
        """(In a thread of its own.) Compute, in a fresh process from ``process_from`` ratings (the
        thread only waits), else in this thread, and store the result.

        The stamp was read before anything is loaded: the analysis holds at least what the stamp says
        (more only makes the next stamp differ, so it is recomputed)."""
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        try:
            started = utcnow()
            if stamp.ratings < self.process_from:
                with self.sessions() as session:
                    campaign = session.get(Campaign, campaign_id)
                    analysis = None if campaign is None else self._compute(session, campaign)
            else:
                url = self.sessions.kw["bind"].url.render_as_string(hide_password=False)
                with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
                    analysis = pool.submit(_compute_from_url, url, campaign_id, self._compute).result()
            if analysis is not None:
                with self._lock:
                    if entry.computed_at is None or started >= entry.computed_at:
                        entry.analysis, entry.stamp, entry.computed_at = analysis, stamp, started
                        entry.seconds = (utcnow() - started).total_seconds()
                entry.error = None
        except Exception as error:  # noqa: BLE001 - shown on the page, the next request tries again
            entry.error = f"{type(error).__name__}: {error}"
        finally:
            with self._lock:
                if entry.running == stamp:
                    entry.running = None
                    entry.done.set()


def _add_new_ratings(session: Session, campaign: Campaign, old: Stamp, counts: dict[str, int],
                     stamp: Stamp) -> dict[str, int] | None:
    """``counts`` (ratings per system at ``old``) plus the ratings stored since (ids above ``old``'s
    largest: a range of the primary key), if they are exactly what separates ``old`` from ``stamp``
    (count and id sum); else None (count afresh)."""
    from da_platform.db.models import Slot, System

    new = session.execute(select(Rating.id, Rating.slot_id).where(Rating.id > old.rating_max_id)).all()
    systems = dict(session.execute(
        select(Slot.id, System.name).join(System, System.id == Slot.system_id).join(Hit, Hit.id == Slot.hit_id)
        .where(Hit.campaign_id == campaign.id, Slot.id.in_({slot for _, slot in new}))).all()) if new else {}
    mine = [(rating, systems[slot]) for rating, slot in new if slot in systems]
    if (old.ratings + len(mine), old.rating_id_sum + sum(r for r, _ in mine)) != (stamp.ratings, stamp.rating_id_sum):
        return None
    added = dict(counts)
    for _, name in mine:
        added[name] = added.get(name, 0) + 1
    return added


def _compute_from_url(url: str, campaign_id: int,
                      compute: Callable[[Session, Campaign], CampaignAnalysis]) -> CampaignAnalysis | None:
    """(In the background process.) The analysis of the campaign in the database at ``url``."""
    from da_platform.db.engine import make_engine, session_factory

    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            campaign = session.get(Campaign, campaign_id)
            return None if campaign is None else compute(session, campaign)
    finally:
        engine.dispose()


def app_cache(app) -> AnalysisCache:
    """The Flask app's analysis cache (made on first use): a page waits ``ANALYSIS_WAIT_SECONDS`` at most
    for a computation; ``ANALYSIS_PROCESS_FROM`` ratings and more are analysed in a separate process."""
    cache = app.extensions.get("da_analysis_cache")
    if cache is None:
        cache = app.extensions.setdefault("da_analysis_cache", AnalysisCache(
            app.config["SESSIONS"], process_from=int(app.config.get("ANALYSIS_PROCESS_FROM", PROCESS_FROM)),
            wait_seconds=float(app.config.get("ANALYSIS_WAIT_SECONDS", WAIT_SECONDS))))
    return cache
