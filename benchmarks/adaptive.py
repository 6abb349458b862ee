"""Campaigns in waves against the fixed design, on the same truth: ratings spent, decisions, false separations
and system z-scores (docs/benchmarks.md, "Campaigns in waves"; the method: docs/method.md §12).

    PYTHONPATH=. nice -n 10 python benchmarks/adaptive.py --campaigns 200 --processes 2
        [--cells sample,near-tied,tied,z-study] [--designs matched,matched/futility=0] [--gap 4] [--seed 0]
        [--crowd people|idealised] [--out benchmarks/out/adaptive.json]
    PYTHONPATH=. nice -n 10 python benchmarks/adaptive.py --real FOLDER --campaigns 30 --processes 1

For every cell (a truth: each (system, question) answer's true quality) and campaign (a seed), three campaigns are
simulated on the same truth, each with its own crowd of the crowd model (``--crowd``; one HIT per worker, the
common case on MTurk and Prolific):

* **fixed**: the fixed design (one pass, ``hit_builder.assembly.assemble``, classic layout), analysed once;
* **replicate**: the fixed design again with a fresh crowd: how far a fixed campaign agrees with itself;
* **waves** (one per ``--designs`` entry: a mix, and any ``WaveDesign`` field changed, e.g.
  ``matched/futility=0``): the first wave (``analysis.sequential_plan.first_wave``), then after each wave the
  campaign's analysis, the sequential decisions (``analysis.sequential``) and the next wave's plan
  (``plan_next_wave``), its HITs assembled by ``hit_builder.waves.assemble_wave``, until it stops.

The ``z-study`` cell: on the sample's truth, a first wave of the fixed mix, then the rest of the fixed design's
HITs in one wave over-sampling two middling systems, by the ``contention`` mix and by the ``matched`` one,
against the fixed design: the systematic difference of every system's z-score. ``--real FOLDER`` measures the
stopping rule alone on real people's ratings (WMT21 newstest2021 to English, WMT's raw files): the HITs revealed
in a random order, and every system split in two halves of equal quality for false separations.

Every analysis is the platform's own (``analysis.report.analyze``, α 0.05), with quality control off: no worker
of either model is automated, so the designs alone are compared, at a quarter of the cost (the fitted people's
careless HITs stay in: quality control would drop some of them). No HTTP, no database: the HITs are the real
assembler's, the ratings the crowd model's.

Cells: ``sample`` is the bundled sample's truth (8 systems, 300 questions); ``near-tied`` moves two systems next to
a neighbour (``orion`` to ``atlas`` − ``--gap``, ``vega`` to ``lyra`` − ``--gap`` points, each a copy of the
neighbour's per-question qualities in another order); ``tied`` does so with a gap of 0 (pairs of equal true
quality: false separations).

The crowd model is a seam (``CrowdModel``, one entry of ``CROWD_MODELS`` each): ``people``, the default, is the
model fitted to real crowd workers (``da_platform.simulation.people``: personal bias, scale and noise, a bias that
moves between HITs, damaged copies noticed only sometimes, repeats remembered, rounding, whole careless HITs);
``idealised`` is the earlier honest-worker model (``da_platform.simulation.profiles.random_profile("honest")``:
personal bias N(0, 8), scale U(0.6, 1.4), noise U(5, 20) points, every check seen for what it is). Every number
printed names the model it used.
"""
from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.report import GroupAnalysis, analyze
from analysis.sequential import Look, PairState, SequentialDesign, SequentialResult, sequential_decisions
from analysis.sequential_plan import WaveDesign, WaveMix, first_wave, plan_next_wave, rating_moments, wave_mix
from analysis.table import SLOT_TYPES as SLOT_NAMES
from analysis.table import RatingsTable
from da_core.enums import SlotType
from da_platform.simulation.people import KIND_OF, Person, rate_slots
from da_platform.simulation.profiles import WorkerProfile, random_profile, slot_quality
from hit_builder.assembly import Assembly, HitPlan, SlotPlan, assemble
from hit_builder.layouts import CLASSIC
from hit_builder.waves import assemble_wave

ALPHA = 0.05
# The crowd is honest by construction: quality control (94-99 % kept) is left out of the comparison.
QC = QCPolicy(QCMethod.none)
GROUP = "sim"


class Rater(Protocol):
    """One worker rating one HIT."""

    def rate_hit(self, slot_types: Sequence[SlotType], answer_quality: np.ndarray, originals: np.ndarray,
                 rng: np.random.Generator) -> np.ndarray:
        """0-100 integer scores of the HIT's slots in order: each slot's type, the true quality of its answer (a
        check's: its original's) and its original's index in the HIT (-1: none)."""
        ...


