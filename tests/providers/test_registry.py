"""Every worker source is registered under its :class:`WorkerSource`, and what the platform reads from its
definition holds: who must be confirmed by a provider, the time limits (docs/deploy.md, "How workers
arrive"), the costs (docs/mturk-prolific.md, "Costs", worked by hand) and the launch plans."""
from __future__ import annotations

from decimal import Decimal

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Assignment, Campaign
from da_platform.db.states import WorkerSource
from da_platform.providers.arrival import CompletionKind
from da_platform.providers.mturk.arrival import MTurkSource
from da_platform.providers.mturk.settings import MTurkSettings
from da_platform.providers.pool.arrival import PoolSource
from da_platform.providers.prolific.arrival import ProlificSource
from da_platform.providers.prolific.settings import ProlificSettings
from da_platform.providers.registry import SOURCES, confirmed_sources, source, without_provider
from da_platform.providers.tokens import Tokens


def test_every_source_has_one_definition_under_its_name():
    assert set(SOURCES) == set(WorkerSource)
    for name, definition in SOURCES.items():
        assert definition.name is name and source(name.value) is definition


def test_only_the_providers_must_confirm_an_arrival_and_only_the_pool_is_paid_outside():
    assert set(confirmed_sources()) == {WorkerSource.mturk, WorkerSource.prolific}
    assert without_provider() == (WorkerSource.pool,)


def test_the_time_limits_are_the_documented_defaults_and_follow_the_stored_settings():
    defaults = CampaignSettings().time_limits
    assert {name: defaults.seconds(name) for name in WorkerSource} == {
        WorkerSource.pool: 180 * 60, WorkerSource.mturk: 3 * 3600, WorkerSource.prolific: 90 * 60}
    stored = CampaignSettings.from_json({"pool_time_limit_minutes": 45, "mturk": {"assignment_duration": 600},
                                         "prolific": {"maximum_minutes": 30, "estimated_minutes": 20}}).time_limits
    assert {name: stored.seconds(name) for name in WorkerSource} == {
        WorkerSource.pool: 45 * 60, WorkerSource.mturk: 600, WorkerSource.prolific: 30 * 60}


def test_costs_and_launch_plans_are_the_providers_prices():
    # docs/mturk-prolific.md: 25 HITs x 1 assignment at 1.37 USD = 34.25 + 6.75 fees (20 %, 0.27 each) = 41.00 USD.
    plan = source(WorkerSource.mturk).launch_plan(MTurkSettings(reward=Decimal("1.37")), hits=25)
    assert (plan.assignments, plan.cost.rewards, plan.cost.reward_fees, plan.cost.total) == (
        25, Decimal("34.25"), Decimal("6.75"), Decimal("41.00"))
    # 4 HITs x 2 places at 3.00 GBP = 24.00, fee 33.33 % = 7.9992 -> 8.00; a 0.50 bonus each: 4.00 + 1.33.
    plan = source(WorkerSource.prolific).launch_plan(ProlificSettings(places_per_hit=2), hits=4,
                                                     expected_bonus=Decimal("0.50"))
    assert (plan.assignments, plan.cost.total, plan.cost.currency) == (8, Decimal("37.33"), "GBP")
    assert source(WorkerSource.pool).cost(None, assignments=10) is None  # paid outside the platform


def test_each_source_ends_an_assignment_with_a_completion_kind_whose_value_the_done_page_reads():
    # The done page (templates/worker/done.html) writes its auto-submitted form when the kind is the string "post".
    assignment = Assignment(provider_assignment_id="A1", next_position=3,
                            provider_data={"turkSubmitTo": "https://www.mturk.com"})
    tokens = Tokens("a secret key")
    kinds = {
        "pool": PoolSource(tokens).completion(assignment, Campaign(), "receipt").kind,
        "mturk": MTurkSource().completion(assignment, Campaign(), "receipt").kind,
        "prolific": ProlificSource(tokens, "https://example.org/done").completion(
            assignment, Campaign(completion_code="C0DE"), "receipt").kind,
        "prolific without a code": ProlificSource(tokens, "https://example.org/done").completion(
            assignment, Campaign(), "receipt").kind,
    }
    assert all(isinstance(kind, CompletionKind) for kind in kinds.values())
    assert {name: str(kind) for name, kind in kinds.items()} == {
        "pool": "page", "mturk": "post", "prolific": "redirect", "prolific without a code": "page"}
