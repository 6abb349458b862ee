"""Benchmark: careful bots and simulated people rating through the real worker pages in Chromium, one HIT each.

Imports the bundled sample (its first ``--questions`` questions: English and Chinese) into a fresh SQLite
database, builds campaigns with the ``build`` command, opens them, serves the real app on 127.0.0.1 and
lets every worker of every kind (``da_platform.simulation.careful_bots.KINDS``) take ONE HIT of each configuration, all
at the same time, each in its own context of one headless Chromium (the evading kinds and the simulated
people in a second Chromium that hides the automation traces). Before them, ``--crowd`` simulated people per
configuration rate one HIT each over HTTP (``da_platform.simulation.crowd``, no browser, on the crowd's
simulated clock): the people a real campaign mostly consists of, whom ``beyond_automatic`` compares each
worker with. Every simulated person, over HTTP or in Chromium, rates as the people fitted to real crowd workers
(``da_platform.simulation.people``: lapses, unnoticed damage, repeats read afresh); the ``competent`` bot rates
the true quality through the idealised worker's bias, scale and noise (``simulation.profiles``).
Then runs the campaign's analysis as the dashboard and the exports do (``CampaignAnalysis``: the combined verdict
of checks and signals) and prints, per configuration and kind: workers, HITs finished,
excluded / flagged / kept, and which checks and signals fired; the check-aware bots' own log of what they
spotted, against what the slots really were; the behaviour the page recorded (time per item, automation
traces); whether the systems' known order was recovered from the kept workers.

Configurations (``--configs``):

- ``default``: ``build`` with no layout or render option: whatever a user gets by default;
- ``classic``: ``--layout classic --render plain``, the published method;
- ``hardened``: ``--layout hardened --render hardened``.

Also writes, for the researcher's side, the automatic judge's score of every system answer
(``judge-scores.csv``: system, id, score; ``careful_rules.judge``), which the ``judge-noise`` bots follow plus
noise. ``--judge-scores imported`` imports it before the analysis (``import judge-scores``); ``both`` analyses
the same ratings without and with it (the import goes into a copy of the database, so a kept run, ``--out``,
can be analysed again: ``--analyse DIR``). ``--before-analysis`` runs any other command first.

    PYTHONPATH=. python benchmarks/careful_bots.py --configs default --per-kind 2 --honest 10 --crowd 40 \
        --questions 300 --passes 3 --judge-scores both --out /tmp/cb     # real pace: ~40 min
    PYTHONPATH=. python benchmarks/careful_bots.py --analyse /tmp/cb --judge-scores both   # that run again
    PYTHONPATH=. python benchmarks/careful_bots.py --time-scale 0.05 --kinds check-aware,honest   # quick look
    PYTHONPATH=. python benchmarks/careful_bots.py --traces     # what the page sees of each way to launch Chromium

``--time-scale`` below 1 shortens every wait (the pages' and the server's clocks are slowed to match); only
runs at real pace (1, the default) give numbers to report.
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import click
import numpy as np

from benchmarks.crowd_rates import caught_by
from da_platform.simulation.careful_bots import (
    KINDS,
    OcrFarm,
    Worker,
    WorkerRun,
    run_workers,
    scaled_clock,
    slot_truth,
)

CONFIGS = {"default": [], "classic": ["--layout", "classic", "--render", "plain"],
           "hardened": ["--layout", "hardened", "--render", "hardened"]}
DEFAULT_KINDS = ",".join(k for k in KINDS if k != "honest")


def cli(env: dict[str, str], *args: str) -> str:
    """Run ``da-platform ARGS`` of this checkout on the benchmark's database; its output (fails loudly)."""
    done = subprocess.run([sys.executable, "-m", "da_platform", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"da-platform {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def prepare(args: argparse.Namespace, out: Path) -> tuple[str, dict[str, str], Path]:
    """Fresh database with the sample's first questions and one campaign per configuration; returns the
    database URL, the CLI environment and the image folder."""
    from da_platform.db.engine import make_engine, session_factory, transaction, upgrade
    from da_platform.simulation.sample import import_sample

    database, images = out / "careful.sqlite", out / "images"
    database.unlink(missing_ok=True)
    url = f"sqlite:///{database}"
    upgrade(url)
    engine = make_engine(url)
    with transaction(session_factory(engine)) as session:
        import_sample(session, questions=args.questions)
    engine.dispose()
    env = {**os.environ, "DA_DATABASE_URL": url, "DA_IMAGE_FOLDER": str(images), "DA_SECRET_KEY": secrets.token_hex(32),
           "DA_INSTANCE_PATH": str(out / "instance"), "PYTHONPATH": os.getcwd()}
    for config in args.configs:
        print(f"building {config} ...", flush=True)
        built = cli(env, "build", "--test-set", "sample", "--name", config, "--passes", str(args.passes),
                    "--seed", str(args.seed), *CONFIGS[config])
        line = next(line for line in built.splitlines() if line.startswith("built"))
        print("  " + line, flush=True)
        hits, needed = int(line.split(": ")[1].split()[0]), args.crowd + args.honest + args.per_kind * len(args.kinds)
        if hits < needed:
            raise SystemExit(f"{config}: {hits} HITs for {needed} workers of one HIT each: more --questions or "
                             "--passes")
        cli(env, "campaign", "open", config)
        if args.time_scale != 1.0:
            # The scaled clock runs everything faster, the bots' unscaled moves and the machine's delays too: at
            # 0.05 a HIT can pass the pool's 180 minutes. Quick runs lift the limit; real pace keeps it.
            cli(env, "invite", config, "--time-limit", "10080", "--public-url", "http://127.0.0.1", "-o", os.devnull)
    return url, env, images


def write_judge_scores(session, path: Path) -> int:
    """The automatic judge's score of every system answer against the first reference, as a researcher
    computes it (CSV: system, id (the question's), score: the judge-scores import's format); the number of rows."""
    from sqlalchemy import select
    from sqlalchemy.orm import selectinload

    from da_platform.db.models import Answer, Question
    from da_platform.simulation.careful_rules import judge

    answers = session.scalars(select(Answer).options(selectinload(Answer.system),
                                                     selectinload(Answer.question).selectinload(Question.references)))
    rows = [(a.system.name, a.question.external_id, round(judge(a.text, a.question.references[0].text), 2))
            for a in answers if a.question.references]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "id", "score"])
        writer.writerows(sorted(rows))
    return len(rows)