class CrowdModel(Protocol):
    """Draws one worker."""

    def __call__(self, rng: np.random.Generator) -> Rater: ...


@dataclass(frozen=True)
class FittedPerson:
    """A person of the model fitted to real crowd workers (``da_platform.simulation.people``)."""

    person: Person

    def rate_hit(self, slot_types: Sequence[SlotType], answer_quality: np.ndarray, originals: np.ndarray,
                 rng: np.random.Generator) -> np.ndarray:
        kinds = np.array([KIND_OF[t.value] for t in slot_types])
        return rate_slots(self.person, kinds, answer_quality, originals, self.person.start_hit(rng), rng)


def people_model(rng: np.random.Generator) -> Rater:
    """The fitted people model (``Person.draw``; a new HIT state, a lapse or not, for every HIT)."""
    return FittedPerson(Person.draw(rng))


@dataclass(frozen=True)
class IdealisedWorker:
    """The idealised honest worker (``WorkerProfile``): every damaged copy noticed, no lapses, no rounding."""

    profile: WorkerProfile

    def rate_hit(self, slot_types: Sequence[SlotType], answer_quality: np.ndarray, originals: np.ndarray,
                 rng: np.random.Generator) -> np.ndarray:
        shown = np.array([slot_quality(t.value, q) for t, q in zip(slot_types, answer_quality.tolist())])
        return self.profile.rate_many(shown, rng)


def idealised_model(rng: np.random.Generator) -> Rater:
    """The idealised honest-worker model (``random_profile("honest")``)."""
    return IdealisedWorker(random_profile("honest", rng))


CROWD_MODELS: dict[str, CrowdModel] = {"people": people_model, "idealised": idealised_model}
DEFAULT_CROWD = "people"


# ---------------------------------------------------------------- truths


def sample_quality() -> dict[str, dict[str, float]]:
    from da_platform.simulation.sample_data import load_truth

    return {s: {q: float(v) for q, v in by_q.items()} for s, by_q in load_truth()["quality"].items()}


TWINS = (("orion", "atlas"), ("vega", "lyra"))  # (replaced, the neighbour it is put next to)


def near_tied(gap: float, seed: int) -> dict[str, dict[str, float]]:
    """The sample's truth with ``orion`` and ``vega`` made twins of their better neighbours (``atlas``, ``lyra``):
    with the campaign's seed, each question's quality of the neighbour and of its twin drawn afresh (with
    replacement) from the neighbour's sample qualities, the twin's ``gap`` points lower (clipped to 0-100). With
    gap 0 the two are of equal true quality: two samples of one population, as two equal systems' answers are
    (a twin drawn from the neighbour's own 300 values would be closer to it than that)."""
    quality = sample_quality()
    rng = np.random.default_rng([seed, 99])
    for twin, of in TWINS:
        questions = sorted(quality[of])
        values = np.array([quality[of][q] for q in questions])
        quality[of] = dict(zip(questions, rng.choice(values, len(values)).tolist()))
        quality[twin] = dict(zip(questions, np.clip(rng.choice(values, len(values)) - gap, 0, 100).tolist()))
    return quality


def cell_truth(cell: str, gap: float, seed: int) -> dict[str, dict[str, float]]:
    if cell == "sample":
        return sample_quality()
    if cell == "near-tied":
        return near_tied(gap, seed)
    if cell == "tied":
        return near_tied(0.0, seed)
    raise ValueError(f"unknown cell {cell!r}")


def population_order(cell: str) -> list[str]:
    """The systems best first as the cell defines them (a twin just below its neighbour)."""
    order = list(sample_quality())
    order = sorted(order, key=lambda s: -float(np.mean(list(sample_quality()[s].values()))))
    if cell != "sample":
        for twin, of in TWINS:
            order.remove(twin)
            order.insert(order.index(of) + 1, twin)
    return order


# ---------------------------------------------------------------- one campaign


def item_of(slot: SlotPlan) -> tuple[str, str]:
    """The (system, question) a slot rates (the items this benchmark gives the assembler)."""
    item = slot.item
    if not (isinstance(item, tuple) and len(item) == 2):
        raise TypeError(f"not a (system, question) item: {item!r}")
    return str(item[0]), str(item[1])


