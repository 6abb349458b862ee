"""A campaign run in waves, as stored with it (``CampaignSettings.waves``; docs/method.md §12).

``build --design waves`` writes the design (:class:`analysis.sequential_plan.WaveDesign`), the fixed design it is
measured against (its HITs, the budget's unit, and the ratings each system would get there, the information
each pair of systems is planned to reach) and the first wave. Each later wave appends itself; the look the
previous wave ended with (the ranking's z-scores, one-sided p-values and ratings per system, when the next wave
was planned from it) is written on that wave's entry, once, so that the decisions of a campaign can always be
recomputed exactly as they were taken (``looks``). A campaign without this key has the fixed design.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from analysis.sequential import Look, SequentialDesign
from analysis.sequential_plan import StopReason, WaveDesign
from da_platform.config.stored_json import json_object, text, whole

FIXED, WAVES = "fixed", "waves"
DESIGNS = (FIXED, WAVES)


@dataclass(frozen=True)
class LookRecord:
    """The ranking a wave ended with, as the next wave was planned from it."""

    systems: tuple[str, ...]
    z: tuple[float, ...]
    pvalues: tuple[tuple[float | None, ...], ...]  # None: not computed (the diagonal)
    ratings: Mapping[str, int]
    taken_at: str  # ISO 8601, UTC

    @classmethod
    def of(cls, look: Look, taken_at: str) -> LookRecord:
        matrix = tuple(tuple(None if math.isnan(p) else float(p) for p in row) for row in np.asarray(look.pvalues))
        return cls(tuple(look.systems), tuple(float(z) for z in look.z), matrix, dict(look.ratings), taken_at)

    def look(self, wave: int) -> Look:
        pvalues = np.array([[math.nan if p is None else p for p in row] for row in self.pvalues], dtype=np.float64)
        return Look(wave, self.systems, self.z, pvalues.reshape(len(self.systems), len(self.systems)),
                    dict(self.ratings))

    def to_json(self) -> dict[str, Any]:
        return {"systems": list(self.systems), "z": list(self.z), "pvalues": [list(row) for row in self.pvalues],
                "ratings": dict(self.ratings), "taken_at": self.taken_at}

    @classmethod
    def from_json(cls, data: object) -> LookRecord:
        data = json_object(data, "a look")
        systems = tuple(str(s) for s in data.get("systems", ()))
        z = tuple(float(v) for v in data.get("z", ()))
        rows = tuple(tuple(None if p is None else float(p) for p in row) for row in data.get("pvalues", ()))
        if len(z) != len(systems) or len(rows) != len(systems) or any(len(row) != len(systems) for row in rows):
            raise ValueError(f"a look of {len(systems)} systems needs as many z-scores and a square p-value table")
        ratings = {str(s): int(n) for s, n in json_object(data.get("ratings", {}), "its ratings").items()}
        return cls(systems, z, rows, ratings, text(data, "taken_at"))


@dataclass(frozen=True)
class WaveEntry:
    """One wave: its HITs (indices ``first_hit`` … ``first_hit + hits − 1``), the share of their ordinary slots
    each system got, the systems in contention, and the look it ended with (None: not taken yet)."""

    wave: int
    first_hit: int
    hits: int
    shares: Mapping[str, float]
    contention: tuple[str, ...]
    look: LookRecord | None = None

    @property
    def contention_share(self) -> float:
        """The share of the wave's ordinary slots its systems in contention got."""
        return sum(self.shares.get(s, 0.0) for s in self.contention)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"wave": self.wave, "first_hit": self.first_hit, "hits": self.hits,
                               "shares": {s: round(w, 6) for s, w in self.shares.items()},
                               "contention": list(self.contention)}
        if self.look is not None:
            out["look"] = self.look.to_json()
        return out

    @classmethod
    def from_json(cls, data: object) -> WaveEntry:
        data = json_object(data, "a wave")
        shares = {str(s): float(w) for s, w in json_object(data.get("shares", {}), "its shares").items()}
        look = LookRecord.from_json(data["look"]) if data.get("look") is not None else None
        return cls(whole(data, "wave"), whole(data, "first_hit"), whole(data, "hits"), shares,
                   tuple(str(s) for s in data.get("contention", ())), look)


@dataclass(frozen=True)
class WavesRecord:
    """The design, the fixed design it is measured against, and the waves so far (see the module docstring)."""

    design: WaveDesign
    reference_hits: int
    planned: Mapping[str, int]  # system -> ratings it would get in the fixed design
    waves: tuple[WaveEntry, ...] = field(default=())
    stopped: str | None = None  # a StopReason's value once the campaign plans no further wave

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"design": self.design.describe(), "reference_hits": self.reference_hits,
                               "planned": dict(self.planned), "waves": [w.to_json() for w in self.waves]}
        if self.stopped is not None:
            out["stopped"] = self.stopped
        return out

    @classmethod
    def from_json(cls, data: object) -> WavesRecord:
        data = json_object(data, "the waves record")
        design = json_object(data.get("design"), "its design")
        planned = {str(s): int(n) for s, n in json_object(data.get("planned", {}), "its planned ratings").items()}
        stopped = data.get("stopped")
        if stopped is not None:
            StopReason(stopped)
        return cls(WaveDesign(**design), whole(data, "reference_hits"), planned,
                   tuple(WaveEntry.from_json(w) for w in data.get("waves", ())), stopped)

    def sequential(self, alpha: float) -> SequentialDesign:
        """The sequential test of the campaign's pairs at the ranking's ``alpha``."""
        return SequentialDesign(self.planned, alpha, self.design.spending, self.design.information_ratio)

    def looks(self) -> list[Look]:
        """The looks taken so far, in wave order."""
        return [w.look.look(w.wave) for w in self.waves if w.look is not None]

    @property
    def hits(self) -> int:
        return sum(w.hits for w in self.waves)

    @property
    def latest(self) -> WaveEntry:
        return self.waves[-1]

    def with_look(self, look: LookRecord) -> WavesRecord:
        """The latest wave's look written (it must not have one yet)."""
        if self.latest.look is not None:
            raise ValueError(f"wave {self.latest.wave} already has its look")
        return replace(self, waves=(*self.waves[:-1], replace(self.latest, look=look)))

    def with_wave(self, entry: WaveEntry) -> WavesRecord:
        return replace(self, waves=(*self.waves, entry))

    def with_stop(self, reason: StopReason) -> WavesRecord:
        return replace(self, stopped=reason.value)
