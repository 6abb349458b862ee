"""The next wave of a campaign run in waves: which systems it rates more, in what mix, and when to stop
(docs/method.md §12).

After each wave the campaign's own analysis and :mod:`analysis.sequential` say which pairs of systems are still
open. The next wave rates the systems of those pairs more, but every worker's z-scores must stay what they would
have been in the fixed design: a worker standardises by the mean and standard deviation of their own ratings, so
a HIT made mostly of two middling systems (a narrow spread of quality) stretches that worker's z-scores, and the
systems rated in such HITs drift from their fixed-design z-scores (measured in docs/benchmarks.md, "Campaigns
in waves"). The mix of a wave's HITs is therefore chosen as follows (``WaveMix.matched``, the default):

* the systems in contention keep their relative shares and take as large a share ``u`` of each HIT's ordinary
  slots as possible;
* the rest of the HIT is filled with systems already decided, chosen so that the HIT's expected raw ratings
  have the same mean and standard deviation as a HIT of the fixed design (the mean within ``tolerance`` points,
  the variance about the fixed design's mean within 2·sd·``tolerance``, i.e. the sd within about ``tolerance``
  points), the systems' moments estimated from the ratings so far: a linear programme
  (``scipy.optimize.linprog``; the fixed design's own mix always fits, so there is always one);
* every system keeps at least ``floor`` times its fixed-design share (the system mix floor); contention systems
  never get less than their fixed-design share.

``WaveMix.contention`` gives the contention systems every slot above the floor (the naive design the z-score
study measures); ``WaveMix.balanced`` keeps the fixed design's mix (stopping early is then the only saving).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from analysis.sequential import SequentialResult, Spending
from analysis.table import RatingsTable
from da_core.enums import StrState


class WaveMix(StrState):
    """How a wave's HITs mix the systems (see the module docstring)."""

    matched = "matched"
    contention = "contention"
    balanced = "balanced"