@dataclass
class Columns:
    """The ratings of one simulated campaign so far, column by column."""

    worker: list[str] = field(default_factory=list)
    hit: list[str] = field(default_factory=list)
    system: list[str] = field(default_factory=list)
    item: list[str] = field(default_factory=list)
    slot_type: list[str] = field(default_factory=list)
    slot: list[str] = field(default_factory=list)
    original_slot: list[str] = field(default_factory=list)
    score: list[int] = field(default_factory=list)

    def table(self) -> RatingsTable:
        return RatingsTable.from_columns(group=[GROUP] * len(self.score), worker=self.worker, hit=self.hit,
                                         system=self.system, item=self.item, slot_type=self.slot_type,
                                         slot=self.slot, original_slot=self.original_slot, score=self.score)


@dataclass
class Crowd:
    """Workers drawn one per HIT from a crowd model, with their own score generators."""

    model: CrowdModel
    rng: np.random.Generator
    count: int = 0

    def rate(self, hits: Sequence[HitPlan], quality: Mapping[tuple[str, str], float], columns: Columns) -> None:
        for hit in hits:
            worker = self.model(self.rng)
            name = f"w{self.count:05d}"
            self.count += 1
            index = {s.position: k for k, s in enumerate(hit.slots)}
            originals = np.array([-1 if s.original_position is None else index[s.original_position]
                                  for s in hit.slots])
            answers = np.array([quality[item_of(s)] for s in hit.slots])
            scores = worker.rate_hit([s.slot_type for s in hit.slots], answers, originals, self.rng)
            for slot, score in zip(hit.slots, scores.tolist()):
                system, question = item_of(slot)
                columns.worker.append(name)
                columns.hit.append(f"h{hit.index}")
                columns.system.append(system)
                columns.item.append(question)
                columns.slot_type.append(slot.slot_type.value)
                columns.slot.append(f"h{hit.index}-{slot.position}")
                columns.original_slot.append("" if slot.original_position is None
                                             else f"h{hit.index}-{slot.original_position}")
                columns.score.append(int(score))


def analysed(columns: Columns) -> tuple[GroupAnalysis, RatingsTable]:
    table = columns.table()
    return analyze(table, qc=QC, alpha=ALPHA).groups[GROUP], table


@dataclass(frozen=True)
class Outcome:
    """What one design of one campaign ended with."""

    hits: int
    ratings: int  # every slot rated (checks included): what is paid
    z: dict[str, float]
    top: str
    wins: dict[str, str]  # "a|b" (a < b by name) -> the better one, or "" when not separated
    waves: list[dict[str, Any]] = field(default_factory=list)  # per wave: hits so far, decided pairs
    reached: int | None = None  # waves only: ratings when its decisions first contained the fixed design's
    undecided: list[str] = field(default_factory=list)
    decided_at: dict[str, int] = field(default_factory=dict)  # pair -> ratings when it was decided


def pair_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def fixed_decisions(group: GroupAnalysis) -> dict[str, str]:
    ranking = group.ranking
    out = {}
    for i, a in enumerate(ranking.systems):
        for j, b in enumerate(ranking.systems):
            if a < b:
                p_ab, p_ba = ranking.pvalues[i, j], ranking.pvalues[j, i]
                better = a if p_ab < ALPHA and ranking.z[i] > ranking.z[j] else \
                    b if p_ba < ALPHA and ranking.z[j] > ranking.z[i] else ""
                out[pair_key(a, b)] = better
    return out


def sequential_wins(result: SequentialResult) -> dict[str, str]:
    return {pair_key(p.first, p.second): p.better or "" for p in result.pairs}


def run_fixed(items: list[tuple[str, str]], quality: Mapping[tuple[str, str], float], crowd: Crowd,
              seed: int, plan: Assembly | None = None) -> Outcome:
    plan = plan or assemble(items, seed=seed, layout=CLASSIC)
    columns = Columns()
    crowd.rate(plan.hits, quality, columns)
    group, _ = analysed(columns)
    z = {s.system: s.z for s in group.system_scores}
    return Outcome(len(plan.hits), len(columns.score), z, group.ranking.systems[0], fixed_decisions(group))


def reached_fixed(decisions: Mapping[str, str], fixed: Mapping[str, str]) -> bool:
    """Every pair the fixed design separated is decided the same way."""
    return all(decisions.get(k) == v for k, v in fixed.items() if v)


