"""Simulated people fitted to real crowd workers: the honest worker of the demo, ``simulate`` and the benchmarks.

The model is fitted to real MTurk workers' HITs with their check items (``people.json`` beside this module says on
which, with the command that refits it, ``benchmarks/real_people.py fit-model``). It turns each answer's true
quality q (0-100, what the sample's ``truth.json`` or ``simulate --truth`` gives) into a person's integer score:

- **between workers**: a bias b ~ N(bias_mean, bias_sd), a scale a ~ logN(scale_log_mean, scale_log_sd) and a
  noise SD s ~ logN(noise_log_mean, noise_log_sd); habits of rounding to 10 and to 5; a memory (the chance a
  repeat gets exactly the score its original got); a lapse rate; a habit of putting references at the end of the
  slider, Beta(ref_top, ref_top_concentration) (real workers mostly do it always or never);
- **between one worker's HITs**: the bias moves by N(0, bias_hit_sd); each damaged copy is noticed with a
  chance drawn for the HIT, Beta(notice_mean, notice_concentration); a repeat is read afresh, its perceived
  quality off by N(0, r) with r ~ logN(repeat_noise_log_mean, repeat_noise_log_sd) drawn for the HIT (how closely
  one HIT's repeats follow their originals varies between HITs as real people's do); and with the worker's lapse
  rate the HIT is
  a **lapse**: scores that do not depend on what is shown (around ``lapse_level`` moved by the worker's bias, SD up
  to ``lapse_noise``; in a share ``lapse_floor`` of lapses around 0, the slider left where it starts), as real
  careful people sometimes give a whole HIT;
- **per item**: score = 50 + b + a·(q' − 50) + s·N(0, 1), bent towards 100 above 100 − ``soft_top``
  (``soft_ceiling``), rounded and clipped to 0-100, where q' is what the
  person perceives: q for an answer, q + N(0, r) for its repeat; for a damaged or meaning-changed copy, q less a share
  Beta(drop_a, drop_b) of q when noticed, else q; for a reference shown as the candidate, 100 − Exp(ref_gap),
  and the person's share of references (their habit above) get 100, whatever their bias and scale (real people
  put nearly half of the references at the end of the slider, most of them every one or none).

``IDEALISED`` names the earlier model (``da_platform.simulation.profiles.WorkerProfile``): no lapses, every damaged
copy noticed; tests that need a worker with known parameters use that one.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

PARAMETERS_FILE = Path(__file__).with_name("people.json")
IDEALISED = "da_platform.simulation.profiles.WorkerProfile (no lapses, every damaged copy noticed)"
SYSTEM, REPEAT, DAMAGED, REF = 0, 1, 2, 3
"""Slot kinds as the model sees them (MEANING checks are damaged copies)."""
KIND_OF = {"SYSTEM": SYSTEM, "REPEAT": REPEAT, "BAD_REF": DAMAGED, "MEANING": DAMAGED, "REF": REF}


@dataclass(frozen=True)
class PeopleModel:
    """The fitted parameters (module docstring); ``quality_a``/``quality_b`` describe the fitted release's answers
    (q = 100 · Beta(a, b)) and are used only to check the fit on it."""

    bias_mean: float = 10.0
    bias_sd: float = 10.0
    bias_hit_sd: float = 4.0
    scale_log_mean: float = 0.0
    scale_log_sd: float = 0.3
    noise_log_mean: float = 2.3
    noise_log_sd: float = 0.4
    lapse_mean: float = 0.05
    lapse_concentration: float = 2.0
    lapse_noise: float = 15.0
    lapse_level: float = 50.0
    lapse_floor: float = 0.0
    notice_mean: float = 0.7
    notice_concentration: float = 4.0
    drop_a: float = 2.0
    drop_b: float = 2.0
    ref_gap: float = 10.0
    ref_top: float = 0.5
    ref_top_concentration: float = 1000.0
    soft_top: float = 1.0
    memory_mean: float = 0.15
    repeat_noise_log_mean: float = 0.0
    repeat_noise_log_sd: float = 0.5
    round10_mean: float = 0.2
    round5_mean: float = 0.3
    quality_a: float = 3.0
    quality_b: float = 1.2
    source: str = "not fitted"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PeopleModel:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_json(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}

    def vector(self) -> np.ndarray:
        """The numeric parameters in field order (for fitting)."""
        return np.array([getattr(self, f.name) for f in fields(self) if f.name != "source"], dtype=np.float64)

    def with_vector(self, values: np.ndarray, source: str | None = None) -> PeopleModel:
        names = [f.name for f in fields(self) if f.name != "source"]
        return PeopleModel(**dict(zip(names, (float(v) for v in values))), source=source or self.source)


@cache
def fitted_model() -> PeopleModel:
    """The model that ships with the platform (``people.json``)."""
    return PeopleModel.from_json(json.loads(PARAMETERS_FILE.read_text(encoding="utf-8")))


def _beta(rng: np.random.Generator, mean: float, concentration: float, size: int | None = None) -> Any:
    mean = min(max(mean, 1e-4), 1 - 1e-4)
    return rng.beta(mean * concentration, (1 - mean) * concentration, size)


@dataclass(frozen=True)
class Person:
    """One simulated person's own parameters (drawn by :meth:`draw`)."""

    bias: float
    scale: float
    noise: float
    lapse: float
    round10: float
    round5: float
    memory: float
    model: PeopleModel = field(repr=False)
    ref_top: float = 0.5  # the share of references this person puts at the end of the slider

    @classmethod
    def draw(cls, rng: np.random.Generator, model: PeopleModel | None = None) -> Person:
        m = model or fitted_model()
        return cls(float(rng.normal(m.bias_mean, m.bias_sd)), float(rng.lognormal(m.scale_log_mean, m.scale_log_sd)),
                   float(rng.lognormal(m.noise_log_mean, m.noise_log_sd)),
                   float(_beta(rng, m.lapse_mean, m.lapse_concentration)), float(_beta(rng, m.round10_mean, 2.0)),
                   float(_beta(rng, m.round5_mean, 2.0)), float(_beta(rng, m.memory_mean, 2.0)), m,
                   float(_beta(rng, m.ref_top, m.ref_top_concentration)))

    def start_hit(self, rng: np.random.Generator) -> HitState:
        """This person's state for a new HIT: a lapse or not, the bias of the day, the chance to notice damage, how
        far a repeat is read differently."""
        m = self.model
        lapse = bool(rng.random() < self.lapse)
        return HitState(lapse, self.bias + float(rng.normal(0, m.bias_hit_sd)),
                        0.0 if lapse else float(_beta(rng, m.notice_mean, m.notice_concentration)),
                        float(rng.uniform(0, m.lapse_noise)),
                        repeat_noise=float(rng.lognormal(m.repeat_noise_log_mean, m.repeat_noise_log_sd)),
                        floor=lapse and bool(rng.random() < m.lapse_floor))

    def score(self, kind: int, quality: float, state: HitState, rng: np.random.Generator) -> int:
        """One score for a slot of ``kind`` (``KIND_OF``) whose answer has true quality ``quality``; a repeat of an
        answer already scored in this HIT may get that score again (the person's memory)."""
        if kind == REPEAT and quality in state.given and rng.random() < self.memory:
            return state.given[quality]
        value = int(score_many(self, np.array([kind]), np.array([float(quality)]), state, rng)[0])
        if kind == SYSTEM:
            state.given[quality] = value
        return value


