"""Item-level correlations of automatic metrics with a campaign's human item z-scores (``validate-metrics``
prints them beside the system-level table)."""
from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from analysis.correlation import CorrelationResult
from analysis.metrics.base import Metric
from analysis.metrics.item_level import item_level
from analysis.metrics.scoring import SystemCorpus
from da_platform.db.models import Campaign, Question
from da_platform.results.campaign_analysis import CampaignAnalysis


def item_correlations(session: Session, campaign: Campaign, corpora: Sequence[SystemCorpus],
                      metrics: Sequence[Metric]) -> dict[str, CorrelationResult] | None:
    """Per metric, the correlation of its sentence scores with the campaign's human item z-scores (empty: fewer
    than 3 rated items); None when no ratings are kept after quality control."""
    group = CampaignAnalysis(session, campaign).group
    ids = list(session.scalars(select(Question.external_id).where(Question.test_set_id == campaign.test_set_id)
                               .order_by(Question.id)))
    if group is None:
        return None
    items = group.scores.items
    item_z = {(s, i): float(z) for s, i, z in zip(items.system.tolist(), items.item.tolist(), items.z.tolist())}
    return item_level(corpora, metrics, ids, item_z)
