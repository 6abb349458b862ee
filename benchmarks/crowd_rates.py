"""Rates, not single workers: many simulated workers of every kind through the platform's verdict
(docs/quality-control.md#the-verdict).

``python benchmarks/adversarial_crowd.py --rates`` (see ``main`` there). For each language (English-only
and Chinese-only campaigns built from the bundled sample) and each layout (classic, hardened), every
worker rates one HIT, and the table goes through ``analysis.report.analyze``: the combined verdict of
``analysis.verdict`` (BAD_REF test, MEANING test, behaviour signals) and the scores of kept workers only.

Cheap on purpose, and said plainly in the results: no HTTP and no OCR. The overlap bots read the stored
texts perfectly (the bot at its best, as ``--offline-overlap``); every worker's behaviour record and the
server's time on each item are made here:

- ``honest``: scores as real crowd workers do (``da_platform.simulation.people``: personal bias, scale, noise,
  unnoticed damage, lapses); reads at the IReST mean rates (228 words/min, 255 CJK characters/min) plus 2.5 s
  to decide, log-normal around that; a person's record (pointer, or touch for 30 %); the server sees that time
  plus the network's.
- ``random``, ``constant``, ``bot``: no record, answered as fast as the server does (0.15-0.3 s).
- ``ocr-overlap``, ``rapidocr-overlap``: ROUGE-L / token F1 of the perfect text; no record, fast.
- ``…-paced``: the same scores; a person's pace and record, and they really wait (the server agrees).
- ``ocr-overlap-paced-nowait``: the same claims, but it does not wait: the server sees 0.15-0.3 s.
- ``oracle-agent``: true quality ± 4; a record without events, 6 s ± 2 % per item; it waits.
"""
from __future__ import annotations

import argparse
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis.evidence import RatingEvidence, reading_units
from analysis.qc_states import QCMethod
from analysis.quality import quality_control
from analysis.report import analyze
from analysis.table import RatingsTable
from analysis.verdict import MEANING_MARGIN_SHARE, WorkerVerdict, worker_verdicts
from da_platform.simulation.adversaries import (
    Item,
    OracleAgent,
    OverlapBot,
    PersonRater,
    Rater,
    Timing,
    make_rater,
    person_record,
    person_timing,
)
from da_platform.simulation.profiles import slot_quality

HAN = re.compile(r"[\u4e00-\u9fff]")
LANGUAGES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "English": lambda q: not HAN.search(q["question"]), "Chinese": lambda q: bool(HAN.search(q["question"]))}
LAYOUTS = ("classic", "hardened")
AUTOMATED = ("random", "constant", "bot", "ocr-overlap", "rapidocr-overlap", "ocr-overlap-paced",
             "rapidocr-overlap-paced", "ocr-overlap-paced-nowait", "oracle-agent")
WAITS = {"honest", "ocr-overlap-paced", "rapidocr-overlap-paced", "oracle-agent"}  # the server sees their time
READING_WPS, READING_CPS, DECIDE_S = 228 / 60, 255 / 60, 2.5  # IReST means (analysis.behaviour_signals), people


@dataclass(frozen=True)
class Slot:
    hit: str
    id: str
    slot_type: str
    original: str
    system: str
    item: str
    candidate: str
    reference: str | None
    quality: float
    answer_quality: float | None = None  # the true quality of its answer (a check's: its original's)


class PerfectReading:
    """An OCR engine that reads every character right: the overlap bot at its best (texts passed as bytes)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def read(self, png: bytes) -> str:
        return png.decode("utf-8")


def rater_for(kind: str, rng: np.random.Generator, touch: bool) -> Rater:
    if kind in ("ocr-overlap", "rapidocr-overlap", "ocr-overlap-paced", "rapidocr-overlap-paced",
                "ocr-overlap-paced-nowait"):
        engine = "rapidocr" if kind.startswith("rapidocr") else "tesseract"
        return OverlapBot(PerfectReading(engine), kind, paced="paced" in kind, touch=touch,
                          waits=kind != "ocr-overlap-paced-nowait")
    if kind == "oracle-agent":
        return OracleAgent()
    return make_rater(kind, rng, touch=touch)


def rate(kind: str, rater: Rater, slot: Slot, rng: np.random.Generator,
         behaviour_rng: np.random.Generator) -> tuple[int, dict | None, float]:
    """Score, behaviour record (None: none sent) and the server's seconds on the item for one slot."""
    item = Item(slot.id, slot.candidate.encode(), slot.reference.encode() if slot.reference else None, slot.quality,
                slot_type=slot.slot_type, answer_quality=slot.answer_quality)
    score = rater.score(item, rng)
    timing: Timing | None
    record: dict | None
    if kind == "honest":
        words, characters = reading_units([slot.candidate, slot.reference or ""])
        seconds = (DECIDE_S + words / READING_WPS + characters / READING_CPS) * behaviour_rng.lognormal(0.0, 0.35)
        timing = person_timing(seconds, behaviour_rng)
        record = person_record(slot.id, timing, behaviour_rng, touch=isinstance(rater, PersonRater) and rater.touch)
    else:
        timing = rater.timing(item, behaviour_rng)
        record = rater.behaviour(item, timing, behaviour_rng)
    network = 0.15 + float(behaviour_rng.uniform(0, 0.15))
    waited = timing.shown_ms / 1000 if timing is not None and kind in WAITS else 0.0
    return score, record, waited + network