@dataclass(frozen=True)
class WaveDesign:
    """A campaign's design in waves: the first wave's and each later wave's size and the budget, as shares of
    the fixed design's HITs; how waves mix systems; and the sequential test (``analysis.sequential``)."""

    first_wave: float = 0.25
    wave: float = 0.15
    budget: float = 1.0
    mix: WaveMix = WaveMix.matched
    floor: float = 0.1
    tolerance: float = 0.5  # points of the 0-100 scale: mean and sd of a wave's HIT vs a fixed one
    spending: Spending = Spending.obrien_fleming
    information_ratio: float = 1.0
    futility: float = 0.1  # an open pair whose conditional power is below this is not rated more

    def __post_init__(self) -> None:
        if not 0 <= self.futility < 1:
            raise ValueError(f"futility must lie within 0 and 1, got {self.futility}")
        for name in ("first_wave", "wave", "budget", "information_ratio"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.first_wave > self.budget:
            raise ValueError(f"the first wave ({self.first_wave:g}) is larger than the budget ({self.budget:g})")
        if not 0 <= self.floor <= 1:
            raise ValueError(f"floor must lie within 0 and 1, got {self.floor}")
        if not self.tolerance >= 0:
            raise ValueError(f"tolerance must be at least 0, got {self.tolerance}")
        object.__setattr__(self, "mix", WaveMix(self.mix))
        object.__setattr__(self, "spending", Spending(self.spending))

    def hits(self, share: float, reference_hits: int) -> int:
        """HITs for a share of the fixed design's ``reference_hits`` (at least one)."""
        return max(1, round(share * reference_hits))

    def describe(self) -> dict[str, object]:
        return {"first_wave": self.first_wave, "wave": self.wave, "budget": self.budget, "mix": self.mix.value,
                "floor": self.floor, "tolerance": self.tolerance, "spending": self.spending.value,
                "information_ratio": self.information_ratio, "futility": self.futility}


@dataclass(frozen=True)
class Moments:
    """Mean and variance of one system's raw ratings (0-100)."""

    mean: float
    variance: float


def rating_moments(table: RatingsTable, group: str, workers: frozenset[str] | None = None) -> dict[str, Moments]:
    """Each system's mean and variance of every rating of the group that belongs to one of its items, whatever
    the slot type (the checks copy the HIT's own items, so a HIT's ratings are a mixture of these), by
    ``workers`` (None: everyone)."""
    rows = table.group.codes == table.group.labels.index(group) if group in table.group.labels else \
        np.zeros(len(table), dtype=bool)
    if workers is not None:
        rows &= np.isin(table.worker.codes, [c for c, w in enumerate(table.worker.labels) if w in workers])
    found = {}
    scores = table.score.astype(np.float64)
    for code, system in enumerate(table.system.labels):
        values = scores[rows & (table.system.codes == code)]
        if len(values):
            found[system] = Moments(float(values.mean()), float(values.var(ddof=1)) if len(values) > 1 else 0.0)
    return found


@dataclass(frozen=True)
class Mix:
    """Shares of a wave's ordinary slots per system, and the expected raw mean and sd of such a HIT next to a
    fixed design's."""

    shares: Mapping[str, float]
    contention_share: float
    mean: float
    sd: float
    target_mean: float
    target_sd: float


def _mixture(weights: Mapping[str, float], moments: Mapping[str, Moments]) -> tuple[float, float]:
    mean = sum(w * moments[s].mean for s, w in weights.items())
    second = sum(w * (moments[s].variance + moments[s].mean ** 2) for s, w in weights.items())
    return mean, math.sqrt(max(second - mean * mean, 0.0))


def wave_mix(contention: Sequence[str], moments: Mapping[str, Moments], balanced: Mapping[str, float], *,
             mix: WaveMix = WaveMix.matched, floor: float = 0.1, tolerance: float = 0.5) -> Mix:
    """The shares of a wave's ordinary slots per system (see the module docstring). ``balanced``: each system's
    share in the fixed design (e.g. its items), normalised here; ``moments``: every system's, from the ratings
    so far (a system without any is treated as the average of the others)."""
    total = sum(balanced.values())
    if total <= 0:
        raise ValueError("the fixed design's shares must be positive")
    base = {s: w / total for s, w in balanced.items()}
    unknown = sorted(set(contention) - set(base))
    if unknown:
        raise ValueError(f"systems in contention that the campaign does not rate: {', '.join(unknown)}")
    moments = _filled(moments, base)
    target_mean, target_sd = _mixture(base, moments)
    chosen = [s for s in base if s in set(contention)]
    if mix is WaveMix.balanced or not chosen or len(chosen) == len(base):
        return Mix(base, sum(base[s] for s in chosen), target_mean, target_sd, target_mean, target_sd)
    inside = sum(base[s] for s in chosen)
    within = {s: base[s] / inside for s in chosen}
    others = [s for s in base if s not in within]
    if mix is WaveMix.contention:
        shares = {**{s: floor * base[s] for s in others}}
        u = 1 - sum(shares.values())
    else:
        u, shares = _matched(within, others, moments, base, floor=floor, tolerance=tolerance,
                             target=(target_mean, target_sd))
    shares.update({s: u * within[s] for s in chosen})
    ordered = {s: shares[s] for s in base}
    mean, sd = _mixture(ordered, moments)
    return Mix(ordered, u, mean, sd, target_mean, target_sd)


def _filled(moments: Mapping[str, Moments], base: Mapping[str, float]) -> dict[str, Moments]:
    known = [moments[s] for s in base if s in moments]
    if not known:
        raise ValueError("no system has ratings yet: the first wave is balanced")
    average = Moments(float(np.mean([m.mean for m in known])), float(np.mean([m.variance for m in known])))
    return {s: moments.get(s, average) for s in base}


def _matched(within: Mapping[str, float], others: Sequence[str], moments: Mapping[str, Moments],
             base: Mapping[str, float], *, floor: float, tolerance: float,
             target: tuple[float, float]) -> tuple[float, dict[str, float]]:
    """The largest contention share u whose HIT matches the target mean and sd within ``tolerance``, with the
    other systems' shares that achieve it."""
    target_mean, target_sd = target
    # Second moments about the target mean: linear in the shares, and the HIT's variance to within the square
    # of its mean's deviation (at most tolerance²).
    target_second = target_sd ** 2
    second = {s: moments[s].variance + (moments[s].mean - target_mean) ** 2 for s in moments}
    mean_c = sum(w * moments[s].mean for s, w in within.items())
    second_c = sum(w * second[s] for s, w in within.items())
    # Variables: u (the contention share), then the share of each other system.
    n = 1 + len(others)
    row_mean = np.array([mean_c, *(moments[s].mean for s in others)])
    row_second = np.array([second_c, *(second[s] for s in others)])
    scale_second = 2 * max(target_sd, 1.0)  # 1 point of sd is about 2·sd of variance
    bounds = [(sum(base[s] for s in within), 1.0), *((floor * base[s], 1.0) for s in others)]
    equal = np.ones((1, n))

    def solve(objective: np.ndarray, mean_tol: float, second_tol: float) -> optimize.OptimizeResult:
        rows = np.vstack([row_mean, -row_mean, row_second, -row_second])
        limits = np.array([target_mean + mean_tol, -(target_mean - mean_tol),
                           target_second + second_tol, -(target_second - second_tol)])
        return optimize.linprog(objective, A_ub=rows, b_ub=limits, A_eq=equal, b_eq=[1.0], bounds=bounds,
                                method="highs")

    # Always feasible: the fixed design's own mix (u at its lower bound, every other system at its share) matches.
    found = solve(np.r_[-1.0, np.zeros(n - 1)], tolerance, tolerance * scale_second)
    if found.status != 0:
        raise ValueError(f"no mix of systems fits a wave ({found.message})")
    x = found.x
    return float(x[0]), {s: float(v) for s, v in zip(others, x[1:])}


class StopReason(StrState):
    """Why a campaign in waves plans no further wave."""

    settled = "every pair is decided or has had its last look"
    futile = "the pairs still open would likely not be decided within their planned information"
    budget = "the budget is spent"


@dataclass(frozen=True)
class WavePlan:
    """The next wave: how many HITs and each system's share of their ordinary slots (``mix.shares``; the
    systems in ``contention`` get at least one slot per HIT), or why there is none."""

    wave: int
    hits: int
    contention: tuple[str, ...]
    mix: Mix | None
    stop: StopReason | None = None

    @property
    def shares(self) -> Mapping[str, float]:
        return self.mix.shares if self.mix is not None else {}


def plan_next_wave(result: SequentialResult, moments: Mapping[str, Moments], design: WaveDesign, *,
                   balanced: Mapping[str, float], reference_hits: int, hits_so_far: int, wave: int) -> WavePlan:
    """The next wave of a campaign after the looks in ``result`` (see the module docstring), its mix fitted to
    the systems' rating ``moments`` (:func:`rating_moments`): none when every pair is settled or the budget
    (``design.budget`` × ``reference_hits``) is spent."""
    contention = tuple(s for s in balanced if s in result.in_contention(design.futility))
    budget = design.hits(design.budget, reference_hits)
    left = budget - hits_so_far
    if result.settled:
        return WavePlan(wave, 0, contention, None, StopReason.settled)
    if not contention:
        return WavePlan(wave, 0, contention, None, StopReason.futile)
    if left <= 0:
        return WavePlan(wave, 0, contention, None, StopReason.budget)
    mix = wave_mix(contention, moments, balanced, mix=design.mix, floor=design.floor,
                   tolerance=design.tolerance)
    return WavePlan(wave, min(left, design.hits(design.wave, reference_hits)), contention, mix)


def first_wave(design: WaveDesign, *, balanced: Mapping[str, float], reference_hits: int) -> WavePlan:
    """The first wave: the fixed design's mix, ``design.first_wave`` of its HITs."""
    base = {s: w for s, w in balanced.items() if w > 0}
    total = sum(base.values())
    return WavePlan(1, design.hits(design.first_wave, reference_hits), tuple(base), Mix(
        {s: w / total for s, w in base.items()}, 1.0, math.nan, math.nan, math.nan, math.nan))