def run_waves(items: list[tuple[str, str]], quality: Mapping[tuple[str, str], float], crowd: Crowd, seed: int,
              design: WaveDesign, fixed: Outcome, reference: Assembly) -> Outcome:
    systems = sorted({s for s, _ in items})
    by_system = {s: [i for i in items if i[0] == s] for s in systems}
    balanced = {s: float(len(by_system[s])) for s in systems}
    reference_hits = len(reference.hits)  # the fixed design's HITs: the budget's unit
    planned_ratings = {s: 0 for s in systems}
    for hit in reference.hits:
        for slot in hit.slots:
            if slot.slot_type in (SlotType.SYSTEM, SlotType.REPEAT):
                planned_ratings[item_of(slot)[0]] += 1
    sequential = SequentialDesign(planned_ratings, ALPHA, design.spending, design.information_ratio)
    plan = first_wave(design, balanced=balanced, reference_hits=reference_hits)
    columns = Columns()
    planned: dict[Hashable, int] = {}
    looks: list[Look] = []
    hits = 0
    waves: list[dict[str, Any]] = []
    ratings_at: dict[int, int] = {}
    reached = None
    result: SequentialResult | None = None
    group: GroupAnalysis | None = None
    while True:
        wave = assemble_wave(by_system, plan.shares, plan.hits, seed=seed, wave=plan.wave, first_index=hits,
                             layout=CLASSIC, planned=planned, at_least_one=plan.contention)
        for hit in wave.hits:
            for slot in hit.slots:
                if slot.slot_type is SlotType.SYSTEM:
                    planned[slot.item] = planned.get(slot.item, 0) + 1
        crowd.rate(wave.hits, quality, columns)
        hits += len(wave.hits)
        group, table = analysed(columns)
        ratings_at[plan.wave] = len(columns.score)
        looks.append(Look.of(plan.wave, group.ranking, {s.system: s.n_ratings for s in group.system_scores}))
        result = sequential_decisions(looks, sequential)
        decided = sequential_wins(result)
        if reached is None and reached_fixed(decided, fixed.wins):
            reached = len(columns.score)
        kept = frozenset(w.worker for w in group.scores.workers if w.included)
        nxt = plan_next_wave(result, rating_moments(table, GROUP, kept), design, balanced=balanced,
                             reference_hits=reference_hits, hits_so_far=hits, wave=plan.wave + 1)
        waves.append({"wave": plan.wave, "hits": hits, "contention": list(plan.contention),
                      "share": round(plan.mix.contention_share, 4) if plan.mix else None,
                      "decided": sum(1 for p in result.pairs if p.state is PairState.decided)})
        if nxt.stop is not None:
            break
        plan = nxt
    assert group is not None and result is not None
    final = sequential_decisions(looks, sequential, final=True)
    decided = sequential_wins(final)
    if reached is None and reached_fixed(decided, fixed.wins):
        reached = len(columns.score)
    z = {s.system: s.z for s in group.system_scores}
    return Outcome(hits, len(columns.score), z, group.ranking.systems[0], decided, waves, reached,
                   [pair_key(p.first, p.second) for p in final.pairs if p.state is not PairState.decided],
                   {pair_key(p.first, p.second): ratings_at[p.wave] for p in final.pairs if p.wave is not None})


def one_campaign(cell: str, seed: int, designs: Sequence[str], gap: float, model: str) -> dict[str, Any]:
    truth = cell_truth(cell, gap, seed)
    quality = {(s, q): v for s, by_q in truth.items() for q, v in by_q.items()}
    items = sorted(quality)
    crowd_model = CROWD_MODELS[model]
    reference = assemble(items, seed=seed, layout=CLASSIC)
    fixed = run_fixed(items, quality, Crowd(crowd_model, np.random.default_rng([seed, 1])), seed, reference)
    replicate = run_fixed(items, quality, Crowd(crowd_model, np.random.default_rng([seed, 2])), seed + 10_000)
    out: dict[str, Any] = {"cell": cell, "seed": seed, "fixed": asdict(fixed), "replicate": asdict(replicate)}
    for k, label in enumerate(designs):
        outcome = run_waves(items, quality, Crowd(crowd_model, np.random.default_rng([seed, 3 + k])), seed,
                            design_of(label), fixed, reference)
        out[label] = asdict(outcome)
    return out