def run(args: argparse.Namespace, out: Path) -> dict:
    """Build, let the crowd and then the browser workers rate, keep what each did in ``out``; the results."""
    from sqlalchemy import select

    from da_platform.db.engine import make_engine, session_factory
    from da_platform.db.models import Campaign
    from da_platform.providers.tokens import Tokens
    from da_platform.simulation.demo import serving
    from da_platform.simulation.sample_data import load_truth

    started = time.perf_counter()
    url, env, images = prepare(args, out)
    engine = make_engine(url)
    sessions = session_factory(engine)
    quality = load_truth()["quality"]
    with sessions() as session:
        campaigns = {c.name: c.id for c in session.scalars(select(Campaign))}
        truth = {config: slot_truth(session, campaigns[config], quality) for config in args.configs}
        judged = write_judge_scores(session, out / "judge-scores.csv")
    engine.dispose()
    print(f"judge scores of {judged} answers: {out / 'judge-scores.csv'}", flush=True)

    secret = secrets.token_hex(32)
    tokens = Tokens(secret)
    expires = int(time.time() + 7 * 86400)
    runs = [r for config in args.configs
            for r in crowd_of_people(args, url, images, campaigns[config], config, secret, expires)]
    kinds = [k for k in args.kinds if k != "honest"]
    plan = [(config, kind, i) for config in args.configs for kind in kinds for i in range(args.per_kind)]
    plan += [(config, "honest", i) for config in args.configs for i in range(args.honest)]
    ocr = OcrFarm(args.ocr_parallel) if any(KINDS[k].reads == "ocr" for k in kinds) else None
    with serving(url, secret, images, scaled_clock(args.time_scale)) as base_url:
        bar = click.progressbar(length=100 * len(plan), label=f"{len(plan)} workers rating on {base_url}",
                                file=sys.stderr, show_pos=True)
        names = [f"{config}-{kind}-{i + 1:02d}" for config, kind, i in plan]
        workers = [Worker(name=name, kind=KINDS[kind], config=config,
                          invite_url=f"{base_url}/pool/{tokens.invite(campaigns[config], name, expires)}",
                          truth=truth[config], rng=np.random.default_rng([args.seed, n]), ocr=ocr,
                          time_scale=args.time_scale, on_rating=lambda: bar.update(1))
                   for n, (name, (config, kind, _)) in enumerate(zip(names, plan))]
        with bar:
            runs += asyncio.run(run_workers(workers))
    seconds = round(time.perf_counter() - started)
    (out / "workers.json").write_text(json.dumps([asdict(r) for r in runs], indent=1))  # what each worker did
    facts = {"seconds": seconds, "time_scale": args.time_scale, "questions": args.questions, "passes": args.passes,
             "seed": args.seed, "per_kind": args.per_kind, "honest": args.honest, "crowd": args.crowd,
             "configs": args.configs, "kinds": kinds, "ocr_readings": ocr.readings if ocr else 0}
    (out / "run.json").write_text(json.dumps(facts, indent=1))
    return analyse(args, out)


