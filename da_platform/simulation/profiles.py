"""The idealised simulated worker, and simulated campaigns with known truth, for tests that need known parameters.

The crowd of the demo, of ``simulate`` and of the benchmarks rates as real people do
(:mod:`da_platform.simulation.people`, fitted to real crowd workers: lapses, unnoticed damage, remembered repeats).
The ``honest`` profile here is **idealised**: every damaged copy noticed, no lapse, a fixed drop
(``DEGRADATION_DROP``); it stays for tests whose expected values follow from known parameters, for the random,
constant and always-high bots, and for the competent automated rater (``text_raters``), which rates as such a
person would.

Model: every item (system, question) has a true quality on the 0–100 scale (the system's quality
plus an item effect). A ``BAD_REF`` copy (and a ``MEANING`` check, whose answer now says something
wrong) has quality ``degraded_quality(q)`` (``DEGRADATION_DROP`` points lower), a ``REF`` slot shows the human reference
(``REFERENCE_QUALITY``), a ``REPEAT`` the
same quality again. Workers turn quality into a 0–100 integer score according to their profile:

- ``honest``: 50 + bias + scale · (q − 50) + noise · N(0, 1), rounded and clipped;
- ``random``: uniform 0–100 whatever is shown;
- ``constant``: always 50 + bias;
- ``always_high``: uniform 90–100 whatever is shown.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.table import SLOT_TYPES, RatingsTable

WORKER_KINDS = ("honest", "random", "constant", "always_high")
DEGRADATION_DROP = 40.0
REFERENCE_QUALITY = 95.0
HIT_SETS, SET_SIZE, CHECKS_PER_SET = 10, 7, 3


def degraded_quality(quality: float | np.ndarray) -> float | np.ndarray:
    """True quality of a degraded (BAD_REF) copy of an answer of the given quality."""
    return np.maximum(0.0, np.asarray(quality, dtype=np.float64) - DEGRADATION_DROP) \
        if isinstance(quality, np.ndarray) else max(0.0, float(quality) - DEGRADATION_DROP)


def slot_quality(slot_type: str, answer_quality: float) -> float:
    """What a slot of this type shows, given the quality of the answer of its (original) item."""
    if slot_type in ("BAD_REF", "MEANING"):  # a meaning-changed answer is as wrong as a degraded one
        return float(degraded_quality(answer_quality))
    if slot_type == "REF":
        return REFERENCE_QUALITY
    if slot_type in ("SYSTEM", "REPEAT"):
        return float(answer_quality)
    raise ValueError(f"unknown slot type {slot_type!r}")


@dataclass(frozen=True)
class WorkerProfile:
    """How one simulated worker rates (see the module docstring)."""

    kind: str = "honest"
    bias: float = 0.0
    scale: float = 1.0
    noise: float = 10.0

    def __post_init__(self) -> None:
        if self.kind not in WORKER_KINDS:
            raise ValueError(f"unknown worker kind {self.kind!r}; expected one of {', '.join(WORKER_KINDS)}")

    def rate(self, true_quality: float, rng: np.random.Generator) -> int:
        """One 0–100 integer score for something of this true quality."""
        return int(self.rate_many(np.array([true_quality], dtype=np.float64), rng)[0])

    def rate_many(self, true_quality: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Scores for many slots at once (int64 array)."""
        q = np.asarray(true_quality, dtype=np.float64)
        if self.kind == "honest":
            score = 50 + self.bias + self.scale * (q - 50) + self.noise * rng.standard_normal(q.shape)
        elif self.kind == "random":
            return rng.integers(0, 101, size=q.shape)
        elif self.kind == "constant":
            score = np.full(q.shape, 50 + self.bias)
        else:
            return rng.integers(90, 101, size=q.shape)
        return np.clip(np.rint(score), 0, 100).astype(np.int64)


def random_profile(kind: str, rng: np.random.Generator) -> WorkerProfile:
    """A worker of the given kind with plausible personal parameters (honest: bias, scale, noise)."""
    if kind == "honest":
        return WorkerProfile("honest", float(rng.normal(0, 8)), float(rng.uniform(0.6, 1.4)),
                             float(rng.uniform(5, 20)))
    if kind == "constant":
        return WorkerProfile("constant", float(rng.integers(-50, 51)), 0.0, 0.0)
    return WorkerProfile(kind, 0.0, 0.0, 0.0)


