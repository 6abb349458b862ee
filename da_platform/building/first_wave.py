"""The first wave of a campaign in waves, planned at build time (docs/method.md §12; see
:mod:`da_platform.building.waves` for the waves added later)."""
from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping

from analysis.sequential_plan import WaveDesign, first_wave
from da_core.enums import SlotType
from da_platform.config.waves_record import WaveEntry, WavesRecord
from hit_builder.assembly import Assembly
from hit_builder.layouts import Layout
from hit_builder.waves import assemble_wave


def planned_ratings(reference: Assembly, system_of: Mapping[Hashable, str]) -> dict[str, int]:
    """Ratings each system gets in the fixed design: its ``SYSTEM`` and ``REPEAT`` slots (the ones scored)."""
    counts: dict[str, int] = {}
    for hit in reference.hits:
        for slot in hit.slots:
            if slot.slot_type in (SlotType.SYSTEM, SlotType.REPEAT):
                system = system_of[slot.item]
                counts[system] = counts.get(system, 0) + 1
    return counts


def by_system(system_of: Mapping[Hashable, str]) -> dict[str, list[Hashable]]:
    """Each system's items, in the order given."""
    items: dict[str, list[Hashable]] = {}
    for key, system in system_of.items():
        items.setdefault(system, []).append(key)
    return items


def first_wave_plan(reference: Assembly, system_of: Mapping[Hashable, str], design: WaveDesign, *, seed: int,
                    layout: Layout, scores: Mapping[Hashable, float] | None) -> tuple[Assembly, WavesRecord]:
    """The first wave's HITs instead of the fixed design's ``reference``, and the record of the design."""
    items = by_system(system_of)
    plan = first_wave(design, balanced={s: float(len(k)) for s, k in items.items()},
                      reference_hits=len(reference.hits))
    wave = assemble_wave(items, plan.shares, plan.hits, seed=seed, wave=1, first_index=0, layout=layout,
                         scores=scores, at_least_one=list(items))
    record = WavesRecord(design, len(reference.hits), planned_ratings(reference, system_of),
                         (WaveEntry(1, 0, len(wave.hits), dict(plan.shares), plan.contention),))
    return dataclasses.replace(reference, hits=wave.hits), record