CROWD = "people-http"
"""The kind name of the simulated people who rate over HTTP (``--crowd``) in the results."""


def crowd_of_people(args: argparse.Namespace, url: str, images: Path, campaign_id: int, config: str, secret: str,
                    expires: int) -> list:
    """``--crowd`` simulated people rate one HIT each of the campaign over HTTP, on the crowd's simulated clock
    (``da_platform.simulation.crowd``), as fast as the server answers; what each did (``WorkerRun``)."""
    from da_platform.db.engine import make_engine, session_factory
    from da_platform.providers.tokens import Tokens
    from da_platform.simulation.adversaries import PersonRater
    from da_platform.simulation.crowd import SimulatedClock, SimulatedWorker, SlotOracle, run_crowd
    from da_platform.simulation.demo import serving
    from da_platform.simulation.people import Person
    from da_platform.simulation.sample_data import load_truth

    if not args.crowd:
        return []
    engine = make_engine(url)
    with session_factory(engine)() as session:
        oracle = SlotOracle.from_database(session, campaign_id, load_truth()["quality"])
    engine.dispose()
    tokens, clock = Tokens(secret), SimulatedClock()
    rng = np.random.default_rng([args.seed, 101])
    names = [f"{config}-{CROWD}-{i + 1:03d}" for i in range(args.crowd)]
    with serving(url, secret, images, clock) as base_url:
        # People as fitted to real crowd workers (simulation.people): lapses, unnoticed damage, repeats read afresh.
        workers = [SimulatedWorker(name, rater.profile, f"{base_url}/pool/{tokens.invite(campaign_id, name, expires)}",
                                   1, rater)
                   for name, rater in ((n, PersonRater(Person.draw(rng))) for n in names)]
        with click.progressbar(length=100 * len(workers), label=f"{config}: {len(workers)} people over HTTP",
                               file=sys.stderr, show_pos=True) as bar:
            outcomes = run_crowd(workers, oracle, seed=args.seed, threads=8, on_rating=lambda: bar.update(1),
                                 clock=clock)
    return [WorkerRun(o.name, CROWD, config, ratings=o.ratings, finished=o.hits == 1 and o.ratings > 0)
            for o in outcomes]