def crowd(counts: Mapping[str, int], rng: np.random.Generator) -> dict[str, WorkerProfile]:
    """Named workers, e.g. ``crowd({"honest": 40, "random": 5}, rng)`` → {"honest-0000": ..., ...}."""
    return {f"{kind}-{i:04d}": random_profile(kind, rng) for kind, n in counts.items() for i in range(n)}


@dataclass(frozen=True)
class SimulatedCampaign:
    """A simulated ratings table and the truth behind it."""

    table: RatingsTable
    system_quality: Mapping[str, float]
    workers: Mapping[str, WorkerProfile]

    @property
    def true_order(self) -> tuple[str, ...]:
        return tuple(sorted(self.system_quality, key=lambda s: -self.system_quality[s]))


def simulate_campaign(system_quality: Mapping[str, float], workers: Mapping[str, WorkerProfile], *,
                      n_questions: int, hits_per_worker: int = 1, item_sd: float = 15.0, group: str = "sim",
                      seed: int = 0) -> SimulatedCampaign:
    """Simulate a whole campaign with the HIT structure of docs/method.md §2 (70 SYSTEM + 10 each of checks).

    Ordinary items are all (system, question) pairs, shuffled per pass and cut into HITs of 10 sets
    of 7; set i's checks copy three distinct items of set (i + 5) mod 10; each HIT is rated by one
    worker (``hits_per_worker`` HITs each). Time on item is log-normal around 8 s.
    """
    rng = np.random.default_rng(seed)
    systems = list(system_quality)
    n_items = len(systems) * n_questions
    if n_items < HIT_SETS * SET_SIZE:
        raise ValueError(f"need at least {HIT_SETS * SET_SIZE} items, got {n_items}")
    item_quality = np.clip(np.repeat([float(system_quality[s]) for s in systems], n_questions)
                           + rng.normal(0, item_sd, n_items), 0, 100)
    names = list(workers)
    hits = _plan_hits(rng, n_items, len(names) * hits_per_worker)
    quality = item_quality[hits.item]
    quality = np.where(hits.types == 2, degraded_quality(quality), quality)
    quality = np.where(hits.types == 3, REFERENCE_QUALITY, quality)
    score = np.empty(quality.shape, dtype=np.int64)
    for w, name in enumerate(names):
        rated = slice(w * hits_per_worker, (w + 1) * hits_per_worker)
        score[rated] = workers[name].rate_many(quality[rated], rng)
    table = _ratings_table(hits, score, rng, names=names, hits_per_worker=hits_per_worker, systems=systems,
                           n_questions=n_questions, group=group)
    return SimulatedCampaign(table, dict(system_quality), dict(workers))


@dataclass(frozen=True)
class _PlannedHits:
    """Every HIT's 100 slots in display order (arrays of shape (HITs, 100))."""

    item: np.ndarray  # index of the (system, question) item shown
    types: np.ndarray  # slot-type codes of analysis.table: SYSTEM, REPEAT, BAD_REF or REF
    origin: np.ndarray  # a check's original: its position among the HIT's 70 ordinary slots (-1: none)
    own_pos: np.ndarray  # an ordinary slot's position among the 70 (-1 for a check)