@dataclass
class HitState:
    """A person's state during one HIT."""

    lapse: bool
    bias: float
    notice: float
    lapse_noise: float
    given: dict[float, int] = field(default_factory=dict)  # answers scored in this HIT, by their true quality
    repeat_noise: float = 0.0  # SD of how differently a repeat is perceived in this HIT
    floor: bool = False  # a lapse at the bottom of the slider (where it starts)


def score_many(person: Person, kinds: np.ndarray, quality: np.ndarray, state: HitState,
               rng: np.random.Generator) -> np.ndarray:
    """Scores for slots of ``kinds`` with answers of true ``quality`` in one HIT (no memory: see ``Person.score``)."""
    return scores_of(person.model, kinds, quality, bias=state.bias, scale=person.scale, noise=person.noise,
                     notice=state.notice, lapse=state.lapse, lapse_noise=state.lapse_noise, round10=person.round10,
                     round5=person.round5, repeat_noise=state.repeat_noise, floor=state.floor,
                     ref_top=person.ref_top, rng=rng)


def scores_of(model: PeopleModel, kinds: np.ndarray, quality: np.ndarray, *, bias: Any, scale: Any, noise: Any,
              notice: Any, lapse: Any, lapse_noise: Any, round10: Any, round5: Any,
              rng: np.random.Generator, repeat_noise: Any = 0.0, floor: Any = False,
              ref_top: Any = None) -> np.ndarray:
    """The model's scores (module docstring) for slots of ``kinds`` showing answers of true ``quality``; every
    person and HIT parameter is one number or one per slot (so that many HITs are simulated at once); ``floor``:
    a lapse at the bottom of the slider; ``ref_top``: the person's share of references at the end of the slider
    (default: the model's mean)."""
    n = len(kinds)
    perceived = np.asarray(quality, dtype=np.float64).copy()
    noticed = (kinds == DAMAGED) & (rng.random(n) < notice)
    perceived[noticed] -= perceived[noticed] * rng.beta(model.drop_a, model.drop_b, n)[noticed]
    repeat = kinds == REPEAT
    perceived[repeat] += (np.broadcast_to(repeat_noise, n) * rng.standard_normal(n))[repeat]
    reference = kinds == REF
    top = np.maximum(0.0, 100 - rng.exponential(model.ref_gap, n))
    perceived[reference] = top[reference]
    reading = 50 + bias + scale * (perceived - 50) + noise * rng.standard_normal(n)
    habit = model.ref_top if ref_top is None else ref_top
    at_top = reference & (rng.random(n) < habit)  # a reference recognised as such: the end of the slider
    reading = soft_ceiling(reading, model.soft_top)
    reading[at_top] = 100.0
    level = np.where(floor, 0.0, model.lapse_level + bias)
    lapsed = level + lapse_noise * rng.standard_normal(n)  # a lapse: nothing of what is shown
    return rounded(np.where(lapse, lapsed, reading), round10, round5, rng)


