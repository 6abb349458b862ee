"""Quality control at one HIT per worker: how many people it keeps and how many of each kind of rater it
catches, careful kinds included, through the platform's own verdict (``analysis.report.analyze``).

    PYTHONPATH=. python benchmarks/one_hit.py --seed 2 [--layouts classic,hardened,targeted]
        [--test-sets sample,bad-systems] [--honest 60] [--per-kind 12] [--judge-sd 25] [--out DIR]
        [--no-judge-evidence] [--beyond-p P] [--verbose]
    PYTHONPATH=. python benchmarks/one_hit.py --size 1000 --seed 1    # the pooled test's size

For every test set (the bundled sample; "bad-systems": HUMAN and nova beside three very bad systems made of
real-looking answers: an extractive span of a human answer, nova's answers truncated mid-sentence, and
another question's reference), language (English-only and Chinese-only campaigns) and layout, a campaign is
built (SQLite, no images served) and, for each kind of ``benchmarks/careful_kinds.py``, a crowd of
``--honest`` people and ``--per-kind`` raters of that kind each rates ONE HIT (workers spread over the HITs in
turn). The careful kinds and the people send a person's behaviour record and really take their time; the
content-blind ones post without a record as fast as the server answers. The table goes through
``analyze`` twice: with the published test (``--qc wilcoxon``: BAD_REF alone, plus the MEANING test where
there are MEANING checks), with the pooled test (``pooled``) and with the weighted test (``weighted``, the ``paid``
and ``pool`` presets' since it exists), each with every behaviour and content signal;
the imported judge's scores are in the evidence unless ``--no-judge-evidence``. Reported: people kept, each
kind caught (and by what), the systems' order recovered from the kept workers. No HTTP, no OCR: the overlap
kinds read the texts perfectly.
"""
from __future__ import annotations

import argparse
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis import behaviour_signals as behaviour
from analysis.evidence import RatingEvidence
from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.report import analyze
from analysis.table import RatingsTable
from benchmarks.careful_kinds import Shown, kind_names, rate_hit
from benchmarks.crowd_rates import LANGUAGES, Slot, caught_by, read_slots

HONEST = "honest"
QC_METHODS = (QCMethod.wilcoxon, QCMethod.pooled, QCMethod.weighted)
BAD_SYSTEMS = ("HUMAN", "nova", "extract", "truncated", "wrong")


@dataclass(frozen=True)
class Campaign:
    name: str
    slots: list[Slot]
    judge: dict[tuple[str, str | None], float]  # (candidate, reference shown) -> the judge's score
    true_order: list[str]


def sample_truth() -> dict[str, dict[str, float]]:
    from da_platform.simulation.sample_data import load_truth

    return {s: {q: float(v) for q, v in by_q.items()} for s, by_q in load_truth()["quality"].items()}


def bad_system_answers(language: str) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, float]]]:
    """The three very bad systems' answers and their true quality (by rule, on the sample's scale:
    q = 2 + 0.95 × (90 × coverage + 10 × fluency)): ``extract`` = the first sentence of the second reference
    (coverage 1 / its sentences, fluent); ``truncated`` = nova's answer cut after 40 % of its tokens (0.4 of
    nova's coverage, not fluent); ``wrong`` = another question's first reference (fluent, nothing right: 2)."""
    import json

    from da_platform.simulation.sample_data import sample_data_dir

    folder = sample_data_dir()
    questions = [q for q in map(json.loads, (folder / "test_set.jsonl").read_text(encoding="utf-8").splitlines())
                 if LANGUAGES[language](q)]
    nova = {a["id"]: a["answer"] for a in map(json.loads, (folder / "nova.jsonl").read_text(encoding="utf-8")
                                              .splitlines())}
    truth = sample_truth()
    answers: dict[str, dict[str, str]] = {name: {} for name in ("extract", "truncated", "wrong")}
    quality: dict[str, dict[str, float]] = {name: {} for name in answers}
    for k, q in enumerate(questions):
        sentences = [s for s in re.split(r"(?<=[.!?。！？])\s*", q["references"][1]) if s.strip()]
        answers["extract"][q["id"]] = sentences[0].strip()
        quality["extract"][q["id"]] = 2 + 0.95 * (90 / len(sentences) + 10)
        answers["truncated"][q["id"]] = truncated(nova[q["id"]], 0.4)
        nova_coverage = max(0.0, (truth["nova"][q["id"]] - 2) / 0.95 - 10) / 90
        quality["truncated"][q["id"]] = 2 + 0.95 * 90 * 0.4 * nova_coverage
        answers["wrong"][q["id"]] = questions[(k + 1) % len(questions)]["references"][0]
        quality["wrong"][q["id"]] = 2.0
    return answers, quality


