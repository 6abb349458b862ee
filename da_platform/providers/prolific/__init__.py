"""Prolific: one study per campaign, its study link, the API v1 client, study settings, the service fee.

Modules: ``arrival`` (the study link and the redirect back with the completion code), ``client`` (the API),
``settings`` (a campaign's study). The launch steps that write the database are
:func:`da_platform.operations.launch.launch_prolific`; the commands, ``da-platform prolific``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from da_platform.db.states import WorkerSource
from da_platform.providers.definition import LaunchCount, SourceDefinition, TimeLimit
from da_platform.providers.money import CostEstimate, rate_cost
from da_platform.providers.prolific.arrival import ProlificSource
from da_platform.providers.prolific.settings import PROLIFIC_DEFAULT_MAXIMUM_MINUTES, ProlificSettings
from da_platform.providers.tokens import Tokens


class ProlificDefinition(SourceDefinition):
    name = WorkerSource.prolific
    provider_confirms = True  # PROLIFIC_PID and SESSION_ID in the URL prove nothing until sync sees them listed
    time_limit = TimeLimit(("prolific", "maximum_minutes"), 60.0, PROLIFIC_DEFAULT_MAXIMUM_MINUTES)
    settings_key = "prolific"

    def arrivals(self, tokens: Tokens, config: Mapping[str, Any]) -> ProlificSource:
        return ProlificSource(tokens, config["PROLIFIC_COMPLETE_URL"])

    def client(self, settings: ProlificSettings, *, live: bool = False, endpoint: str | None = None,
               token: str | None = None) -> Any:
        from da_platform.providers.prolific.client import PROLIFIC_API, Prolific

        return Prolific(token, base_url=endpoint or PROLIFIC_API, currency=settings.currency)

    def cost(self, settings: ProlificSettings, *, assignments: int,
             bonuses: Sequence[Decimal] = ()) -> CostEstimate:
        return rate_cost(assignments=assignments, reward=settings.reward, bonuses=bonuses, fee_rate=settings.fee_rate,
                         currency=settings.currency)

    def launch_plan(self, settings: ProlificSettings, *, hits: int,
                    expected_bonus: Decimal = Decimal("0.00")) -> LaunchCount:
        return self.plan_for(settings, hits * settings.places_per_hit, expected_bonus)


PROLIFIC = ProlificDefinition()
