"""A campaign's ranking is read through ``ranked_result`` / ``ranked_group``: the ranking when there is one,
a ``NotRankedError`` naming the campaign when there is none (never a ``None`` to trip over later)."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from da_platform.results.campaign_analysis import CampaignAnalysis, NotRankedError
from hit_builder.storage import LocalImageStorage
from tests import dashboard_factories as factories


def test_a_campaign_without_ratings_has_no_ranking_to_read(sessions: sessionmaker[Session], tmp_path: Path) -> None:
    with sessions() as session:
        campaign = factories.build(session, LocalImageStorage(tmp_path / "images"))
        analysis = CampaignAnalysis(session, campaign)
    assert not analysis.ranked and analysis.result is None
    with pytest.raises(NotRankedError, match="campaign 'dash' has no ranking"):
        analysis.ranked_result  # noqa: B018 - the property raises
    with pytest.raises(NotRankedError, match="campaign 'dash' has no ranking"):
        analysis.ranked_group  # noqa: B018 - the property raises


def test_a_ranked_campaign_reads_the_same_ranking(sessions: sessionmaker[Session], tmp_path: Path) -> None:
    with sessions() as session:
        campaign = factories.build(session, LocalImageStorage(tmp_path / "images"))
        for i, name in enumerate(["careful", "steady"]):
            factories.rate_hit(session, campaign, i, name, factories.good, seed=i,
                               start=factories.START + timedelta(hours=i))
        analysis = CampaignAnalysis(session, campaign)
    assert analysis.ranked
    assert analysis.ranked_result is analysis.result
    assert analysis.ranked_group is analysis.group
    assert set(analysis.ranked_group.ranking.systems) == set(factories.QUALITY)