def truncated(text: str, share: float) -> str:
    """The text cut after ``share`` of its tokens (``da_core.text.tokenize``), mid-sentence, no final punctuation."""
    from da_core.text import tokenize

    tokens = tokenize(text)
    position = 0
    for token in tokens[:max(1, int(share * len(tokens)))]:
        position = text.find(token, position) + len(token)
    return text[:position].rstrip(" ,;:.。，")


def build(test_set: str, language: str, layout: str, seed: int, out: Path, judge_sd: float | None) -> Campaign:
    """Build one campaign (SQLite in ``out``) and read its slots, their truth and the judge's scores
    (``judge_scores``)."""
    import json

    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice
    from da_platform.building.importers import import_system_answers
    from da_platform.db.engine import make_engine, session_factory, transaction, upgrade
    from da_platform.simulation.sample import import_sample
    from hit_builder.storage import LocalImageStorage

    database = out / f"{test_set}-{language}-{layout}.sqlite"
    database.unlink(missing_ok=True)
    url = f"sqlite:///{database}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    truth = sample_truth()
    systems = None
    with transaction(sessions) as session:
        imported = import_sample(session, only=LANGUAGES[language])
        if test_set == "bad-systems":
            answers, quality = bad_system_answers(language)
            for name, by_question in answers.items():
                file = out / f"{name}-{language}.jsonl"
                file.write_text("".join(json.dumps({"id": q, "answer": a}, ensure_ascii=False) + "\n"
                                        for q, a in by_question.items()), encoding="utf-8")
                import_system_answers(session, imported, file, system=name)
            truth.update(quality)
            systems = list(BAD_SYSTEMS)
        spec = BuildSpec(name=layout, test_set=imported.name, seed=seed, crowd=CrowdChoice(layout), systems=systems)
        build_campaign(session, spec, storage=LocalImageStorage(out / "images"))
    with sessions() as session:
        slots = read_slots(session, truth)
    engine.dispose()
    judge = judge_scores(slots, judge_sd, np.random.default_rng([seed, 7]))
    present = {s.system for s in slots}
    means = {s: float(np.mean(list(truth[s].values()))) for s in present}
    order = sorted(present, key=lambda s: -means[s])
    return Campaign(f"{test_set}/{language}/{layout}", slots, judge, order)


def judge_scores(slots: list[Slot], judge_sd: float | None,
                 rng: np.random.Generator) -> dict[tuple[str, str | None], float]:
    """The automatic judge's score of every (candidate, reference shown) of the slots, 0-100: the careful
    bots' judge (``careful_rules.judge``: chrF of B against A), or with ``judge_sd`` a judge that knows each
    text's true quality up to normal noise of that SD (a stand-in for a good LLM judge), drawn once per text:
    a judge is deterministic in what it reads."""
    from da_platform.simulation.careful_rules import judge

    scores: dict[tuple[str, str | None], float] = {}
    for slot in slots:
        key = (slot.candidate, slot.reference)
        if key not in scores:
            scores[key] = (judge(slot.candidate, slot.reference or "") if judge_sd is None
                           else float(np.clip(slot.quality + judge_sd * rng.standard_normal(), 0, 100)))
    return scores


