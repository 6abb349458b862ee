"""Per-request helpers: the campaign and worker of the URL, and the campaign's analysis.

The analysis comes from the app's :class:`da_platform.analysis_cache.AnalysisCache` (recomputed off
the request path when a rating or a decision has arrived) and is kept in ``flask.g`` for the rest of
the request; ``g.analysis_state`` tells the pages when it was computed and whether it is current.
Until a campaign's first analysis is ready the pages answer "computing…" and reload themselves
(:class:`AnalysisPending`).
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
    """A campaign's first analysis (since the server started) is still being computed."""

    def __init__(self, campaign: Campaign, state: Cached) -> None:
        super().__init__(campaign.name)
        self.campaign, self.state = campaign, state


REFRESH_SECONDS = 2


@bp.errorhandler(AnalysisPending)
def _analysis_pending(pending: AnalysisPending):
    """"Computing…": the page reloads itself (a meta refresh, no script) until the analysis is ready;
    after a failure it says why and waits for a reload (which tries again)."""
    page = render_template("admin/computing.html", campaign=pending.campaign, state=pending.state,
                           refresh=REFRESH_SECONDS)
    return page, 503, {"Retry-After": str(REFRESH_SECONDS)}


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


def rating_counts(campaign: Campaign) -> dict[str, int]:
    """Ratings per system for the progress panel, kept with the analysis while no rating arrived
    (call after :func:`campaign_analysis`, which read the current stamp)."""
    return analysis_cache().rating_counts(get_session(), campaign, g.analysis_state.latest)
