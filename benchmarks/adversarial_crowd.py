"""Benchmark: an adversarial simulated crowd against the platform's quality control.

Runs the demo's whole pipeline (``da_platform.simulation.demo.run_demo``: import the bundled sample, build,
serve the worker pages on 127.0.0.1, let the crowd rate over HTTP, quality control, analysis) once per
configuration, with every kind of worker of ``da_platform.simulation.adversaries``:

- ``classic``: classic layout (70/10/10/10), plain images (the published method);
- ``hardened``: hardened layout (60 SYSTEM + 10 each of BAD_REF, REPEAT, REF and MEANING), plain images;
- ``hardened+ocr``: hardened layout and OCR-resistant images (``--render hardened``).

For each kind it reports how many workers the platform's verdict kept (``qc-workers``: the
``passed`` column of the analysis, i.e. whatever verdict the platform computes) and, for hardened
layouts, the verdict with the meaning-change test added (computed here exactly like the BAD_REF test,
by ``analysis.quality.quality_control`` on the MEANING pairs), and each kind's mean score drop from an
original to its BAD_REF and to its MEANING copy; then whether the known order of the
systems was recovered from the kept workers, over all items and over the English and the Chinese
items alone.

    python benchmarks/adversarial_crowd.py [--configs classic,hardened,hardened+ocr] [--questions 60]
        [--passes 3] [--honest 8] [--per-kind 1] [--bad-hits 1] [--hits-per-worker 2] [--time-scale 0]
    python benchmarks/adversarial_crowd.py --offline-overlap --questions 300 --passes 2
    python benchmarks/adversarial_crowd.py --rates [--honest 60] [--per-kind 20] [--seed 1] [--margin-shares 0,0.25]

``--time-scale 1`` lets paced workers (and honest ones) take their virtual time for real: needed when
the verdict uses timing (hours for a full crowd); the default 0 does not wait (behaviour records still
report the virtual times).
"""
from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from analysis.quality import quality_control
from analysis.ranking import rank_systems
from analysis.table import BAD_REF, MEANING
from analysis.verdict import meaning_margins
from benchmarks.crowd_rates import caught_by
from da_platform.simulation.adversaries import KINDS
from da_platform.simulation.demo import DemoOptions, DemoSteps, order_fact, run_demo

CONFIGS = {"classic": ("classic", "plain"), "hardened": ("hardened", "plain"),
           "hardened+ocr": ("hardened", "hardened")}
HAN = re.compile(r"[\u4e00-\u9fff]")


def meaning_verdicts(table, group: str) -> dict[str, bool]:
    """Worker → passed the MEANING test, exactly as the platform's verdict runs it (``analysis.verdict``:
    the MEANING copy must score lower than its original by more than a share of the worker's BAD_REF drop)."""
    if not (table.slot_type == MEANING).any():
        return {}
    report = quality_control(table, check=MEANING, margin=meaning_margins(quality_control(table)))[group]
    return {w.worker: w.passed for w in report.workers}


def drops(table, worker_codes: dict[str, int]) -> dict[str, tuple[float, float]]:
    """Worker → (mean original − BAD_REF score, mean original − MEANING score) over its pairs."""
    linked = table.original >= 0
    found: dict[str, tuple[float, float]] = {}
    for worker, code in worker_codes.items():
        means = []
        for slot_type in (BAD_REF, MEANING):
            rows = np.flatnonzero(linked & (table.slot_type == slot_type) & (table.worker.codes == code))
            d = table.score[table.original[rows]].astype(float) - table.score[rows]
            means.append(float(d.mean()) if len(d) else float("nan"))
        found[worker] = (means[0], means[1])
    return found


def language_order(group_analysis, chinese_items: set[str], true_order: list[str]) -> dict[str, str]:
    """Order recovered over the English and the Chinese items alone (kept workers' item z-scores)."""
    items = group_analysis.scores.items
    facts = {}
    for language, mask in (("English", ~np.isin(items.item, list(chinese_items))),
                           ("Chinese", np.isin(items.item, list(chinese_items)))):
        item_z = {s: items.z[(items.system == s) & mask] for s in np.unique(items.system[mask]).tolist()}
        system_z = {s: float(z.mean()) for s, z in item_z.items() if len(z)}
        ranking = rank_systems({s: item_z[s] for s in system_z}, system_z)
        ranked = sorted(system_z, key=lambda s: (-system_z[s], s))
        fact = order_fact(ranked, ranking.clusters, true_order)
        facts[language] = ("yes" if fact.held else "NO") + f" ({len(ranking.clusters)} clusters)"
    return facts


