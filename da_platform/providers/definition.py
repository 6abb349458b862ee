"""The one interface of a worker source (:class:`SourceDefinition`): everything the platform knows of it.

Each source is one folder of this room (``mturk/``, ``prolific/``, ``pool/``) whose ``__init__`` defines its
:class:`SourceDefinition`, registered under its :class:`~da_platform.db.states.WorkerSource` in
:mod:`da_platform.providers.registry`. The rest of the platform asks the definition, never the source's name:

- **arrival**: :meth:`SourceDefinition.arrivals`, its :class:`~da_platform.providers.arrival.ArrivalSource`
  (arrival URL -> :class:`~da_platform.providers.arrival.Arrival`; finished assignment -> completion);
- **confirmation**: :attr:`SourceDefinition.provider_confirms`, whether an arrival is the worker's only once the
  provider confirms it (the arrival rules, docs/security.md);
- **client**: :meth:`SourceDefinition.client`, the :class:`~da_platform.providers.base.Provider` that sync and
  review talk to (none for the own pool);
- **settings**: :attr:`SourceDefinition.settings_key`, where its settings are stored in a campaign's settings;
- **time limit**: :attr:`SourceDefinition.time_limit`, where its limit per HIT is stored, its unit and default
  (the rule that applies it: :mod:`da_platform.config.time_limits`);
- **costs** and **launch plan**: :meth:`SourceDefinition.cost`, :meth:`SourceDefinition.launch_plan`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, NamedTuple

from da_platform.db.states import WorkerSource
from da_platform.providers.arrival import ArrivalSource
from da_platform.providers.base import Provider
from da_platform.providers.money import CostEstimate
from da_platform.providers.tokens import Tokens


class TimeLimit(NamedTuple):
    """Where a source's time limit for one HIT is stored in a campaign's settings, and how to read it."""

    path: tuple[str, ...]  # of the setting in the settings' JSON
    unit: float  # seconds
    default: float  # in the setting's unit


@dataclass(frozen=True)
class LaunchCount:
    """What launching a campaign's HITs on a provider creates (assignments or places) and costs."""

    assignments: int
    cost: CostEstimate


class SourceDefinition(ABC):
    """A worker source: one folder of :mod:`da_platform.providers`, registered under :attr:`name`."""

    name: ClassVar[WorkerSource]
    provider_confirms: ClassVar[bool]
    """True when the arrival URL's ids prove nothing and only the provider's listing (``sync``) confirms an
    assignment as its worker's (MTurk, Prolific); False for signed links (the own pool)."""
    time_limit: ClassVar[TimeLimit]
    has_provider: ClassVar[bool] = True
    """Whether a provider pays and reports the source's work (False: the own pool, paid outside the platform, whose
    decisions are carried out when recorded)."""
    settings_key: ClassVar[str | None] = None
    """The key of the source's settings in a campaign's settings (``CampaignSettings``); None: it has none."""
    excludes_finished: ClassVar[bool] = False
    """Whether ``sync`` grants the provider's exclusion to workers who finished the campaign's HITs per worker."""

    @abstractmethod
    def arrivals(self, tokens: Tokens, config: Mapping[str, Any]) -> ArrivalSource:
        """The source's arrival for the web app (``config``: the app's configuration)."""

    def client(self, settings: Any, *, live: bool = False, endpoint: str | None = None,
               token: str | None = None) -> Provider:
        """The provider's client for ``settings`` (its stored settings): sync and review talk to it."""
        raise NotImplementedError(f"{self.name} has no provider to talk to")

    def cost(self, settings: Any, *, assignments: int, bonuses: Sequence[Decimal] = ()) -> CostEstimate | None:
        """Rewards and fees of ``assignments`` and ``bonuses`` at ``settings`` (None: paid outside the platform)."""
        return None

    def launch_plan(self, settings: Any, *, hits: int, expected_bonus: Decimal = Decimal("0.00")) -> LaunchCount:
        """What launching ``hits`` HITs creates and costs (with ``expected_bonus`` for each assignment)."""
        raise NotImplementedError(f"{self.name} is not launched on a provider")

    def plan_for(self, settings: Any, assignments: int, expected_bonus: Decimal) -> LaunchCount:
        """``assignments`` at ``settings``, each with ``expected_bonus`` if any (for :meth:`launch_plan`)."""
        cost = self.cost(settings, assignments=assignments,
                         bonuses=[expected_bonus] * assignments if expected_bonus > 0 else [])
        assert cost is not None  # (a source with a launch plan has costs)
        return LaunchCount(assignments, cost)