def run_two_systems(items: list[tuple[str, str]], quality: Mapping[tuple[str, str], float], crowd: Crowd, seed: int,
                    two: tuple[str, str], mix: WaveMix) -> Outcome:
    """The z-score study's campaign: a first wave of the fixed mix (a quarter of the budget), then the rest of the
    fixed design's HITs in one wave that rates the systems ``two`` more, mixed by ``mix`` (the contention mix: 90 %
    of every HIT's ordinary slots from the two); no stopping."""
    systems = sorted({s for s, _ in items})
    by_system = {s: [i for i in items if i[0] == s] for s in systems}
    balanced = {s: float(len(by_system[s])) for s in systems}
    reference_hits = len(assemble(items, seed=seed, layout=CLASSIC).hits)
    design = WaveDesign(mix=mix)
    plan = first_wave(design, balanced=balanced, reference_hits=reference_hits)
    columns = Columns()
    first = assemble_wave(by_system, plan.shares, plan.hits, seed=seed, wave=1, first_index=0)
    crowd.rate(first.hits, quality, columns)
    group, table = analysed(columns)
    kept = frozenset(w.worker for w in group.scores.workers if w.included)
    shares = wave_mix(two, rating_moments(table, GROUP, kept), balanced, mix=mix, floor=design.floor,
                      tolerance=design.tolerance).shares
    planned = Counter(i for hit in first.hits for i in hit.ordinary_items())
    second = assemble_wave(by_system, shares, reference_hits - plan.hits, seed=seed, wave=2, first_index=plan.hits,
                           planned=planned, at_least_one=two)
    crowd.rate(second.hits, quality, columns)
    group, _ = analysed(columns)
    return Outcome(reference_hits, len(columns.score), {s.system: s.z for s in group.system_scores},
                   group.ranking.systems[0], fixed_decisions(group),
                   waves=[{"wave": 2, "share of the two": round(sum(shares[s] for s in two), 4)}])


def z_study(seed: int, model: str) -> dict[str, Any]:
    """One campaign of the z-score study on the sample's truth: fixed vs a second wave over-sampling ``orion`` and
    ``lyra`` (adjacent, in the middle) by the contention mix and by the matched mix."""
    truth = sample_quality()
    quality = {(s, q): v for s, by_q in truth.items() for q, v in by_q.items()}
    items = sorted(quality)
    crowd_model = CROWD_MODELS[model]
    fixed = run_fixed(items, quality, Crowd(crowd_model, np.random.default_rng([seed, 1])), seed)
    out: dict[str, Any] = {"fixed": asdict(fixed)}
    for k, mix in enumerate((WaveMix.contention, WaveMix.matched)):
        crowd = Crowd(crowd_model, np.random.default_rng([seed, 5 + k]))
        out[mix.value] = asdict(run_two_systems(items, quality, crowd, seed, TWO_SYSTEMS, mix))
    return out


TWO_SYSTEMS = ("orion", "lyra")


def summarise_z_study(runs: list[dict[str, Any]]) -> dict[str, Any]:
    systems = list(runs[0]["fixed"]["z"])
    out: dict[str, Any] = {"campaigns": len(runs), "two systems": list(TWO_SYSTEMS)}
    for mix in (WaveMix.contention.value, WaveMix.matched.value):
        differences = np.array([[r[mix]["z"][s] - r["fixed"]["z"][s] for s in systems] for r in runs])
        bias = differences.mean(axis=0)
        se = differences.std(axis=0, ddof=1) / math.sqrt(len(runs))
        out[mix] = {"share of the two in the second wave (mean)": float(np.mean(
                        [r[mix]["waves"][0]["share of the two"] for r in runs])),
                    "z bias vs fixed (mean, its standard error)": {
                        s: [round(float(b), 4), round(float(e), 4)] for s, b, e in zip(systems, bias, se)},
                    "mean |z bias|": float(np.mean(np.abs(bias)))}
    return out


# ---------------------------------------------------------------- real people: WMT21 to-English

REAL_SHARES = (0.25, 0.40, 0.55, 0.70, 0.85, 1.0)  # looks after these shares of the HITs (the waves' sizes)


def real_tables(folder: Path) -> dict[str, RatingsTable]:
    """Each language pair's ratings (``raw-<pair>.csv.gz``, WMT's raw format) as a table."""
    import gzip
    import shutil
    import tempfile

    from analysis.readers import read_ratings

    tables = {}
    for path in sorted(folder.glob("raw-*.csv.gz")):
        with tempfile.NamedTemporaryFile(suffix=".csv") as plain:
            with gzip.open(path) as packed:
                shutil.copyfileobj(packed, plain)
            plain.flush()
            table = read_ratings(plain.name, "wmt")
        tables[table.groups()[0]] = table
    return tables


def _real_look(table: RatingsTable, wave: int) -> tuple[Look, dict[str, str]]:
    group = analyze(table, qc=QC, alpha=ALPHA).groups[table.groups()[0]]
    return (Look.of(wave, group.ranking, {s.system: s.n_ratings for s in group.system_scores}),
            fixed_decisions(group))


def _hits_in_order(table: RatingsTable, rng: np.random.Generator) -> list[np.ndarray]:
    """Row indices of each look: the HITs in a random order, cut at ``REAL_SHARES``."""
    hits = rng.permutation(len(table.hit.labels))
    rank = np.empty_like(hits)
    rank[hits] = np.arange(len(hits))
    order = rank[table.hit.codes]
    return [np.flatnonzero(order < math.ceil(share * len(hits))) for share in REAL_SHARES]