def soft_ceiling(raw: np.ndarray, width: float) -> np.ndarray:
    """Scores above 100 − ``width`` bent towards 100 (100 − width · exp(−excess / width)) instead of cut off:
    real people put much of what they find excellent at 95-99, not all at 100."""
    start = 100.0 - width
    excess = np.maximum(0.0, raw - start)
    return np.where(raw > start, start + width * (1 - np.exp(-excess / width)), raw)


def rate_slots(person: Person, kinds: np.ndarray, quality: np.ndarray, originals: np.ndarray, state: HitState,
               rng: np.random.Generator) -> np.ndarray:
    """A whole HIT's scores at once: ``originals`` gives each repeat's original's index in the HIT (-1: none),
    whose score the person may give again (its memory), as ``Person.score`` does slot by slot."""
    scores = score_many(person, kinds, quality, state, rng)
    repeats = np.flatnonzero((kinds == REPEAT) & (originals >= 0))
    remembered = repeats[rng.random(len(repeats)) < person.memory]
    scores[remembered] = scores[originals[remembered]]
    return scores


def simulate_slots(model: PeopleModel, hit: np.ndarray, worker: np.ndarray, kind: np.ndarray, original: np.ndarray,
                   quality: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Scores of many HITs at once, slots laid end to end: each slot's HIT and worker (codes from 0; a worker is one
    simulated person, a HIT one state of theirs), kind (``KIND_OF``), original (index of the slot a check copies,
    -1: none) and the true quality of its answer; as ``Person`` and ``rate_slots`` would give them one by one."""
    m = model
    n_workers, n_hits = int(worker.max()) + 1, int(hit.max()) + 1
    bias = rng.normal(m.bias_mean, m.bias_sd, n_workers)
    scale = rng.lognormal(m.scale_log_mean, m.scale_log_sd, n_workers)
    noise = rng.lognormal(m.noise_log_mean, m.noise_log_sd, n_workers)
    lapse_rate = _beta(rng, m.lapse_mean, m.lapse_concentration, n_workers)
    round10, round5, memory = (_beta(rng, mean, 2.0, n_workers) for mean in (m.round10_mean, m.round5_mean,
                                                                               m.memory_mean))
    ref_top = _beta(rng, m.ref_top, m.ref_top_concentration, n_workers)
    hit_worker = np.zeros(n_hits, dtype=np.int64)
    hit_worker[hit] = worker
    lapse = rng.random(n_hits) < lapse_rate[hit_worker]
    hit_bias = bias[hit_worker] + rng.normal(0, m.bias_hit_sd, n_hits)
    notice = np.where(lapse, 0.0, _beta(rng, m.notice_mean, m.notice_concentration, n_hits))
    lapse_noise = rng.uniform(0, m.lapse_noise, n_hits)
    repeat_noise = rng.lognormal(m.repeat_noise_log_mean, m.repeat_noise_log_sd, n_hits)
    floor = lapse & (rng.random(n_hits) < m.lapse_floor)
    scores = scores_of(m, kind, quality, bias=hit_bias[hit], scale=scale[worker], noise=noise[worker],
                       notice=notice[hit], lapse=lapse[hit], lapse_noise=lapse_noise[hit], round10=round10[worker],
                       round5=round5[worker], repeat_noise=repeat_noise[hit], floor=floor[hit],
                       ref_top=ref_top[worker], rng=rng)
    repeats = np.flatnonzero((kind == REPEAT) & (original >= 0))
    remembered = repeats[rng.random(len(repeats)) < memory[worker[repeats]]]
    scores[remembered] = scores[original[remembered]]
    return scores


def rounded(raw: np.ndarray, round10: Any, round5: Any, rng: np.random.Generator) -> np.ndarray:
    """Scores clipped to 0-100 and rounded to 10 with chance ``round10``, else to 5 with ``round5``, else to 1."""
    u = rng.random(len(raw))
    step = np.where(u < round10, 10.0, np.where(u < round10 + (1 - round10) * round5, 5.0, 1.0))
    return np.clip(np.rint(np.clip(raw, 0, 100) / step) * step, 0, 100).astype(np.int64)


__all__ = ["DAMAGED", "IDEALISED", "KIND_OF", "PARAMETERS_FILE", "REF", "REPEAT", "SYSTEM", "HitState",
           "PeopleModel", "Person", "fitted_model", "rate_slots", "rounded", "score_many", "scores_of",
           "simulate_slots", "soft_ceiling"]
