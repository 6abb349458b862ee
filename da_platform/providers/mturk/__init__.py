"""Amazon Mechanical Turk: ExternalQuestion arrivals, the requester client (boto3), HIT settings, fees.

Modules: ``arrival`` (the worker's URL and the submission back to MTurk), ``client`` (the requester API),
``settings`` (a campaign's HIT type, its requirements and the ExternalQuestion). The launch steps that write
the database are :func:`da_platform.operations.launch.launch_mturk`; the commands, ``da-platform mturk``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from da_platform.db.states import WorkerSource
from da_platform.providers.definition import LaunchCount, SourceDefinition, TimeLimit
from da_platform.providers.money import CostEstimate, mturk_cost
from da_platform.providers.mturk.arrival import MTurkSource
from da_platform.providers.mturk.settings import MTURK_DEFAULT_ASSIGNMENT_SECONDS, MTurkSettings
from da_platform.providers.tokens import Tokens


class MTurkDefinition(SourceDefinition):
    name = WorkerSource.mturk
    provider_confirms = True  # assignmentId and workerId in the URL prove nothing until sync sees them listed
    time_limit = TimeLimit(("mturk", "assignment_duration"), 1.0, MTURK_DEFAULT_ASSIGNMENT_SECONDS)
    settings_key = "mturk"
    excludes_finished = True  # the campaign's exclusion qualification

    def arrivals(self, tokens: Tokens, config: Mapping[str, Any]) -> MTurkSource:
        return MTurkSource(config["MTURK_SUBMIT_ORIGINS"])

    def client(self, settings: MTurkSettings, *, live: bool = False, endpoint: str | None = None,
               token: str | None = None) -> Any:
        from da_platform.providers.mturk.client import MTurk, make_boto_client

        return MTurk(make_boto_client(live=live, endpoint_url=endpoint), live=live,
                     exclusion_qualification_id=settings.exclusion_qualification_id)

    def cost(self, settings: MTurkSettings, *, assignments: int,
             bonuses: Sequence[Decimal] = ()) -> CostEstimate:
        return mturk_cost(assignments=assignments, assignments_per_hit=settings.assignments_per_hit,
                          reward=settings.reward, bonuses=bonuses, masters=settings.masters)

    def launch_plan(self, settings: MTurkSettings, *, hits: int,
                    expected_bonus: Decimal = Decimal("0.00")) -> LaunchCount:
        return self.plan_for(settings, hits * settings.assignments_per_hit, expected_bonus)


MTURK = MTurkDefinition()