def _split(table: RatingsTable, rng: np.random.Generator) -> RatingsTable:
    """Every system split in two by its items (a random half of its segments renamed ``<system>~b``): two
    pseudo-systems of equal true quality, rated by the same real people."""
    half = rng.random(len(table.item.labels)) < 0.5
    systems = [f"{s}~b" if half[i] else s for s, i in zip(table.system.values(), table.item.codes.tolist())]
    return RatingsTable.from_columns(
        group=table.group.values(), worker=table.worker.values(), hit=table.hit.values(), system=systems,
        item=table.item.values(), slot_type=[SLOT_NAMES[t] for t in table.slot_type.tolist()],
        slot=table.slot.values(), original_slot=[table.slot.labels[table.slot.codes[o]] if o >= 0 else ""
                                                 for o in table.original.tolist()],
        score=table.score)


def real_campaign(table: RatingsTable, seed: int, design: WaveDesign) -> dict[str, Any]:
    """One campaign on real ratings: the HITs revealed in a random order, a look after each share of
    ``REAL_SHARES``, the sequential decisions (the fixed design's N as planned) until the campaign would stop
    (settled, or every open pair set aside); against the fixed analysis of all the ratings. The HITs cannot be
    chosen (they were rated), so only the stopping rule is measured, not the over-sampling."""
    rng = np.random.default_rng(seed)
    full, fixed = _real_look(table, len(REAL_SHARES))
    sequential = SequentialDesign(dict(full.ratings), ALPHA, design.spending, design.information_ratio)
    looks: list[Look] = []
    reached = stopped = None
    rows = _hits_in_order(table, rng)
    for k, selected in enumerate(rows):
        look, _ = _real_look(table.select(selected), k + 1)
        looks.append(look)
        result = sequential_decisions(looks, sequential, final=k == len(rows) - 1)
        if reached is None and reached_fixed(sequential_wins(result), fixed):
            reached = REAL_SHARES[k]
        if result.settled or not result.in_contention(design.futility):
            stopped = REAL_SHARES[k]
            result = sequential_decisions(looks, sequential, final=True)
            break
    assert result is not None
    decided = sequential_wins(result)
    if reached is None and reached_fixed(decided, fixed):
        reached = stopped
    return {"stopped": stopped, "reached": reached, "fixed": fixed, "waves": decided,
            "order": list(full.systems)}


def real_null(table: RatingsTable, seed: int, design: WaveDesign) -> dict[str, Any]:
    """False separations on real people: every system split in two equal halves; the fixed design's and the
    sequential design's separations of each system from its own other half."""
    rng = np.random.default_rng([seed, 7])
    split = _split(table, rng)
    full, fixed = _real_look(split, len(REAL_SHARES))
    originals = sorted(s for s in full.systems if not s.endswith("~b") and f"{s}~b" in full.systems)
    sequential = SequentialDesign(dict(full.ratings), ALPHA, design.spending, design.information_ratio)
    looks = []
    for k, selected in enumerate(_hits_in_order(split, rng)):
        looks.append(_real_look(split.select(selected), k + 1)[0])
    separated = {"fixed": 0, "waves": 0}
    for s in originals:
        pair = [_two(look, s, f"{s}~b") for look in looks]
        result = sequential_decisions(pair, sequential, final=True)
        separated["waves"] += result.pairs[0].better is not None
        separated["fixed"] += bool(fixed[pair_key(s, f"{s}~b")])
    return {"pairs": len(originals), **separated}


def _two(look: Look, a: str, b: str) -> Look:
    """The look restricted to two systems (the pairwise tests are pairwise: nothing else changes)."""
    index = [look.systems.index(a), look.systems.index(b)]
    return Look(look.wave, (a, b), (look.z[index[0]], look.z[index[1]]), look.pvalues[np.ix_(index, index)],
                {a: look.ratings[a], b: look.ratings[b]})


def _real_job(args: tuple[str, str, int, str]) -> dict[str, Any]:
    kind, pair, seed, label = args
    table = _REAL_TABLES[pair]
    if kind == "null":
        return {"pair": pair, **real_null(table, seed, design_of(label))}
    return {"pair": pair, **real_campaign(table, seed, design_of(label))}


_REAL_TABLES: dict[str, RatingsTable] = {}


