"""Every worker source's :class:`~da_platform.providers.definition.SourceDefinition`, under its
:class:`~da_platform.db.states.WorkerSource`. A new source is a new folder of :mod:`da_platform.providers` and
one line here (CONTRIBUTING.md, "Where a new provider goes")."""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from da_platform.db.states import WorkerSource
from da_platform.providers.definition import SourceDefinition
from da_platform.providers.mturk import MTURK
from da_platform.providers.pool import POOL
from da_platform.providers.prolific import PROLIFIC

SOURCES: Mapping[WorkerSource, SourceDefinition] = MappingProxyType(
    {definition.name: definition for definition in (POOL, MTURK, PROLIFIC)})


def source(name: WorkerSource | str) -> SourceDefinition:
    """The definition of the source ``name`` (a :class:`WorkerSource` or its stored name)."""
    return SOURCES[WorkerSource(name)]


def without_provider() -> tuple[WorkerSource, ...]:
    """The sources no provider pays or reports on (the own pool): their decisions are carried out when recorded."""
    return tuple(name for name, definition in SOURCES.items() if not definition.has_provider)


def confirmed_sources() -> tuple[WorkerSource, ...]:
    """The sources whose arrivals count only once their provider confirms them (the arrival rules)."""
    return tuple(name for name, definition in SOURCES.items() if definition.provider_confirms)
