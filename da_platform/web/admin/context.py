"""Per-request helpers: the campaign and worker of the URL, and the campaign's analysis.

The analysis is computed from the database at most once per request (kept in ``flask.g``), not
cached across requests: every page load recomputes it, which is fine for campaigns of a few
hundred HITs; a longer-lived cache would need invalidating on every new rating and decision.
"""
from __future__ import annotations

from flask import abort, g
from sqlalchemy import select

from da_platform.campaign_analysis import CampaignAnalysis
from da_platform.models import Assignment, Campaign, Hit, Worker
from da_platform.web.database import get_session


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
    if not took_part:
        abort(404)
    return worker


def campaign_analysis(campaign: Campaign) -> CampaignAnalysis:
    """The campaign's analysis, computed once per request."""
    cache = g.setdefault("campaign_analyses", {})
    if campaign.id not in cache:
        cache[campaign.id] = CampaignAnalysis(get_session(), campaign)
    return cache[campaign.id]
