"""The lab's own pool: signed invitation links (``invite``), no provider, paid outside the platform."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from da_platform.db.states import WorkerSource
from da_platform.providers.definition import SourceDefinition, TimeLimit
from da_platform.providers.pool.arrival import PoolSource
from da_platform.providers.tokens import Tokens

DEFAULT_POOL_TIME_LIMIT_MINUTES = 180
"""How long an own-pool worker has for one HIT unless ``invite --time-limit`` says otherwise."""


class Pool(SourceDefinition):
    name = WorkerSource.pool
    provider_confirms = False  # the invitation link is signed: it names its worker
    has_provider = False  # paid outside the platform
    time_limit = TimeLimit(("pool_time_limit_minutes",), 60.0, DEFAULT_POOL_TIME_LIMIT_MINUTES)

    def arrivals(self, tokens: Tokens, config: Mapping[str, Any]) -> PoolSource:
        return PoolSource(tokens)


POOL = Pool()