def run(config: str, args: argparse.Namespace, out: Path) -> dict:
    from sqlalchemy import select

    from da_platform.db.engine import make_engine, session_factory
    from da_platform.db.models import Campaign, Question
    from da_platform.rating.campaign_ratings import load_ratings
    from da_platform.simulation.sample_data import load_truth

    layout, render = CONFIGS[config]
    bad = {kind: args.per_kind for kind in args.kinds.split(",") if kind != "honest"}
    options = DemoOptions(out=out / config, questions=args.questions, seed=args.seed, bad_workers=bad,
                          honest=args.honest, hits_per_worker=args.hits_per_worker, bad_hits=args.bad_hits,
                          passes=args.passes, threads=args.threads, layout=layout, render=render,
                          time_scale=args.time_scale)
    started = time.perf_counter()
    outcome = run_demo(options, DemoSteps(step=lambda message: print(f"  [{config}] {message}", flush=True)))
    seconds = time.perf_counter() - started
    group = outcome.group
    engine = make_engine(outcome.database_url)
    with session_factory(engine)() as session:
        campaign = session.scalars(select(Campaign).where(Campaign.name == outcome.campaign)).one()
        table = load_ratings(session, campaign)
        chinese = {q.external_id for q in session.scalars(select(Question)) if HAN.search(q.text)}
    engine.dispose()
    platform = {w.worker: w.passed for w in group.qc.workers}
    meaning = meaning_verdicts(table, outcome.campaign)
    codes = {label: code for code, label in enumerate(table.worker.labels)}
    drop = drops(table, {w: codes[w] for w in platform if w in codes})
    rows = []
    for kind in KINDS:
        workers = [w for w, k in outcome.workers.items() if k == kind and w in platform]
        kept = sum(platform[w] for w in workers)
        kept_meaning = sum(platform[w] and meaning.get(w, True) for w in workers) if meaning else None
        verdicts = [group.verdicts[w] for w in workers if w in group.verdicts]
        fired = Counter(name for v in verdicts for name in caught_by(v))
        rows.append({"kind": kind, "workers": len(workers), "kept": kept, "kept_with_meaning": kept_meaning,
                     "kept_verdict": sum(v.kept for v in verdicts),
                     "caught_by": ", ".join(f"{n} {c}" for n, c in fired.most_common()),
                     "bad_ref_drop": _mean([drop[w][0] for w in workers]),
                     "meaning_drop": _mean([drop[w][1] for w in workers])})
    order = {"all items": ("yes" if outcome.facts[-1].held else "NO") + f" ({len(group.ranking.clusters)} clusters)",
             **language_order(group, chinese, list(load_truth()["order"]))}
    return {"config": config, "layout": layout, "render": render, "hits": outcome.hits,
            "ratings": outcome.ratings, "seconds": round(seconds), "kinds": rows, "order": order}


def _mean(values: list[float]) -> float | None:
    kept = [v for v in values if not np.isnan(v)]
    return round(float(np.mean(kept)), 1) if kept else None


def offline_overlap(args: argparse.Namespace, out: Path) -> None:
    """Text-overlap bots with perfect OCR, one per HIT of a whole campaign, without HTTP.

    Builds the sample campaign in each layout, scores every slot of every HIT as an overlap bot would
    if it read the images perfectly (ROUGE-L or token F1 of the stored candidate text against the
    stored reference text; the plain images are read with 1–2 % character errors, so this is the bot at
    its best), and runs the platform's quality control (``analysis.quality.quality_control``) on them:
    the share of bots (HITs) that pass the BAD_REF test, and with the MEANING test added."""
    from sqlalchemy import select

    from analysis.table import RatingsTable
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice
    from da_platform.db.engine import make_engine, session_factory, transaction, upgrade
    from da_platform.db.models import Hit, Question, Slot, System
    from da_platform.simulation.adversaries import overlap_score
    from da_platform.simulation.sample import import_sample
    from hit_builder.storage import LocalImageStorage

    out.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{out / 'offline.sqlite'}"
    (out / "offline.sqlite").unlink(missing_ok=True)
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    with transaction(sessions) as session:
        test_set = import_sample(session, questions=args.questions if args.questions < 300 else None)
        for layout in ("classic", "hardened"):
            build_campaign(session,
                           BuildSpec(name=layout, test_set=test_set, seed=args.seed, passes=args.passes,
                                     crowd=CrowdChoice(layout)),
                           storage=LocalImageStorage(out / "images"))
    print("| layout | metric | bots (one HIT each) | pass BAD_REF test | pass BAD_REF and MEANING tests | "
          "mean drop BAD_REF | mean drop MEANING |")
    print("|---|---|---|---|---|---|---|")
    with sessions() as session:
        for layout in ("classic", "hardened"):
            rows = session.execute(
                select(Hit.public_id, Slot.id, Slot.slot_type, Slot.original_slot_id, Slot.candidate_text,
                       Slot.reference_text, System.name, Question.external_id)
                .join(Slot, Slot.hit_id == Hit.id).join(System, System.id == Slot.system_id)
                .join(Question, Question.id == Slot.question_id)
                .join(Hit.campaign).where(Hit.campaign.has(name=layout)).order_by(Hit.index, Slot.position)).all()
            for metric_name, engine_name in (("ROUGE-L", "tesseract"), ("token F1", "rapidocr")):
                scores = [overlap_score(r.candidate_text, r.reference_text, engine_name) for r in rows]
                table = RatingsTable.from_columns(
                    group=[layout] * len(rows), worker=[f"bot-{r.public_id}" for r in rows],
                    hit=[r.public_id for r in rows], system=[r.name for r in rows], item=[r.external_id for r in rows],
                    slot_type=[r.slot_type.value for r in rows], slot=[str(r.id) for r in rows],
                    original_slot=["" if r.original_slot_id is None else str(r.original_slot_id) for r in rows],
                    score=scores, seconds=[float("nan")] * len(rows))
                verdicts = {w.worker: w.passed for w in quality_control(table)[layout].workers}
                meaning = meaning_verdicts(table, layout)
                codes = {label: code for code, label in enumerate(table.worker.labels)}
                drop = drops(table, codes)
                both = sum(verdicts[w] and meaning.get(w, True) for w in verdicts)
                print(f"| {layout} | {metric_name} | {len(verdicts)} | {sum(verdicts.values())} | "
                      + (f"{both} |" if meaning else "– |")
                      + f" {_mean([d[0] for d in drop.values()])} | {_mean([d[1] for d in drop.values()])} |")
    engine.dispose()