def summarise_real(runs: list[dict[str, Any]], nulls: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"campaigns": len(runs), "looks after shares of the HITs": list(REAL_SHARES)}
    for pair in sorted({r["pair"] for r in runs}) + ["all"]:
        mine = [r for r in runs if pair in ("all", r["pair"])]
        adjacent = [[pair_key(a, b) for a, b in zip(r["order"], r["order"][1:])] for r in mine]
        reached = np.array([r["reached"] if r["reached"] is not None else math.inf for r in mine])
        null = [n for n in nulls if pair in ("all", n["pair"])]
        null_pairs = sum(n["pairs"] for n in null)
        out[pair] = {
            "HITs used / all (median)": float(np.median([r["stopped"] for r in mine])),
            "HITs to the fixed design's decisions / all (median)": float(np.median(reached)),
            "campaigns reaching the fixed design's decisions": float(np.mean(np.isfinite(reached))),
            "pairs the fixed design separates (mean)": float(np.mean([sum(1 for v in r["fixed"].values() if v)
                                                                       for r in mine])),
            "pairs the waves separate (mean)": float(np.mean([sum(1 for v in r["waves"].values() if v)
                                                               for r in mine])),
            "same top and adjacent decisions as the fixed design": float(np.mean(
                [all(r["waves"][k] == r["fixed"][k] for k in keys) and r["order"][0] == r["order"][0]
                 for r, keys in zip(mine, adjacent)])),
            "adjacent decisions agreeing": float(np.mean([r["waves"][k] == r["fixed"][k]
                                                          for r, keys in zip(mine, adjacent) for k in keys])),
            "decisions contradicting the fixed design's": int(sum(1 for r in mine for k, v in r["waves"].items()
                                                                 if v and r["fixed"][k] and v != r["fixed"][k])),
            "null pairs": null_pairs,
            "false separations, fixed": sum(n["fixed"] for n in null) / null_pairs if null_pairs else math.nan,
            "false separations, waves": sum(n["waves"] for n in null) / null_pairs if null_pairs else math.nan,
        }
    return out


def run_real(folder: Path, campaigns: int, seed: int, label: str, processes: int) -> dict[str, Any]:
    _REAL_TABLES.update(real_tables(folder))
    jobs = [(kind, pair, seed + k, label) for pair in sorted(_REAL_TABLES) for k in range(campaigns)
            for kind in ("campaign", "null")]
    if processes > 1:
        with ProcessPoolExecutor(min(processes, 2)) as pool:
            done = list(pool.map(_real_job, jobs, chunksize=4))
    else:
        done = [_real_job(job) for job in jobs]
    runs = [d for d, job in zip(done, jobs) if job[0] == "campaign"]
    nulls = [d for d, job in zip(done, jobs) if job[0] == "null"]
    return summarise_real(runs, nulls)


def design_of(label: str) -> WaveDesign:
    """``matched`` or e.g. ``matched/floor=0.5/futility=0``: a mix and any other ``WaveDesign`` fields."""
    mix, *changes = label.split("/")
    fields: dict[str, Any] = {}
    for change in changes:
        name, value = change.split("=")
        fields[name] = value if name == "spending" else float(value)
    return WaveDesign(mix=WaveMix(mix), **fields)


# ---------------------------------------------------------------- summary