def campaign_slots(language: str, layout: str, seed: int, passes: int, out: Path) -> list[Slot]:
    """Build the sample campaign of one language in one layout (SQLite in ``out``) and read its slots."""
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice
    from da_platform.db.engine import make_engine, session_factory, transaction, upgrade
    from da_platform.simulation.sample import import_sample
    from da_platform.simulation.sample_data import load_truth
    from hit_builder.storage import LocalImageStorage

    database = out / f"{language}-{layout}.sqlite"
    database.unlink(missing_ok=True)
    url = f"sqlite:///{database}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    with transaction(sessions) as session:
        test_set = import_sample(session, only=LANGUAGES[language])
        build_campaign(session, BuildSpec(name=layout, test_set=test_set.name, seed=seed, passes=passes,
                                          crowd=CrowdChoice(layout)),
                       storage=LocalImageStorage(out / "images"))
    quality = load_truth()["quality"]
    with sessions() as session:
        slots = read_slots(session, quality)
    engine.dispose()
    return slots


def read_slots(session: Any, quality: Mapping[str, Mapping[str, float]]) -> list[Slot]:
    """Every slot of the database's campaign(s) in HIT and position order, with the truth behind it
    (``quality[system][question]`` of the answer, by ``da_platform.simulation.profiles.slot_quality``)."""
    from sqlalchemy import select

    from da_platform.db.models import Hit, Question, System
    from da_platform.db.models import Slot as SlotRow

    rows = session.execute(
        select(Hit.public_id, SlotRow.id, SlotRow.slot_type, SlotRow.original_slot_id, SlotRow.candidate_text,
               SlotRow.reference_text, System.name, Question.external_id)
        .join(SlotRow, SlotRow.hit_id == Hit.id).join(System, System.id == SlotRow.system_id)
        .join(Question, Question.id == SlotRow.question_id)
        .order_by(Hit.index, SlotRow.position)).all()
    return [Slot(r.public_id, str(r.id), r.slot_type.value,
                 "" if r.original_slot_id is None else str(r.original_slot_id), r.name, r.external_id,
                 r.candidate_text, r.reference_text,
                 slot_quality(r.slot_type.value, float(quality[r.name][r.external_id])),
                 float(quality[r.name][r.external_id])) for r in rows]


def crowd_table(slots: list[Slot], kinds: dict[str, str], seed: int, group: str, honest_hits: int = 1,
                bad_hits: int = 1) -> RatingsTable:
    """Every worker (name -> kind) rates ``honest_hits`` or ``bad_hits`` different HITs (workers of a kind
    spread over the HITs in turn); a worker's checks are tested over all of its HITs (scope: group)."""
    hits: dict[str, list[Slot]] = {}
    for slot in slots:
        hits.setdefault(slot.hit, []).append(slot)
    order = list(hits)
    columns: dict[str, list[Any]] = {c: [] for c in ("group", "worker", "hit", "system", "item", "slot_type",
                                                     "slot", "original_slot", "score", "seconds")}
    statuses, records, candidates, references = [], [], [], []
    turn: Counter[str] = Counter()
    for index, (worker, kind) in enumerate(kinds.items()):
        rng, behaviour_rng = np.random.default_rng([seed, index]), np.random.default_rng([seed, index, 1])
        rater = rater_for(kind, rng, touch=kind == "honest" and turn[kind] % 10 < 3)
        offset = 0 if kind == "honest" else AUTOMATED.index(kind) + 1  # kinds start on different HITs
        taken = honest_hits if kind == "honest" else bad_hits
        chosen = [order[(turn[kind] * taken + j + offset) % len(order)] for j in range(min(taken, len(order)))]
        turn[kind] += 1
        for slot in (s for hit in chosen for s in hits[hit]):
            if slot is hits[slot.hit][0] and isinstance(rater, PersonRater):
                rater.start_hit(rng)  # a person's state for each new HIT
            score, record, seconds = rate(kind, rater, slot, rng, behaviour_rng)
            for column, value in (("group", group), ("worker", worker), ("hit", f"{worker}:{slot.hit}"),
                                  ("system", slot.system), ("item", slot.item), ("slot_type", slot.slot_type),
                                  ("slot", f"{worker}:{slot.id}"),
                                  ("original_slot", f"{worker}:{slot.original}" if slot.original else ""),
                                  ("score", score), ("seconds", seconds)):
                columns[column].append(value)
            statuses.append("valid" if record is not None else "missing")
            records.append(record)
            candidates.append(slot.candidate)
            references.append(slot.reference)
    evidence = RatingEvidence.from_rows(statuses, records, candidates, references, reference_shown=True,
                                        server_seconds=columns["seconds"])
    return RatingsTable.from_columns(**columns, evidence=evidence)  # type: ignore[arg-type]  # (typed columns)