def print_result(result: dict) -> None:
    print(f"\n### {result['config']} (layout {result['layout']}, images {result['render']}): "
          f"{result['ratings']} ratings, {result['hits']} HITs, {result['seconds']} s")
    meaning = result["layout"] != "classic"
    print("| kind | workers | kept by the platform's QC | caught | "
          + ("kept with the MEANING test added | caught | " if meaning else "")
          + "mean drop on BAD_REF |" + (" mean drop on MEANING |" if meaning else "")
          + " kept by the combined verdict | fired on (workers) |")
    print("|---|---|---|---|" + ("---|---|" if meaning else "") + "---|" + ("---|" if meaning else "") + "---|---|")
    for row in result["kinds"]:
        if not row["workers"]:
            continue
        line = f"| {row['kind']} | {row['workers']} | {row['kept']} | {row['workers'] - row['kept']} |"
        if meaning:
            line += f" {row['kept_with_meaning']} | {row['workers'] - row['kept_with_meaning']} |"
        line += f" {row['bad_ref_drop']} |" + (f" {row['meaning_drop']} |" if meaning else "")
        print(line + f" {row['kept_verdict']} | {row['caught_by']} |")
    print("known order recovered (platform QC): " + "; ".join(f"{k}: {v}" for k, v in result["order"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", default="classic,hardened,hardened+ocr")
    parser.add_argument("--kinds", default=",".join(KINDS), help="kinds of worker besides honest ones")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--passes", type=int, help="passes over the items [default: 3; --rates: 1]")
    parser.add_argument("--honest", type=int, help="honest workers [default: 8; --rates: 60]")
    parser.add_argument("--per-kind", type=int, help="workers of each non-honest kind [default: 1; --rates: 20]")
    parser.add_argument("--bad-hits", type=int, default=1, help="HITs each non-honest worker takes")
    parser.add_argument("--hits-per-worker", type=int, default=2, help="HITs each honest worker takes")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-scale", type=float, default=0.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--out", type=Path, help="keep each configuration's demo folder here [default: temporary]")
    parser.add_argument("--offline-overlap", action="store_true",
                        help="instead: perfect-OCR overlap bots on every HIT of the sample campaign, no HTTP")
    parser.add_argument("--rates", action="store_true",
                        help="instead: rates per kind through the combined verdict, English-only and Chinese-only "
                             "campaigns, classic and hardened layouts; no HTTP, perfect OCR (crowd_rates.py)")
    parser.add_argument("--margin-shares", default="",
                        help="with --rates: also the trade-off of these MEANING margin shares, e.g. 0,0.1,0.25")
    args = parser.parse_args()
    if args.rates:
        from benchmarks.crowd_rates import main_rates

        args.honest, args.per_kind = args.honest or 60, args.per_kind or 20
        args.passes = args.passes or 1
        main_rates(args)
        return
    args.honest = 8 if args.honest is None else args.honest
    args.per_kind = 1 if args.per_kind is None else args.per_kind
    args.passes = 3 if args.passes is None else args.passes
    if args.offline_overlap:
        with tempfile.TemporaryDirectory() as scratch:
            offline_overlap(args, args.out or Path(scratch))
        return
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for config in args.configs.split(","):
            result = run(config, args, args.out or Path(scratch))
            print_result(result)
            results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