def _plan_hits(rng: np.random.Generator, n_items: int, n_hits: int) -> _PlannedHits:
    """Ordinary items in passes, cut into HITs of 10 sets of 7, each set with three checks of set (i + 5)
    mod 10, every set shuffled."""
    per_pass = math.ceil(n_items / (HIT_SETS * SET_SIZE))
    order = np.concatenate([_one_pass(rng, n_items, per_pass) for _ in range(math.ceil(n_hits / per_pass))])
    ordinary = order.reshape(-1, HIT_SETS, SET_SIZE)[:n_hits]  # (hits, sets, 7) item indices

    picks = np.argsort(rng.random((n_hits, HIT_SETS, SET_SIZE)), axis=2)[:, :, :CHECKS_PER_SET]
    partner = (np.arange(HIT_SETS) + HIT_SETS // 2) % HIT_SETS
    check_pos = partner[None, :, None] * SET_SIZE + picks  # position in the HIT's 70 ordinary slots
    # slots per set: 7 ordinary (types 0) + BAD_REF, REPEAT, REF of partner items
    item = np.concatenate([ordinary, ordinary.reshape(n_hits, -1)[np.arange(n_hits)[:, None, None], check_pos]
                           [:, :, [0, 1, 2]]], axis=2)
    types = np.broadcast_to(np.array([0] * SET_SIZE + [2, 1, 3], dtype=np.int8), item.shape).copy()
    origin = np.concatenate([np.full(ordinary.shape, -1), check_pos], axis=2)
    ordinary_pos = np.arange(HIT_SETS)[None, :, None] * SET_SIZE + np.arange(SET_SIZE)[None, None, :]
    own_pos = np.concatenate([np.broadcast_to(ordinary_pos, ordinary.shape), np.full(check_pos.shape, -1)],
                             axis=2)
    shuffle = np.argsort(rng.random(item.shape), axis=2)
    item, types, origin, own_pos = (np.take_along_axis(a, shuffle, axis=2).reshape(n_hits, -1)
                                    for a in (item, types, origin, own_pos))
    return _PlannedHits(item, types, origin, own_pos)


def _ratings_table(hits: _PlannedHits, score: np.ndarray, rng: np.random.Generator, *, names: list[str],
                   hits_per_worker: int, systems: list[str], n_questions: int, group: str) -> RatingsTable:
    """The ratings as a table: slot ids ``h<HIT>-<position>`` (checks 100 + their display position),
    checks linked to their originals, times on item drawn log-normal around 8 s."""
    n_hits = len(hits.item)
    hit_index = np.repeat(np.arange(n_hits), HIT_SETS * (SET_SIZE + CHECKS_PER_SET))
    flat_own = hits.own_pos.ravel()
    flat_origin = hits.origin.ravel()
    slot_labels = [f"h{h}-{p}" for h, p in zip(hit_index.tolist(), np.where(flat_own >= 0, flat_own,
                   np.tile(np.arange(100, 100 + HIT_SETS * (SET_SIZE + CHECKS_PER_SET)), n_hits)).tolist())]
    original = ["" if o < 0 else f"h{h}-{o}" for h, o in zip(hit_index.tolist(), flat_origin.tolist())]
    flat_item = hits.item.ravel()
    question_labels = [f"q{i:05d}" for i in range(n_questions)]
    return RatingsTable.from_columns(
        group=[group] * len(flat_item),
        worker=[names[h // hits_per_worker] for h in hit_index.tolist()],
        hit=[f"hit{h:06d}" for h in hit_index.tolist()],
        system=[systems[i // n_questions] for i in flat_item.tolist()],
        item=[question_labels[i % n_questions] for i in flat_item.tolist()],
        slot_type=[SLOT_TYPES[t] for t in hits.types.ravel().tolist()],
        slot=slot_labels, original_slot=original, score=score.ravel(),
        seconds=np.round(rng.lognormal(math.log(8), 0.5, len(flat_item)), 3),
    )


def _one_pass(rng: np.random.Generator, n_items: int, hits: int) -> np.ndarray:
    """One shuffled pass over the items, wrapped around to fill the last HIT (docs/method.md §2)."""
    shuffled = rng.permutation(n_items)
    need = hits * HIT_SETS * SET_SIZE
    return np.concatenate([shuffled, shuffled[: need - n_items]])


def honest_and_bad_crowd(n_honest: int, n_random: int = 0, n_constant: int = 0, n_always_high: int = 0,
                         *, seed: int = 0) -> dict[str, WorkerProfile]:
    """Convenience: a crowd with the given numbers of each kind."""
    return crowd({"honest": n_honest, "random": n_random, "constant": n_constant,
                  "always_high": n_always_high}, np.random.default_rng(seed))


def systems_evenly_spaced(n: int, *, top: float = 80.0, step: float = 5.0) -> dict[str, float]:
    """``n`` systems ``S01``… with qualities top, top − step, …"""
    return {f"S{i + 1:02d}": top - i * step for i in range(n)}


__all__: Sequence[str] = ("WORKER_KINDS", "DEGRADATION_DROP", "REFERENCE_QUALITY", "WorkerProfile",
                          "random_profile", "crowd", "degraded_quality", "slot_quality", "SimulatedCampaign",
                          "simulate_campaign", "honest_and_bad_crowd", "systems_evenly_spaced")