def summarise(runs: list[dict[str, Any]], cell: str, gap: float, designs: Sequence[str]) -> dict[str, Any]:
    order = population_order(cell)
    adjacent = [pair_key(a, b) for a, b in zip(order, order[1:])]
    equal = [pair_key(twin, of) for twin, of in TWINS] if cell == "tied" else []
    summary: dict[str, Any] = {"campaigns": len(runs), "true order": order, "equal pairs": equal}

    def same(x: dict[str, Any], y: dict[str, Any]) -> bool:
        return x["top"] == y["top"] and all(x["wins"][k] == y["wins"][k] for k in adjacent)

    def false_rate(key: str) -> float:
        n = sum(1 for r in runs for k in equal)
        return sum(1 for r in runs for k in equal if r[key]["wins"][k]) / n if n else math.nan

    fixed_ratings = np.array([r["fixed"]["ratings"] for r in runs])
    summary["fixed"] = {"ratings": float(np.median(fixed_ratings)), "false separations": false_rate("fixed"),
                        "same as replicate": float(np.mean([same(r["fixed"], r["replicate"]) for r in runs])),
                        "pairs per campaign": {k: float(np.mean([bool(r["fixed"]["wins"][k]) for r in runs]))
                                               for k in adjacent}}
    systems = order
    for mix in designs:
        reached = np.array([r[mix]["reached"] if r[mix]["reached"] is not None else math.inf for r in runs])
        share = reached / fixed_ratings
        spent = np.array([r[mix]["ratings"] for r in runs]) / fixed_ratings
        bias = {s: float(np.mean([r[mix]["z"][s] - r["fixed"]["z"][s] for r in runs])) for s in systems}
        replicate_bias = {s: float(np.mean([r["replicate"]["z"][s] - r["fixed"]["z"][s] for r in runs]))
                          for s in systems}
        summary[mix] = {
            "ratings to fixed's decisions / fixed (median)": float(np.median(share)),
            "campaigns reaching fixed's decisions": float(np.mean(np.isfinite(reached))),
            "ratings spent / fixed (median)": float(np.median(spent)),
            "ratings spent / fixed (mean)": float(np.mean(spent)),
            "false separations": false_rate(mix),
            "same top and adjacent decisions as fixed": float(np.mean([same(r[mix], r["fixed"]) for r in runs])),
            "adjacent pairs agreeing with fixed": {k: float(np.mean([r[mix]["wins"][k] == r["fixed"]["wins"][k]
                                                                     for r in runs])) for k in adjacent},
            "pairs per campaign": {k: float(np.mean([bool(r[mix]["wins"][k]) for r in runs])) for k in adjacent},
            "z bias vs fixed (mean over campaigns)": bias,
            "mean |z bias|": float(np.mean([abs(v) for v in bias.values()])),
            "replicate's mean |z bias| (the noise floor)": float(np.mean([abs(v) for v in replicate_bias.values()])),
            "mean |z difference| per campaign": float(np.mean([abs(r[mix]["z"][s] - r["fixed"]["z"][s])
                                                               for r in runs for s in systems])),
            "replicate's mean |z difference| per campaign": float(np.mean(
                [abs(r["replicate"]["z"][s] - r["fixed"]["z"][s]) for r in runs for s in systems])),
            "waves (median)": float(np.median([len(r[mix]["waves"]) for r in runs])),
            "ratings when decided / fixed (median, adjacent pairs)": {
                k: (float(np.median([r[mix]["decided_at"][k] / r["fixed"]["ratings"] for r in runs
                                     if k in r[mix]["decided_at"]])) if any(k in r[mix]["decided_at"] for r in runs)
                    else None) for k in adjacent},
        }
    return summary


def _job(args: tuple[str, int, tuple[str, ...], float, str]) -> dict[str, Any]:
    if args[0] == "z-study":
        return z_study(args[1], args[4])
    return one_campaign(*args)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, default=200)
    parser.add_argument("--cells", default="sample,near-tied,tied,z-study")
    parser.add_argument("--designs", default="matched,matched/futility=0")
    parser.add_argument("--gap", type=float, default=4.0, help="points between a near-tied pair (default 4)")
    parser.add_argument("--crowd", default=DEFAULT_CROWD, choices=sorted(CROWD_MODELS),
                        help="the crowd's model: people (default: fitted to real crowd workers, "
                             "da_platform.simulation.people) or idealised (the earlier honest-worker model)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out/adaptive.json"))
    parser.add_argument("--real", type=Path, help="a folder of WMT21 newstest2021 to-English raw ratings "
                        "(raw-<pair>.csv.gz, WMT's raw format): the stopping rule on real people's ratings instead")
    args = parser.parse_args(argv)
    if args.real is not None:
        started = time.perf_counter()
        label = args.designs.split(",")[0]
        found = run_real(args.real, args.campaigns, args.seed, label, args.processes)
        print(f"## real people: WMT21 newstest2021 to English ({label}; {args.campaigns} campaigns per language "
              f"pair; {time.perf_counter() - started:.0f} s)")
        print(json.dumps(found, indent=1))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"design": design_of(label).describe(), "real": found}, indent=1),
                            encoding="utf-8")
        return
    designs = tuple(args.designs.split(","))
    report: dict[str, Any] = {"crowd model": args.crowd, "campaigns per cell": args.campaigns, "alpha": ALPHA,
                              "qc": QC.to_dict(), "gap": args.gap, "designs": {m: design_of(m).describe()
                                                                      for m in designs}, "cells": {}}
    started = time.perf_counter()
    for cell in args.cells.split(","):
        jobs = [(cell, args.seed + k, designs, args.gap, args.crowd) for k in range(args.campaigns)]
        if args.processes > 1:
            with ProcessPoolExecutor(min(args.processes, 2)) as pool:
                runs = list(pool.map(_job, jobs, chunksize=4))
        else:
            runs = [_job(job) for job in jobs]
        report["cells"][cell] = (summarise_z_study(runs) if cell == "z-study"
                                 else summarise(runs, cell, args.gap, designs))
        print(f"## {cell} (crowd model: {args.crowd}; {len(runs)} campaigns; {time.perf_counter() - started:.0f} s)")
        print(json.dumps(report["cells"][cell], indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