def crowd(campaign: Campaign, kind: str, honest: int, per_kind: int, seed: int, judge_evidence: bool) -> RatingsTable:
    """``honest`` people and ``per_kind`` raters of ``kind`` (unless it is honest), one HIT each (slot ids
    ``<worker>:<slot>``: a "/" would mark a merged answer's copy, ``analysis.table.COPY_MARK``)."""
    hits: dict[str, list[Slot]] = {}
    for slot in campaign.slots:
        hits.setdefault(slot.hit, []).append(slot)
    order = list(hits)
    workers = [(f"honest-{i:03d}", HONEST) for i in range(honest)]
    workers += [(f"{kind}-{i:03d}", kind) for i in range(per_kind)] if kind != HONEST else []
    columns: dict[str, list[Any]] = {c: [] for c in ("group", "worker", "hit", "system", "item", "slot_type", "slot",
                                                     "original_slot", "score", "seconds")}
    statuses, records, candidates, references, judges = [], [], [], [], []
    from da_platform.simulation.adversaries import person_record, person_timing

    for index, (worker, who) in enumerate(workers):
        rng = np.random.default_rng([seed, index, sum(map(ord, kind))])
        hit = order[(index * 7 + seed) % len(order)]
        slots = hits[hit]
        position = {s.id: k for k, s in enumerate(slots)}
        by_id = {s.id: s for s in slots}
        shown = [Shown(s.slot_type, s.candidate, s.reference, s.quality,
                       by_id[s.original].quality if s.original else s.quality,
                       campaign.judge[(s.candidate, s.reference)]) for s in slots]
        scores = rate_hit(who, shown, [position.get(s.original, -1) for s in slots], rng)
        for slot, score in zip(slots, scores):
            content_blind = who in ("random", "constant", "bot")
            seconds = 0.2 if content_blind else float(4 + 0.1 * len(slot.candidate) * rng.lognormal(0, 0.35))
            record = None if content_blind else person_record(slot.id, person_timing(seconds, rng), rng, touch=False)
            for column, value in (("group", campaign.name), ("worker", worker), ("hit", f"{worker}:{hit}"),
                                  ("system", slot.system), ("item", slot.item), ("slot_type", slot.slot_type),
                                  ("slot", f"{worker}:{slot.id}"),
                                  ("original_slot", f"{worker}:{slot.original}" if slot.original else ""),
                                  ("score", score), ("seconds", seconds + 0.2)):
                columns[column].append(value)
            statuses.append("missing" if record is None else "valid")
            records.append(record)
            candidates.append(slot.candidate)
            references.append(slot.reference)
            judges.append(campaign.judge[(slot.candidate, slot.reference)]
                          if slot.slot_type in ("SYSTEM", "REPEAT") else np.nan)
    evidence = RatingEvidence.from_rows(statuses, records, candidates, references, reference_shown=True,
                                        server_seconds=columns["seconds"],
                                        judge=np.array(judges)[:, None] if judge_evidence else None)
    return RatingsTable.from_columns(**columns, evidence=evidence)  # type: ignore[arg-type]  # (typed columns)


@dataclass
class Tally:
    """People kept and raters caught over campaigns and crowds."""

    people: int = 0
    people_kept: int = 0
    raters: int = 0
    caught: int = 0
    orders: int = 0
    orders_recovered: int = 0

    def add(self, people: list, bad: list, recovered: bool) -> None:
        self.people += len(people)
        self.people_kept += sum(v.kept for v in people)
        self.raters += len(bad)
        self.caught += sum(not v.kept for v in bad)
        self.orders += 1
        self.orders_recovered += recovered