def analyse(args: argparse.Namespace, out: Path) -> dict:
    """The kept run in ``out`` through the platform's analysis: without the judge's scores, with them
    (imported into a copy of the database), or both (``--judge-scores``)."""
    facts = json.loads((out / "run.json").read_text())
    runs = [WorkerRun(**r) for r in json.loads((out / "workers.json").read_text())]
    analyses = []
    stages = {"none": [False], "imported": [True], "both": [False, True]}[args.judge_scores]
    for judge in stages:
        database = out / ("careful-judged.sqlite" if judge else "careful-analysed.sqlite")
        copy_database(out / "careful.sqlite", database)
        env = {**os.environ, "DA_DATABASE_URL": f"sqlite:///{database}", "PYTHONPATH": os.getcwd()}
        commands = ([IMPORT_JUDGE] if judge else []) + args.before_analysis
        for command in commands:
            command = command.format(judge_scores=out / "judge-scores.csv", python=sys.executable)
            print(f"before the analysis: {command}", flush=True)
            done = subprocess.run(command, shell=True, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{command} failed:\n{done.stdout}{done.stderr}")
            print("  " + (done.stdout.strip() or "done"), flush=True)
        analyses.append({"judge_scores": judge, "configs": verdicts(f"sqlite:///{database}", facts, runs)})
    return {**facts, "analyses": analyses}


IMPORT_JUDGE = "{python} -m da_platform import judge-scores {judge_scores} --test-set sample --judge chrF"
"""The researcher's import of the judge the ``judge-noise`` bots follow."""


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database (the backup API: the write-ahead log included)."""
    import sqlite3

    target.unlink(missing_ok=True)
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
    origin.close()
    copy.close()


def verdicts(url: str, facts: dict, runs: list) -> list[dict]:
    """Every configuration's analysis (``verdicts_of``) on the database at ``url``."""
    from sqlalchemy import select
    from sqlalchemy.orm import aliased

    from da_platform.db.engine import make_engine, session_factory
    from da_platform.db.models import Campaign, Hit, Slot

    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            campaigns = {c.name: c.id for c in session.scalars(select(Campaign))}
            original = aliased(Slot)
            rows = session.execute(
                select(Slot.public_id, Slot.slot_type, original.public_id).join(Hit, Slot.hit_id == Hit.id)
                .outerjoin(original, Slot.original_slot_id == original.id))
            slots: dict[str, tuple[str, str | None]] = {public_id: (slot_type.value, of)
                                                        for public_id, slot_type, of in rows}
            kinds = facts["kinds"] + ["honest"] * bool(facts["honest"]) + [CROWD] * bool(facts.get("crowd"))
            return [verdicts_of(session, campaigns[config], config, runs, kinds, slots) for config in facts["configs"]]
    finally:
        engine.dispose()


def spotting(runs: list, slots: dict[str, tuple[str, str | None]]) -> dict[str, list[int]]:
    """What check-aware bots got right, against the slots' true types: [found, of] for REPEAT pairs matched
    (either member given the other's score: a REPEAT may come before its original), MEANING copies spotted
    by a rule, and ordinary (SYSTEM) items a rule fired on (false alarms)."""
    found = {"REPEAT pairs matched": [0, 0], "MEANING spotted": [0, 0], "SYSTEM false alarms": [0, 0]}
    for run in runs:
        for slot in run.rated:
            slot_type, of = slots.get(slot, ("?", None))
            said = run.spotted.get(slot)
            if slot_type == "REPEAT" and of in run.rated:
                found["REPEAT pairs matched"][0] += "repeat" in (said, run.spotted.get(of))
                found["REPEAT pairs matched"][1] += 1
            elif slot_type == "MEANING":
                found["MEANING spotted"][0] += said not in (None, "repeat")
                found["MEANING spotted"][1] += 1
            elif slot_type == "SYSTEM":
                found["SYSTEM false alarms"][0] += said not in (None, "repeat")
                found["SYSTEM false alarms"][1] += 1
    return {name: counts for name, counts in found.items() if counts[1]}


def verdicts_of(session, campaign_id: int, config: str, runs: list, kinds: list[str],
                slots: dict[str, tuple[str, str | None]]) -> dict:
    """The campaign's analysis as the dashboard shows it, per kind of worker: verdicts, what fired, the
    signals' values, the page's times, and what the check-aware bots spotted against the slots' true types."""
    from da_platform.db.models import Campaign
    from da_platform.rating.campaign_ratings import worker_label
    from da_platform.results.campaign_analysis import CampaignAnalysis

    campaign = session.get(Campaign, campaign_id)
    analysis = CampaignAnalysis(session, campaign)
    verdicts = analysis.result.groups[campaign.name].verdicts if analysis.result is not None else {}
    rows = []
    for kind in kinds:
        mine = [r for r in runs if r.config == config and r.kind == kind]
        judged = [verdicts[worker_label("pool", r.name)] for r in mine if worker_label("pool", r.name) in verdicts]
        statuses = Counter(v.status.value for v in judged)
        values: dict[str, list[float]] = {}
        for verdict in judged:
            for signal in verdict.signals:
                if signal.flagged is not None:
                    values.setdefault(signal.name, []).append(signal.value)
        rows.append({
            "kind": kind, "workers": len(mine), "finished": sum(r.finished for r in mine),
            "errors": [r.error for r in mine if r.error],
            "excluded": statuses["excluded"], "flagged": statuses["flagged"], "kept": statuses["kept"],
            "fired": dict(Counter(name for v in judged for name in caught_by(v)).most_common()),
            "signal_values": {name: [round(min(v), 3), round(max(v), 3)] for name, v in values.items()},
            "seconds_per_item": _spread([s for r in mine for s in r.seconds]),
            "taken_per_item": _spread([s for r in mine for s in r.taken]),
            "spotted": spotting(mine, slots) if any(r.spotted for r in mine) else {},
        })
    render = campaign.settings.get("render") or {}
    return {"config": config, "layout": campaign.settings.get("layout", "?"),
            "render": "hardened" if render.get("ocr_resistant") else "plain",
            "qc": (campaign.settings.get("qc") or {}).get("method", "wilcoxon"),
            "order": order_recovered(session, campaign, analysis), "kinds": rows}


def order_recovered(session, campaign, analysis) -> str:
    """Whether the systems' known order (their mean true quality over the campaign's questions) is recovered
    from the kept workers' ratings (``order_fact``: inversions inside a significance cluster allowed)."""
    from sqlalchemy import select

    from da_platform.db.models import Hit, Question, Slot
    from da_platform.simulation.demo import order_fact
    from da_platform.simulation.sample_data import load_truth

    if analysis.result is None:
        return "no analysis"
    questions = set(session.scalars(select(Question.external_id).join(Slot, Slot.question_id == Question.id)
                                    .join(Hit, Slot.hit_id == Hit.id).where(Hit.campaign_id == campaign.id)))
    group = analysis.result.groups[campaign.name]
    ranked = [s.system for s in group.system_scores]
    quality = load_truth()["quality"]
    means = {system: float(np.mean([quality[system][q] for q in questions])) for system in ranked}
    return order_fact(ranked, group.ranking.clusters, sorted(means, key=lambda system: -means[system])).statement


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{np.median(values):.1f} s (10-90 %: {np.percentile(values, 10):.1f}-{np.percentile(values, 90):.1f})"


def print_results(result: dict) -> None:
    print(f"\n{result['per_kind']} worker(s) per bot kind, {result['honest']} simulated people in Chromium and "
          f"{result.get('crowd', 0)} over HTTP per configuration, one HIT each; {result['questions']} questions, "
          f"{result['passes']} passes, seed {result['seed']}, time scale {result['time_scale']}; "
          f"{result['seconds']} s, {result['ocr_readings']} OCR readings")
    for analysis in result["analyses"]:
        judge = "the judge's scores imported" if analysis["judge_scores"] else "no judge scores"
        for config in analysis["configs"]:
            print(f"\n### {config['config']} (layout {config['layout']}, render {config['render']}, "
                  f"{config['qc']} test), {judge}\n")
            print("| kind | workers | finished | excluded | flagged | kept | fired on (workers) | time per item: "
                  "meant / taken (real) |")
            print("|---|---|---|---|---|---|---|---|")
            for row in config["kinds"]:
                fired = ", ".join(f"{name} {n}" for name, n in row["fired"].items()) or "nothing"
                print(f"| {row['kind']} | {row['workers']} | {row['finished']} | {row['excluded']} | "
                      f"{row['flagged']} | {row['kept']} | {fired} | {row['seconds_per_item']} / "
                      f"{row['taken_per_item']} |")
            print(f"\norder: {config['order']}")
            print("\nsignal values (min-max over the kind's workers):")
            for row in config["kinds"]:
                values = "; ".join(f"{name} {lo}-{hi}" for name, (lo, hi) in row["signal_values"].items())
                print(f"- {row['kind']}: {values}")
            spotted = [row for row in config["kinds"] if row["spotted"]]
            if spotted:
                print("\nwhat the check-aware bots spotted, against the slots' true types:")
                for row in spotted:
                    print(f"- {row['kind']}: " + ", ".join(f"{name} {n} of {of}"
                                                            for name, (n, of) in row["spotted"].items()))
            for row in config["kinds"]:
                for error in row["errors"]:
                    print(f"  ! {row['kind']}: {error}")
    print_summary(result)


def print_summary(result: dict) -> None:
    """One table: per kind, caught (excluded or flagged) of those that finished, in each configuration and
    analysis; for the stock-browser kinds also without ``automation_traces`` (what their evading twins face)."""
    columns = [(a["judge_scores"], c) for a in result["analyses"] for c in a["configs"]]
    print("\n### Summary: caught (excluded + flagged) of the workers that finished; people: kept\n")
    print("| kind | " + " | ".join(f"{c['config']}, {'judge imported' if judge else 'no judge'}"
                                   for judge, c in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for k, row in enumerate(columns[0][1]["kinds"]):
        cells = []
        for _, config in columns:
            kind = config["kinds"][k]
            done = kind["excluded"] + kind["flagged"] + kind["kept"]
            if kind["kind"] in ("honest", CROWD):
                cells.append(f"{kind['kept']} / {done} kept")
                continue
            cells.append(f"{kind['excluded'] + kind['flagged']} / {done}")
        print(f"| {row['kind']} | " + " | ".join(cells) + " |")
    print("| order recovered | " + " | ".join("yes" if "NOT" not in c["order"] else "NO" for _, c in columns) + " |")


def print_traces() -> None:
    from da_platform.simulation.careful_bots import page_traces

    script = (Path(__file__).resolve().parent.parent / "da_platform" / "static" / "behaviour.js").read_text()
    print("| Chromium launched with | webdriver | headless_ua | software_gl |")
    print("|---|---|---|---|")
    for variant, traces in asyncio.run(page_traces(script)).items():
        print(f"| {variant} | {traces['webdriver']} | {traces['headless_ua']} | {traces['software_gl']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--configs", default="default,hardened", help=f"of {', '.join(CONFIGS)}")
    parser.add_argument("--kinds", default=DEFAULT_KINDS, help="kinds of bot [default: all]; honest: --honest")
    parser.add_argument("--per-kind", type=int, default=1, help="workers of each bot kind per configuration")
    parser.add_argument("--honest", type=int, default=2, help="simulated people in Chromium per configuration")
    parser.add_argument("--crowd", type=int, default=0,
                        help="simulated people per configuration who rate one HIT each over HTTP first (no "
                             "browser, as fast as the server answers): the crowd the others are compared with")
    parser.add_argument("--questions", type=int, default=60, help="the sample's first questions (EN and ZH)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-scale", type=float, default=1.0, help="waits x this (1: real pace)")
    parser.add_argument("--ocr-parallel", type=int, default=2, help="Tesseract readings at a time")
    parser.add_argument("--out", type=Path, help="keep the database, images and judge scores here [default: temp]")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--before-analysis", action="append", default=[], metavar="COMMAND",
                        help="a shell command run once the workers are done and before the analysis, on a copy of "
                             "the benchmark's database ($DA_DATABASE_URL set; the test set is called sample), with "
                             "{judge_scores} and {python} filled in (the judge's scores: --judge-scores); "
                             "repeatable")
    parser.add_argument("--judge-scores", choices=["none", "imported", "both"], default="none",
                        help="analyse without the judge's scores (judge-scores.csv), with them imported, or both")
    parser.add_argument("--analyse", type=Path, metavar="DIR",
                        help="instead: analyse again the run kept in DIR (--out of an earlier run)")
    parser.add_argument("--traces", action="store_true",
                        help="instead: the automation traces the worker page records in each way of launching "
                             "Chromium (stock, --headless=new, and the cheap ways to hide them)")
    args = parser.parse_args()
    if args.traces:
        print_traces()
        return
    if args.analyse:
        result = analyse(args, args.analyse)
        print_results(result)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return
    args.configs = args.configs.split(",")
    args.kinds = [k for k in args.kinds.split(",") if k]
    unknown = [c for c in args.configs if c not in CONFIGS] + [k for k in args.kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown configuration or kind: {', '.join(unknown)}")
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        result = run(args, out)
    print_results(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