def caught_by(verdict: WorkerVerdict) -> list[str]:
    """The checks and signals that fired on a worker (the pooled test is called ``checks``)."""
    pooling = verdict.qc.method in (QCMethod.pooled, QCMethod.weighted)
    fired = [] if verdict.qc.passed else ["checks" if pooling else "BAD_REF"]
    if verdict.meaning is not None and verdict.meaning.status == "failed":
        fired.append("MEANING")
    return fired + [s.name for s in verdict.flags]


def plan(honest: int, per_kind: int) -> dict[str, str]:
    workers = {f"{kind}-{i:03d}": kind for kind in AUTOMATED for i in range(per_kind)}
    workers.update({f"honest-{i:03d}": "honest" for i in range(honest)})
    return workers


def run_rates(args: argparse.Namespace, out: Path) -> None:
    from da_platform.simulation.demo import order_fact
    from da_platform.simulation.sample_data import load_truth

    true_order = list(load_truth()["order"])
    kinds = plan(args.honest, args.per_kind)
    print(f"rates: {args.honest} honest workers ({args.hits_per_worker} HIT(s) each) and {args.per_kind} of each "
          f"automated kind ({args.bad_hits} HIT(s) each); "
          f"seed {args.seed}, {args.passes} pass(es); no HTTP, perfect OCR, simulated times (see crowd_rates.py)")
    shares = [float(s) for s in args.margin_shares.split(",")] if args.margin_shares else []
    sweep: dict[float, Counter[tuple[str, str, bool]]] = {s: Counter() for s in shares}
    for language in LANGUAGES:
        for layout in LAYOUTS:
            slots = campaign_slots(language, layout, args.seed, args.passes, out)
            table = crowd_table(slots, kinds, args.seed, f"{language}-{layout}", args.hits_per_worker, args.bad_hits)
            group = analyze(table).groups[f"{language}-{layout}"]
            n_hits = len({s.hit for s in slots})
            print(f"\n#### {language}, {layout} layout: {n_hits} HITs, {len(table)} ratings")
            print("| kind | workers | kept (BAD_REF test alone) | kept (combined verdict) | caught | "
                  "caught by (workers) |")
            print("|---|---|---|---|---|---|")
            qc = {w.worker: w.passed for w in group.qc.workers}
            for kind in ("honest", *AUTOMATED):
                names = [w for w, k in kinds.items() if k == kind]
                kept = sum(group.verdicts[w].kept for w in names)
                fired = Counter(name for w in names for name in caught_by(group.verdicts[w]))
                caught = len(names) - kept
                share = caught / len(names)
                print(f"| {kind} | {len(names)} | {sum(qc[w] for w in names)} | {kept} | {caught} ({share:.0%}) | "
                      + ", ".join(f"{n} {c}" for n, c in fired.most_common()) + " |")
            fact = order_fact([s.system for s in group.system_scores], group.ranking.clusters, true_order)
            print(f"order of the {len(true_order)} systems: {'recovered' if fact.held else 'NOT recovered'} "
                  f"({fact.statement}; {len(group.ranking.clusters)} clusters)")
            if shares:
                reports = quality_control(table)
                for share in shares:
                    verdicts = worker_verdicts(table, reports, margin_share=share)[f"{language}-{layout}"]
                    for worker, kind in kinds.items():
                        verdict = verdicts[worker]
                        sweep[share][(layout, kind, verdict.kept)] += 1
                        meaning_failed = verdict.meaning is not None and verdict.meaning.status == "failed"
                        sweep[share][(layout, f"{kind} MEANING", meaning_failed)] += 1
    if shares:
        print_sweep(sweep, kinds)


def print_sweep(sweep: dict[float, Counter[tuple[str, str, bool]]], kinds: dict[str, str]) -> None:
    """Honest workers kept and automated workers caught per MEANING margin share (hardened layout, both languages)."""
    print(f"\n#### MEANING margin share (now {MEANING_MARGIN_SHARE:g}): hardened layout, English + Chinese")
    print("(caught: by the combined verdict; in brackets: by the MEANING test alone)")
    print("| share | honest kept (fail MEANING) | " + " | ".join(f"{k} caught" for k in AUTOMATED) + " |")
    print("|---|---|" + "---|" * len(AUTOMATED))
    counts = Counter(kinds.values())
    for share, tally in sweep.items():
        honest = tally[("hardened", "honest", True)] / (2 * counts["honest"])
        honest_meaning = tally[("hardened", "honest MEANING", True)] / (2 * counts["honest"])
        caught = [(tally[("hardened", k, False)] / (2 * counts[k]), tally[("hardened", f"{k} MEANING", True)]
                   / (2 * counts[k])) for k in AUTOMATED]
        print(f"| {share:g} | {honest:.1%} ({honest_meaning:.1%}) | "
              + " | ".join(f"{c:.0%} ({m:.0%})" for c, m in caught) + " |")


def main_rates(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        run_rates(args, out)