def run(args: argparse.Namespace, out: Path) -> dict[tuple[str, str, str, str], Tally]:
    """Every campaign and crowd; prints each campaign's table (``--verbose``) and the summary; the tallies by
    (test set, layout, QC method, kind)."""
    from da_platform.simulation.demo import order_fact

    kinds = [HONEST, *kind_names()] if not args.kinds else args.kinds.split(",")
    print(f"one HIT per worker; seed {args.seed}; {args.honest} people + {args.per_kind} of each kind per crowd; "
          + ("judge = chrF of B against A (the careful bots')" if args.judge_sd is None
             else f"judge = true quality + N(0, {args.judge_sd:g}) per text") + "; judge scores "
          f"{'in' if args.judge_evidence else 'NOT in'} the evidence; beyond_automatic flags at p >= "
          f"{behaviour.MAX_AUTOMATIC_P:g}")
    tallies: dict[tuple[str, str, str, str], Tally] = {}
    for test_set in args.test_sets.split(","):
        for language in LANGUAGES:
            for layout in args.layouts.split(","):
                campaign = build(test_set, language, layout, args.seed, out, args.judge_sd)
                n_hits = len({s.hit for s in campaign.slots})
                if args.verbose:
                    print(f"\n#### {campaign.name}: {n_hits} HITs; true order {' > '.join(campaign.true_order)}")
                    print("| kind | QC | people kept | fired on people | kind caught | fired on the kind (workers) "
                          "| order from kept |")
                    print("|---|---|---|---|---|---|---|")
                for kind in kinds:
                    table = crowd(campaign, kind, args.honest, args.per_kind, args.seed, args.judge_evidence)
                    for method in QC_METHODS:
                        group = analyze(table, qc=QCPolicy(method)).groups[campaign.name]
                        people = [v for w, v in group.verdicts.items() if w.startswith("honest-")]
                        bad = [v for w, v in group.verdicts.items() if not w.startswith("honest-")]
                        fact = order_fact([s.system for s in group.system_scores], group.ranking.clusters,
                                          campaign.true_order)
                        tallies.setdefault((test_set, layout, method, kind), Tally()).add(people, bad, fact.held)
                        if args.verbose:
                            fired = Counter(f for v in bad for f in caught_by(v))
                            lost = Counter(f for v in people for f in caught_by(v))
                            caught = f"{sum(not v.kept for v in bad)} / {len(bad)}" if bad else "–"
                            print(f"| {kind} | {method} | {sum(v.kept for v in people)} / {len(people)} | "
                                  + ", ".join(f"{n} {c}" for n, c in lost.most_common(3)) + f" | {caught} | "
                                  + ", ".join(f"{n} {c}" for n, c in fired.most_common(4))
                                  + f" | {'yes' if fact.held else 'NO'} |", flush=True)
    print_summary(tallies, args)
    return tallies


def print_summary(tallies: dict[tuple[str, str, str, str], Tally], args: argparse.Namespace) -> None:
    """Per test set: people kept (over every crowd) and each kind caught, per layout and QC method; English
    and Chinese campaigns together."""
    layouts, kinds = args.layouts.split(","), sorted({k for (_, _, _, k) in tallies}, key=_kind_order)
    for test_set in args.test_sets.split(","):
        columns = [(layout, method) for layout in layouts for method in QC_METHODS]
        print(f"\n#### {test_set}: English + Chinese, one HIT per worker (seed {args.seed})")
        print("| | " + " | ".join(f"{layout}, {method}" for layout, method in columns) + " |")
        print("|---|" + "---|" * len(columns))
        people = [_sum(tallies, test_set, layout, method) for layout, method in columns]
        print("| people kept | " + " | ".join(f"{t.people_kept / t.people:.1%}" for t in people) + " |")
        for kind in kinds:
            if kind == HONEST:
                continue
            row = [tallies[(test_set, layout, method, kind)] for layout, method in columns]
            print(f"| {kind} caught | " + " | ".join(f"{t.caught / t.raters:.0%}" for t in row) + " |")
        print("| order recovered | " + " | ".join(f"{t.orders_recovered} / {t.orders}" for t in people) + " |",
              flush=True)


def _sum(tallies: dict[tuple[str, str, str, str], Tally], test_set: str, layout: str, method: str) -> Tally:
    total = Tally()
    for (t, lay, m, _), tally in tallies.items():
        if (t, lay, m) == (test_set, layout, method):
            for name in ("people", "people_kept", "orders", "orders_recovered"):
                setattr(total, name, getattr(total, name) + getattr(tally, name))
    return total


def _kind_order(kind: str) -> int:
    names = [HONEST, *kind_names()]
    return names.index(kind) if kind in names else len(names)


NULL_KINDS = ("random", "always 90-100", "noisy constant", "drifting", "random tens")


