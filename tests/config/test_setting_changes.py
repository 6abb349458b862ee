"""A command's options laid over a campaign's stored settings: unchanged where an option is not given, checked
whole, and a change that makes no valid setting refused with the field named (SQLite and PostgreSQL)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.review_policy import ReviewPolicy
from da_platform.config.setting_changes import InvalidSettings, changed, review_policy, stored_settings
from da_platform.db.models import Campaign
from da_platform.providers.mturk.settings import MTurkSettings
from hit_builder.storage import LocalImageStorage
from tests.web_factories import make_campaign


def test_changes_replace_only_what_is_given():
    stored = MTurkSettings(reward=Decimal("1.25"), assignments_per_hit=2)
    new = changed(stored, {"reward": Decimal("2.00"), "title": None})
    assert (new.reward, new.assignments_per_hit, new.title) == (Decimal("2.00"), 2, stored.title)


@pytest.mark.parametrize("stored, changes, message", [
    (MTurkSettings(), {"assignments_per_hit": 0}, "^invalid settings: assignments_per_hit: at least 1$"),
    (MTurkSettings(), {"no_such_field": 1}, "^invalid settings: .*no_such_field"),
    (ReviewPolicy(), {"reject_min_pairs": 2}, "^invalid settings: reject_min_pairs: at least 5 "),
])
def test_a_change_that_makes_no_valid_setting_is_refused(stored, changes, message):
    with pytest.raises(InvalidSettings, match=message):
        changed(stored, changes)


def test_a_campaigns_review_policy_is_the_stored_one_with_the_runs_changes(session, tmp_path):
    made = make_campaign(session, LocalImageStorage(tmp_path))
    campaign = session.get(Campaign, made.campaign_id)
    assert review_policy(session, campaign.id) == ReviewPolicy()  # none stored: the default
    CampaignSettings.update(campaign, review=ReviewPolicy(bonus=Decimal("0.30"), reject_min_pairs=9))
    session.flush()

    stored = stored_settings(session, campaign.id).stored_review
    assert stored == ReviewPolicy(bonus=Decimal("0.30"), reject_min_pairs=9)
    policy = review_policy(session, campaign.id, {"reject_min_pairs": 6, "bonus": None})
    assert (policy.bonus, policy.reject_min_pairs, policy.block_rejected) == (Decimal("0.30"), 6, True)
