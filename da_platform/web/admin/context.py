"""Per-request helpers: the campaign and worker of the URL, and the campaign's analysis.

The analysis comes from the app's :class:`da_platform.analysis_cache.AnalysisCache` (recomputed
when a rating or a decision has arrived; large campaigns off the request path) and is kept in
``flask.g`` for the rest of the request; ``g.analysis_state`` tells the pages when it was computed
and whether it is current. Until a large campaign's first analysis is ready the pages answer with
a "being computed" message (:class:`AnalysisPending`).
"""
from __future__ import annotations

from flask import abort, current_app, g, render_template
from sqlalchemy import select

from da_platform.analysis_cache import AnalysisCache, Cached, app_cache
from da_platform.campaign_analysis import CampaignAnalysis
from da_platform.models import Assignment, Campaign, Hit, Worker
from da_platform.web.admin import bp
from da_platform.web.database import get_session


class AnalysisPending(Exception):
    """A large campaign's first analysis is still being computed in the background."""

    def __init__(self, campaign: Campaign, state: Cached) -> None:
        super().__init__(campaign.name)
        self.campaign, self.state = campaign, state


@bp.errorhandler(AnalysisPending)
def _analysis_pending(pending: AnalysisPending):
    message = ("Its analysis is being computed in the background; reload this page in a moment."
               if pending.state.error is None else
               f"Its last analysis failed ({pending.state.error}); reload this page to try again.")
    page = render_template("admin/message.html", title=f"Analysing {pending.campaign.name}", message=message,
                           campaign=None)
    return page, 503, {"Retry-After": "5"}


def analysis_cache() -> AnalysisCache:
    """The app's analysis cache."""
    return app_cache(current_app)


def campaign_or_404(campaign_id: int) -> Campaign:
    campaign = get_session().get(Campaign, campaign_id)
    if campaign is None:
        abort(404)
    return campaign


def worker_or_404(campaign: Campaign, worker_id: int) -> Worker:
    """The worker, if they took part in the campaign."""
    session = get_session()
    worker = session.get(Worker, worker_id)
    took_part = worker is not None and session.scalar(
        select(Assignment.id).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == worker.id).limit(1)) is not None
    if worker is None or not took_part:
        abort(404)
    return worker


def campaign_analysis(campaign: Campaign) -> CampaignAnalysis:
    """The campaign's analysis (cached across requests while current), the same for the whole request;
    its state in ``g.analysis_state``. Raises :class:`AnalysisPending` while there is none yet."""
    cache = g.setdefault("campaign_analyses", {})
    if campaign.id not in cache:
        state = analysis_cache().get(get_session(), campaign)
        if state.analysis is None:
            raise AnalysisPending(campaign, state)
        g.analysis_state = state
        cache[campaign.id] = state.analysis
    return cache[campaign.id]


def current_analysis(campaign: Campaign) -> CampaignAnalysis:
    """The campaign's analysis as of now, for an export: the cached one while current, else computed in
    this request (an export never uses an out-of-date analysis)."""
    cached = analysis_cache().get(get_session(), campaign, wait=True)
    assert cached.analysis is not None and cached.current
    return cached.analysis


def rating_counts(campaign: Campaign) -> dict[str, int]:
    """Ratings per system for the progress panel, kept with the analysis while no rating arrived
    (call after :func:`campaign_analysis`, which read the current stamp)."""
    return analysis_cache().rating_counts(get_session(), campaign, g.analysis_state.latest)