def null_scores(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Scores of a rater whose score does not depend on what is shown (the pooled test's null)."""
    if kind == "random":
        return rng.integers(0, 101, n)
    if kind == "always 90-100":
        return rng.integers(90, 101, n)
    if kind == "noisy constant":
        return np.clip(np.rint(rng.uniform(20, 80) + rng.normal(0, 10, n)), 0, 100)
    if kind == "drifting":  # tiring: 30 points lower by the end of the HIT, plus noise
        return np.clip(np.rint(rng.uniform(40, 90) - np.linspace(0, 30, n) + rng.normal(0, 8, n)), 0, 100)
    return rng.integers(0, 11, n) * 10


def size(args: argparse.Namespace, out: Path) -> None:
    """How often raters of the null pass the pooled, weighted and published tests (at alpha 0.05)."""
    from analysis.quality import quality_control

    print(f"size: {args.size} raters of each content-blind kind, one HIT each; seed {args.seed}")
    print("| campaign | rater | passes the pooled test | passes the weighted test | passes the published test |")
    print("|---|---|---|---|---|")
    for language in LANGUAGES:
        for layout in args.layouts.split(","):
            campaign = build("sample", language, layout, args.seed, out, args.judge_sd)
            hits: dict[str, list[Slot]] = {}
            for slot in campaign.slots:
                hits.setdefault(slot.hit, []).append(slot)
            order = list(hits)
            for k, kind in enumerate(NULL_KINDS):
                rng = np.random.default_rng([args.seed, k])
                columns: dict[str, list[Any]] = {c: [] for c in ("group", "worker", "hit", "system", "item",
                                                                 "slot_type", "slot", "original_slot", "score")}
                for w in range(args.size):
                    slots = hits[order[w % len(order)]]
                    for slot, score in zip(slots, null_scores(kind, len(slots), rng)):
                        for column, value in (("group", "g"), ("worker", f"w{w}"), ("hit", f"w{w}"),
                                              ("system", slot.system), ("item", slot.item),
                                              ("slot_type", slot.slot_type), ("slot", f"w{w}/{slot.id}"),
                                              ("original_slot", f"w{w}/{slot.original}" if slot.original else ""),
                                              ("score", int(score))):
                            columns[column].append(value)
                table = RatingsTable.from_columns(**columns)  # type: ignore[arg-type]
                pooled, weighted = (np.mean([w.passed for w in quality_control(table, QCPolicy(method))["g"].workers])
                                    for method in (QCMethod.pooled, QCMethod.weighted))
                published = np.mean([w.passed for w in quality_control(table)["g"].workers])
                print(f"| {language} {layout} | {kind} | {pooled:.1%} | {weighted:.1%} | {published:.1%} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--honest", type=int, default=60)
    parser.add_argument("--per-kind", type=int, default=12)
    parser.add_argument("--layouts", default="classic,hardened,targeted")
    parser.add_argument("--test-sets", default="sample,bad-systems")
    parser.add_argument("--kinds", help="comma-separated kinds (default: all of careful_kinds.kind_names and honest)")
    parser.add_argument("--judge-sd", type=float,
                        help="instead of the careful bots' judge (chrF), a judge that knows each text's true "
                             "quality up to normal noise of this SD on the 0-100 scale (25: item-level correlation "
                             "0.85 with the truth, a good LLM judge)")
    parser.add_argument("--no-judge-evidence", dest="judge_evidence", action="store_false",
                        help="leave the judge's scores out of the evidence (as if none were imported)")
    parser.add_argument("--out", type=Path, help="folder for the campaigns' databases (default: a temporary one)")
    parser.add_argument("--beyond-p", type=float,
                        help="flag beyond_automatic at p >= this instead of the platform's "
                             "analysis.behaviour_signals.MAX_AUTOMATIC_P (a trade-off study)")
    parser.add_argument("--verbose", action="store_true", help="also each campaign's table, with what fired")
    parser.add_argument("--size", type=int, metavar="N",
                        help="instead: the pooled test's size, with N raters of each content-blind kind")
    args = parser.parse_args()
    if args.beyond_p is not None:
        behaviour.MAX_AUTOMATIC_P = args.beyond_p
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        if args.size:
            size(args, out)
        else:
            run(args, out)


if __name__ == "__main__":
    main()
