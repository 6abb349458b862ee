"""Real people at one HIT: quality control measured on real crowd workers' HITs, each judged alone.

The data: a WMT DA release with its check items, e.g. WMT21 newstest2021 to English (wmt-conference/
wmt21-news-systems, humaneval/newstest2021-toen: six language pairs rated on MTurk, 100-item HITs with BAD_REF,
REF and REPEAT items; only the workers WMT itself kept). ``RELEASE`` is a folder of its rating tables in WMT's
format, one per language pair: ``raw-<pair>.csv`` (or ``.csv.gz``; the raw integer scores), else the release's
``ad-<pair>-good-stnd.csv`` with their ``ad-<pair>-trk-mean-sd.txt`` (the raw scores are recovered from them,
``--format wmt-stnd``).

Each worker-HIT is analysed alone (the worker of one HIT: the common case on MTurk and Prolific). **Reliable**
workers are those with three or more HITs in a pair whose pooled test over all of them gives p < 1e-4; their
HITs are people's HITs beyond reasonable doubt, and the share of them a test keeps at one HIT is its cost on
real people. The pairs are split: the weights of the weighted test and the honest-worker model are fitted on
``FIT_PAIRS`` and reported on the others (held out), and on all.

    PYTHONPATH=. python benchmarks/real_people.py qc RELEASE                # every test's share kept, per split
    PYTHONPATH=. python benchmarks/real_people.py qc RELEASE --cross-validate   # the weights on pairs not fitted on
    PYTHONPATH=. python benchmarks/real_people.py fit-weights RELEASE       # refit analysis/people_checks.json
"""
from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import math
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analysis.checks import weighted_test
from analysis.people_checks import WEIGHTS_FILE, PeopleWeights, count_pairs, people_weights
from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.quality import quality_control
from analysis.readers import read_ratings_with_stats
from analysis.table import BAD_REF, MEANING, NO_LINK, REF, REPEAT, SLOT_TYPES, SYSTEM, Categorical, RatingsTable
from da_platform.simulation.forecast import (
    Design,
    SystemEstimates,
    clusters_of,
    forecast_given,
    forecast_recovery,
    subsample_recovery,
    system_estimates,
)
from da_platform.simulation.people import (
    DAMAGED,
    KIND_OF,
    PARAMETERS_FILE,
    PeopleModel,
    fitted_model,
    simulate_slots,
)
from da_platform.simulation.people import REF as REF_KIND
from da_platform.simulation.people import REPEAT as REPEAT_KIND
from da_platform.simulation.people import SYSTEM as SYSTEM_KIND

NO_QC = QCPolicy(QCMethod.none)  # the release holds only the workers WMT kept
FIT_PAIRS = ("cs-en", "de-en", "ha-en")
"""The language pairs the weights and the model are fitted on (the first three of WMT21's to-English pairs in
alphabetical order); the rest are held out."""
RELIABLE_HITS, RELIABLE_P = 3, 1e-4
TESTS = ("wilcoxon", "pooled", "weighted")


@dataclass(frozen=True)
class RealHit:
    """One worker-HIT of a real release: its check pairs and scores (integer arrays)."""

    group: str
    worker: str
    hit: str
    reliable: bool  # the worker is reliable over the whole pair (module docstring)
    damaged: tuple[np.ndarray, np.ndarray]  # (originals, BAD_REF and MEANING copies)
    reference: tuple[np.ndarray, np.ndarray]  # (originals, REF)
    repeat: tuple[np.ndarray, np.ndarray]  # (originals, REPEAT)
    ordinary: np.ndarray  # SYSTEM scores
    scores: np.ndarray  # every score of the HIT, in the release's order

    @property
    def label(self) -> str:
        return f"{self.worker}|{self.hit}"

    @property
    def has_checks(self) -> bool:
        return len(self.damaged[0]) + len(self.reference[0]) > 0

    @property
    def pairs(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        return self.damaged, self.reference, self.repeat


def release_files(release: Path) -> list[Path]:
    """The release's rating tables, one per language pair (module docstring)."""
    raw = sorted(release.glob("raw-*.csv")) + sorted(release.glob("raw-*.csv.gz"))
    files = raw or sorted(release.glob("ad-*-good-stnd.csv"))
    if not files:
        raise SystemExit(f"{release}: no raw-<pair>.csv[.gz] or ad-<pair>-good-stnd.csv files")
    return files


def read_release(release: Path) -> list[RatingsTable]:
    """Every language pair's ratings (a ``.gz`` is read through a temporary copy)."""
    tables = []
    with tempfile.TemporaryDirectory() as scratch:
        for file in release_files(release):
            path = file
            if file.suffix == ".gz":
                path = Path(scratch) / file.stem
                with gzip.open(file, "rb") as packed, open(path, "wb") as plain:
                    shutil.copyfileobj(packed, plain)
            table, _ = read_ratings_with_stats(path, "wmt-stnd" if "good-stnd" in file.name else "wmt",
                                               mean_sd=sorted(file.parent.glob("ad-*-trk-mean-sd.txt")))
            tables.append(table)
    return tables


def per_hit(table: RatingsTable) -> RatingsTable:
    """The table with each worker-HIT as a worker of its own (``<worker>|<HIT>``)."""
    labels = [f"{w}|{h}" for w, h in zip(table.worker.values(), table.hit.values())]
    return dataclasses.replace(table, worker=Categorical.from_values(labels))


def real_hits(tables: Sequence[RatingsTable]) -> list[RealHit]:
    """Every worker-HIT of the tables with its pairs, and whether its worker is reliable."""
    hits = []
    for table in tables:
        reports = quality_control(table, QCPolicy(QCMethod.pooled)).values()
        reliable = {w.worker for report in reports for w in report.workers
                    if w.n_hits >= RELIABLE_HITS and w.pvalue < RELIABLE_P}
        by_hit = per_hit(table)
        order = np.argsort(by_hit.worker.codes, kind="stable")
        bounds = np.searchsorted(by_hit.worker.codes[order], np.arange(len(by_hit.worker.labels) + 1))
        score, original, types = table.score.astype(np.int64), table.original, table.slot_type
        for code, label in enumerate(by_hit.worker.labels):
            rows = order[bounds[code]:bounds[code + 1]]
            if len(rows) == 0:
                continue

            def pairs(*kinds: int, rows: np.ndarray = rows, types: np.ndarray = types, original: np.ndarray = original,
                      score: np.ndarray = score) -> tuple[np.ndarray, np.ndarray]:
                checks = rows[np.isin(types[rows], kinds) & (original[rows] != NO_LINK)]
                return score[original[checks]], score[checks]

            worker, hit = label.split("|", 1)
            hits.append(RealHit(table.group.labels[table.group.codes[rows[0]]], worker, hit, worker in reliable,
                                pairs(BAD_REF, MEANING), pairs(REF), pairs(REPEAT),
                                score[rows[types[rows] == SYSTEM]], score[rows]))
    return hits


def splits(hits: Sequence[RealHit]) -> Iterator[tuple[str, list[RealHit]]]:
    """("fitted pairs", ...), ("held-out pairs", ...), ("all", ...)."""
    yield f"fitted ({', '.join(FIT_PAIRS)})", [h for h in hits if h.group in FIT_PAIRS]
    yield "held out (" + ", ".join(sorted({h.group for h in hits} - set(FIT_PAIRS))) + ")", \
        [h for h in hits if h.group not in FIT_PAIRS]
    yield "all", list(hits)


def fit_weights(hits: Sequence[RealHit], source: str) -> PeopleWeights:
    """The weighted test's weights from the pairs of ``hits`` (every worker-HIT: all are people's)."""
    return PeopleWeights.fit(count_pairs(h.pairs for h in hits), source)


def kept_at_one_hit(tables: Sequence[RatingsTable], methods: Sequence[str] = TESTS) -> dict[str, dict[str, bool]]:
    """Method -> ``<worker>|<HIT>`` -> whether the platform's quality control keeps that HIT judged alone
    (``analysis.quality.quality_control`` on the table with each worker-HIT as a worker: the path of
    ``da-platform analyze``)."""
    kept: dict[str, dict[str, bool]] = {m: {} for m in methods}
    for table in tables:
        by_hit = per_hit(table)
        for method in methods:
            for report in quality_control(by_hit, QCPolicy(QCMethod(method))).values():
                kept[method].update({w.worker: w.passed for w in report.workers})
    return kept


def qc(args: argparse.Namespace) -> None:
    """Every test's share of HITs kept, per split: all HITs, reliable workers' HITs (all; with check pairs)."""
    tables = read_release(args.release)
    hits = real_hits(tables)
    kept = kept_at_one_hit(tables)
    print(f"{len(hits)} worker-HITs, each judged alone by the platform's quality control (weighted: the shipped "
          "weights, analysis/people_checks.json)")
    print("| pairs | HITs | reliable workers' HITs (with check pairs) | "
          + " | ".join(f"{t}: all; reliable (with checks)" for t in TESTS) + " |")
    print("|---|---|---|" + "---|" * len(TESTS))
    for name, chosen in splits(hits):
        reliable = [h for h in chosen if h.reliable]
        checked = [h for h in reliable if h.has_checks]
        cells = [f"{_share(kept[t], chosen)}; {_share(kept[t], reliable)} ({_share(kept[t], checked)})" for t in TESTS]
        print(f"| {name} | {len(chosen)} | {len(reliable)} ({len(checked)}) | " + " | ".join(cells) + " |", flush=True)


    if args.cross_validate:
        cross_validate(hits, kept)


def weighted_kept(hit: RealHit, weights: PeopleWeights, alpha: float = 0.05) -> tuple[bool, float]:
    """Whether the weighted test with ``weights`` keeps ``hit`` judged alone, and its p-value (NaN: no non-zero
    directional pair): the platform's verdict (``analysis.quality``: identical scores throughout fail, else
    ``analysis.checks.weighted_test`` at ``alpha``) for weights other than the shipped ones. ``cross_validate``
    checks that it agrees with the platform's on every HIT with the shipped weights."""
    if len(np.unique(hit.scores)) < 2:
        return False, math.nan
    found = weighted_test(hit.damaged, hit.reference, hit.repeat, hit.ordinary, weights)
    return bool(found.pvalue < alpha), found.pvalue


def folds(groups: Sequence[str]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(name, fitted pairs) of the cross-validation: each pair left out in turn, then the two halves swapped
    (``FIT_PAIRS`` and the rest, each judged with weights fitted on the other)."""
    for group in groups:
        yield f"leave {group} out", tuple(g for g in groups if g != group)
    rest = tuple(g for g in groups if g not in FIT_PAIRS)
    yield f"fitted on {', '.join(rest)}", rest
    yield f"fitted on {', '.join(FIT_PAIRS)} (shipped)", FIT_PAIRS


def cross_validate(hits: Sequence[RealHit], kept: dict[str, dict[str, bool]]) -> None:
    """Reliable workers' HITs kept per pair by the weighted test with weights fitted without that pair (each pair
    left out in turn; the two halves swapped), beside the pooled and published tests (which fit nothing), and
    what the HITs the left-out weights fail carry."""
    shipped = people_weights()
    differ = [h.label for h in hits if weighted_kept(h, shipped)[0] != kept["weighted"][h.label]]
    if differ:
        raise SystemExit(f"the benchmark's weighted verdict differs from the platform's on {len(differ)} HITs, "
                         f"e.g. {differ[0]}")
    groups = sorted({h.group for h in hits})
    reliable = {g: [h for h in hits if h.group == g and h.reliable] for g in groups}
    print(f"\nCross-validated: reliable workers' HITs kept per pair by the weighted test with weights fitted without "
          f"it (the benchmark's verdict agrees with the platform's on all {len(hits)} HITs with the shipped weights)")
    print("| weights fitted on | judged | reliable workers' HITs | wilcoxon | pooled | weighted (cross-validated) "
          "| weighted (shipped weights) |")
    print("|---|---|---|---|---|---|---|")
    left_out: dict[str, tuple[bool, float]] = {}
    cross: dict[str, dict[str, bool]] = {}
    halves: dict[str, bool] = {}
    for name, fitted in folds(groups):
        weights = fit_weights([h for h in hits if h.group in fitted], name)
        judged = [g for g in groups if g not in fitted]
        cross[name] = {}
        for group in judged:
            verdicts = {h.label: weighted_kept(h, weights) for h in reliable[group]}
            cross[name].update({label: found[0] for label, found in verdicts.items()})
            if len(judged) == 1:
                left_out.update(verdicts)
            _cv_row(", ".join(fitted), group, reliable[group], kept, cross[name])
        if len(judged) > 1:
            halves.update(cross[name])
            _cv_row(", ".join(fitted), f"**{', '.join(judged)}**", [h for g in judged for h in reliable[g]], kept,
                    cross[name])
    every = [h for g in groups for h in reliable[g]]
    _cv_row("the other half (the two halves swapped)", "**all**", every, kept, halves)
    _cv_row("the other five (each pair left out in turn)", "**all**", every, kept,
            {label: found[0] for label, found in left_out.items()})
    failing = [h for h in every if not left_out[h.label][0]]
    kinds = {"no check pair": 0, "identical scores throughout": 0, "no non-zero directional pair": 0,
             "p > 0.3": 0, "p 0.05-0.3": 0}
    for h in failing:
        p = left_out[h.label][1]
        kind = ("no check pair" if not h.has_checks else "identical scores throughout"
                if len(np.unique(h.scores)) < 2 else "no non-zero directional pair" if math.isnan(p)
                else "p > 0.3" if p > 0.3 else "p 0.05-0.3")
        kinds[kind] += 1
    workers = Counter((h.group, h.worker) for h in failing)
    (group, worker), most = workers.most_common(1)[0]
    own = sum(h.group == group and h.worker == worker for h in every)
    others = [h for h in every if (h.group, h.worker) != (group, worker)]
    print(f"\nThe {len(failing)} reliable workers' HITs the left-out weights fail: "
          + ", ".join(f"{n} {kind}" for kind, n in kinds.items())
          + f"; {most} of them from one worker ({group} {worker}, {own} HITs); without that worker "
          f"{_share({h.label: left_out[h.label][0] for h in others}, others)} of {len(others)} kept; "
          f"{len(workers) - 1} other workers fail one or more of their HITs", flush=True)


def _cv_row(fitted: str, judged: str, hits: Sequence[RealHit], kept: dict[str, dict[str, bool]],
            cross: dict[str, bool]) -> None:
    print(f"| {fitted} | {judged} | {len(hits)} | {_share(kept['wilcoxon'], hits)} | {_share(kept['pooled'], hits)} "
          f"| {_share(cross, hits)} | {_share(kept['weighted'], hits)} |", flush=True)


def _share(kept: dict[str, bool], hits: Sequence[RealHit]) -> str:
    return f"{sum(kept[h.label] for h in hits) / len(hits):.1%}" if hits else "–"


def write_weights(args: argparse.Namespace) -> None:
    """Refit the weighted test's weights on the fit pairs and write them where the platform reads them."""
    hits = [h for h in real_hits(read_release(args.release)) if h.group in FIT_PAIRS]
    source = (f"WMT21 newstest2021 to English, MTurk (wmt-conference/wmt21-news-systems, humaneval/newstest2021-toen): "
              f"{len(hits)} worker-HITs of {', '.join(FIT_PAIRS)}; refit with: PYTHONPATH=. python "
              "benchmarks/real_people.py fit-weights RELEASE")
    weights = fit_weights(hits, source)
    counts = count_pairs(h.pairs for h in hits).pairs
    out = args.out or WEIGHTS_FILE
    out.write_text(weights.dumps(pairs=counts), encoding="utf-8")
    print(f"{out}: weights from {len(hits)} worker-HITs ({counts})")


def write_model(args: argparse.Namespace) -> None:
    """Refit the honest-worker model on the fit pairs and write it where the simulation reads it."""
    hits = [h for h in real_hits(read_release(args.release)) if h.group in FIT_PAIRS]
    source = (f"WMT21 newstest2021 to English, MTurk (wmt-conference/wmt21-news-systems, humaneval/newstest2021-toen): "
              f"{len(hits)} worker-HITs of {', '.join(FIT_PAIRS)}, the sum of ten KS distances minimised "
              f"({args.evaluations} evaluations); refit with: PYTHONPATH=. python benchmarks/real_people.py "
              "fit-model RELEASE")
    start = PeopleModel.from_json(json.loads(args.start.read_text(encoding="utf-8"))) if args.start else None
    free = tuple(args.free.split(",")) if args.free else _NAMES
    unknown = sorted(set(free) - set(_NAMES))
    if unknown:
        raise SystemExit(f"--free: no such parameter {', '.join(unknown)} (parameters: {', '.join(_NAMES)})")
    if args.free:
        source = source.replace(" minimised", f" and {args.share_weight:g} x the gaps of the published, pooled and "
                                f"weighted tests' shares kept minimised over {', '.join(free)}")
    model = fit_model(hits, source, args.evaluations, start, args.progress, free=free, share_weight=args.share_weight,
                      seeds=args.fit_seeds)
    PARAMETERS_FILE.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"{PARAMETERS_FILE}: {model}")


def report_model(args: argparse.Namespace) -> None:
    """How far simulated HITs are from real ones, per statistic (KS) and per test's share kept, per split."""
    tables = read_release(args.release)
    hits = real_hits(tables)
    model = fitted_model()
    kept_real = kept_at_one_hit(tables)
    print(f"the shipped model (da_platform/simulation/people.json), fitted on {', '.join(FIT_PAIRS)}; each real "
          "HIT's structure simulated once, seeds " + ", ".join(map(str, args.seeds)))
    print("| statistic | " + " | ".join(name for name, _ in splits(hits)) + " |")
    print("|---|" + "---|" * 3)
    rows: dict[str, list[str]] = {name: [] for name in STATISTICS}
    shares: dict[str, list[str]] = {t: [] for t in TESTS}
    for _, chosen in splits(hits):
        layout = Layout.like(chosen)
        real = statistics(Observed.of(chosen))
        distances = [ks_distances(real, statistics(layout.observed(layout.simulate(model, seed))))
                     for seed in args.seeds]
        for name in STATISTICS:
            values = [d[name] for d in distances]
            goal = " (goal <= 0.10)" if name in GOAL_STATISTICS else ""
            rows[name].append(f"{np.mean(values):.3f}{goal}")
        simulated_tables = [layout.as_table(layout.simulate(model, seed)) for seed in args.seeds]
        kept_sim = [kept_at_one_hit([t]) for t in simulated_tables]
        for test in TESTS:
            real_share = np.mean([kept_real[test][h.label] for h in chosen])
            sim_share = np.mean([np.mean(list(k[test].values())) for k in kept_sim])
            shares[test].append(f"real {real_share:.1%}, simulated {sim_share:.1%} "
                                f"({100 * (sim_share - real_share):+.1f})")
    for name, cells in rows.items():
        print(f"| KS: {name} | " + " | ".join(cells) + " |")
    for test, cells in shares.items():
        print(f"| kept at one HIT by {test} (goal: within 3 points) | " + " | ".join(cells) + " |", flush=True)


# ---- forecasts against reality --------------------------------------------------------------------------------

CALIBRATION_STEPS = 6
"""Bisection steps fitting the share of the answers' quality a document carries (forecast check)."""
SIZES = (0.25, 0.5, 0.75)
"""Campaign sizes of the forecast check, as shares of a pair's HITs."""


CALIBRATION_RELEASES = 4
"""Simulated releases per step of the forecast check's calibrations."""
TRUTHS = ("posterior", "shrunk", "observed")
"""What the forecast takes for the systems' true z-scores: drawn from the posterior for each simulated release, the
posterior means (observed scores shrunk by their sampling error), or the observed scores themselves."""


def design_of(table: RatingsTable, model: PeopleModel, seed: int,
              truth: str = "posterior") -> Design | Callable[[np.random.Generator], Design]:
    """The real table's design (its HITs, workers, slots, systems and items) with each answer's true quality for
    simulated people: its system's true z-score (``truth``: one of :data:`TRUTHS`, from
    ``simulation.forecast.system_estimates``) turned into quality points, one z being the median worker's SD of raw
    scores over the model's mean scale (stretched until simulated z-scores come out as put in), around the mean
    quality of the model's fitted release, plus an item effect, so that the answers' qualities spread as there
    (100 · Beta(quality_a, quality_b)), a document's share of it fitted so that simulated releases' ratings are as
    alike within a HIT as the real ones (``SystemEstimates.design_effect``). (Raw means would carry which workers
    happened to rate which system: z-scores do not.) ``posterior`` gives a function drawing each simulated
    release's design."""
    rng = np.random.default_rng(seed)
    [estimates] = system_estimates(table).values()
    workers = table.worker.codes
    counts = np.bincount(workers)
    mean = np.bincount(workers, weights=table.score.astype(float)) / np.maximum(1, counts)
    spread = np.sqrt(np.bincount(workers, weights=table.score.astype(float) ** 2) / np.maximum(1, counts) - mean ** 2)
    scale = math.exp(model.scale_log_mean + model.scale_log_sd ** 2 / 2)
    a, b = model.quality_a, model.quality_b
    centre, total_sd = 100 * a / (a + b), 100 * math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    unit = float(np.median(spread[counts > 1])) / scale
    systems = table.system.codes
    ordinary = table.slot_type == SYSTEM
    keys = np.unique(systems.astype(np.int64) * len(table.item.labels) + table.item.codes, return_inverse=True)[1]
    noise = rng.standard_normal(int(keys.max()) + 1)
    # WMT21's to-English HITs show whole documents: the items one HIT shows of one system share a document's
    # quality (a share of the items' variance fitted below), as a check shares its original's.
    linked = np.where(table.original >= 0, table.original, np.arange(len(table)))
    documents = np.unique(table.hit.codes[linked].astype(np.int64) * len(table.system.labels) + systems[linked],
                          return_inverse=True)[1]
    document = rng.standard_normal(int(documents.max()) + 1)

    def design(z: Mapping[str, float], stretch: float, share: float) -> Design:
        system_quality = np.array([centre + stretch * z.get(name, 0.0) * unit for name in table.system.labels])
        item_sd = math.sqrt(max(0.0, total_sd ** 2 - float(np.var(system_quality[systems[ordinary]]))))
        effect = math.sqrt(share) * document[documents] + math.sqrt(1 - share) * noise[keys]
        quality = np.clip(system_quality[systems] + item_sd * effect, 0, 100)
        return Design(table.group.values(), table.hit.values(), table.worker.values(),
                      [SLOT_TYPES[t] for t in table.slot_type.tolist()], table.original.copy(),
                      table.system.values(), table.item.values(), quality)

    def simulated(stretch: float, share: float, step: int) -> list[SystemEstimates]:
        return [next(iter(system_estimates(design(estimates.observed, stretch, share).rated(
            model, np.random.default_rng([seed, step, release]))).values())) for release in range(CALIBRATION_RELEASES)]

    # The model's ceiling compresses differences: stretch the systems' qualities until simulated releases' z-scores
    # regress on the z-scores put in with slope 1 (the observed ones: the widest spread, the surest slope; noise in
    # the simulated z-scores does not bias a slope), three steps.
    put_in = np.array(list(estimates.observed.values()))
    stretch, share = 1.0, 0.5
    for step in range(3):
        slope = float(np.mean([np.cov([e.observed.get(name, np.nan) for name in estimates.observed], put_in)[0, 1]
                               for e in simulated(stretch, share, step)])) / float(np.var(put_in, ddof=1))
        stretch /= min(3.0, max(1 / 3, slope)) if slope > 0 else 1.0
    # How alike one HIT's ratings are decides how often a rank-sum test over items separates systems that do not
    # differ: the share of the answers' quality a HIT's document carries (the items one HIT shows of one system share
    # a document's quality, as a check shares its original's) is bisected until simulated releases' design effect is
    # the real one.
    low, high = 0.0, 1.0
    for step in range(CALIBRATION_STEPS):
        share = (low + high) / 2
        found = float(np.mean([e.design_effect for e in simulated(stretch, share, 3 + step)]))
        low, high = (share, high) if found < estimates.design_effect else (low, share)
    share = (low + high) / 2
    if truth == "posterior":
        return lambda generator: design(estimates.drawn(generator), stretch, share)
    return design(estimates.shrunk() if truth == "shrunk" else estimates.observed, stretch, share)


def forecast(args: argparse.Namespace) -> None:
    """The forecast chance that k of a pair's HITs give the whole release's clusters, against how often random
    draws of k real HITs do, at three sizes, on every pair (the forecast is fitted on none; the people on
    ``FIT_PAIRS``): the forecast over simulated releases (what ``simulate`` says before a campaign) and the forecast
    given the release's clusters (what subsampling the one real release measures), with the difference's 95 %
    interval (binomial standard errors of both shares)."""
    model = fitted_model()
    print(f"recovering the whole release's clusters from k of its HITs; {args.draws} draws of real HITs, "
          f"{args.draws} simulated releases, and simulated releases until {args.draws} give the real release's "
          f"clusters (at most {args.tries}) per cell; analysis without quality control (the release holds only the "
          "workers WMT kept); people: the fitted model (da_platform/simulation/people.json, fitted on "
          f"{', '.join(FIT_PAIRS)}); true z-scores: {args.truth}")
    print("| pair | systems, clusters | true spread / observed SD of z | HITs | k | real subsamples | forecast | "
          "difference (95 % interval) | forecast given the clusters (releases matched) | difference (95 % interval) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    pairs: list[tuple[float, float]] = []  # (forecast, real) of every cell
    for table in read_release(args.release):
        group = table.groups()[0]
        [estimates] = system_estimates(table).values()
        [clusters] = clusters_of(table, NO_QC).values()
        observed_sd = float(np.std(list(estimates.observed.values()), ddof=1))
        n_hits = len(np.unique(table.hit.codes))
        sizes = [max(1, round(share * n_hits)) for share in SIZES]
        real = subsample_recovery(table, sizes, args.draws, seed=args.seed)[group]
        design = design_of(table, model, args.seed, args.truth)
        predicted = forecast_recovery(design, sizes, args.draws, seed=args.seed, model=model)[group]
        given = forecast_given(design, group, clusters, sizes, args.draws, args.tries, seed=args.seed, model=model)
        for size in sizes:
            pairs.append((predicted[size], real[size]))
            cells = [group, f"{len(estimates.observed)}, {len(clusters)}",
                     f"{estimates.spread:.3f} / {observed_sd:.3f}", str(n_hits), str(size), f"{real[size]:.0%}",
                     f"{predicted[size]:.0%}", _difference(predicted[size], args.draws, real[size], args.draws)]
            if given.tried == 0:
                cells += ["not asked", ""]
            elif size in given.shares:
                cells += [f"{given.shares[size]:.0%} ({given.matched} of {given.tried})",
                          _difference(given.shares[size], given.matched, real[size], args.draws)]
            else:
                cells += [f"none of {given.tried} gave them", ""]
            print("| " + " | ".join(cells) + " |", flush=True)
    print(calibration(pairs))


def calibration(pairs: Sequence[tuple[float, float]]) -> str:
    """How the forecast over campaigns does as a probability across every cell (pair and size): the mean forecast
    against the mean real share (a calibrated forecast's agree within sampling error), and its mean absolute gap."""
    forecast, real = (np.array(column) for column in zip(*pairs))
    return (f"over the {len(pairs)} cells: mean forecast {forecast.mean():.1%}, mean real share {real.mean():.1%} "
            f"({100 * (forecast.mean() - real.mean()):+.1f} points); mean absolute gap "
            f"{100 * np.abs(forecast - real).mean():.1f} points; cells within 10 points "
            f"{int(np.sum(np.abs(forecast - real) <= 0.10))} of {len(pairs)}")


def _difference(forecast: float, runs: int, real: float, draws: int) -> str:
    """The forecast share minus the real one, in points, with its 95 % interval (binomial standard errors)."""
    difference = forecast - real
    error = 1.96 * math.sqrt(forecast * (1 - forecast) / runs + real * (1 - real) / draws)
    return f"{100 * difference:+.0f} ({100 * (difference - error):+.0f} to {100 * (difference + error):+.0f}) points"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("qc", "every test's share of real HITs kept"),
                            ("fit-weights", "refit the weighted test's weights (analysis/people_checks.json)"),
                            ("forecast", "forecast chance of recovering the clusters against real subsamples"),
                            ("fit-model", "refit the honest-worker model (da_platform/simulation/people.json)"),
                            ("model", "simulated HITs against real ones: KS per statistic, shares kept")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("release", type=Path, help="folder of the release's rating tables (module docstring)")
    commands.choices["fit-weights"].add_argument("--out", type=Path, help="write here instead")
    commands.choices["qc"].add_argument("--cross-validate", action="store_true",
                                        help="also the weighted test on pairs its weights were not fitted on")
    commands.choices["forecast"].add_argument("--draws", type=int, default=30, help="draws and simulated releases")
    commands.choices["forecast"].add_argument("--seed", type=int, default=1)
    commands.choices["forecast"].add_argument("--tries", type=int, default=600,
                                              help="at most this many simulated releases for the forecast given the "
                                                   "clusters (0: none)")
    commands.choices["forecast"].add_argument("--truth", choices=TRUTHS, default="posterior",
                                              help="the systems' true z-scores (TRUTHS)")
    commands.choices["fit-model"].add_argument("--evaluations", type=int, default=2500)
    commands.choices["fit-model"].add_argument("--start", type=Path, help="start from this model (JSON)")
    commands.choices["fit-model"].add_argument("--progress", type=Path, help="keep the best model so far here")
    commands.choices["fit-model"].add_argument("--free", help="fit only these parameters (comma-separated names; the "
                                               "rest stay as in --start or the shipped model)")
    commands.choices["fit-model"].add_argument("--share-weight", type=float, default=0.0,
                                               help="add this times the gaps (as shares) between simulated and real "
                                                    "HITs kept by the pooled and the weighted test to the loss")
    commands.choices["fit-model"].add_argument("--fit-seeds", type=int, nargs="+", default=[11],
                                               help="simulate the fitted HITs with each seed; the loss is the mean")
    commands.choices["model"].add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = parser.parse_args()
    {"qc": qc, "fit-weights": write_weights, "forecast": forecast, "fit-model": write_model,
     "model": report_model}[args.command](args)


# ---- the honest-worker model: simulated HITs like the real ones -------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """The slots of many HITs laid end to end: per slot its HIT, worker, kind and original (-1: none); each HIT
    has the ordinary items and check pairs of one real HIT (checks of its first ordinary items, in turn)."""

    hit: np.ndarray
    worker: np.ndarray
    kind: np.ndarray
    original: np.ndarray
    hits: list[RealHit]  # the real HITs laid out
    n_workers: int

    @classmethod
    def like(cls, hits: Sequence[RealHit]) -> Layout:
        workers: dict[tuple[str, str], int] = {}
        parts: list[list[np.ndarray]] = [[], [], [], []]
        start = 0
        for index, hit in enumerate(hits):
            worker = workers.setdefault((hit.group, hit.worker), len(workers))
            n = max(1, len(hit.ordinary))
            counts = [len(hit.damaged[0]), len(hit.reference[0]), len(hit.repeat[0])]
            kinds = np.concatenate([np.full(n, SYSTEM_KIND), np.full(counts[0], DAMAGED), np.full(counts[1], REF_KIND),
                                    np.full(counts[2], REPEAT_KIND)])
            original = np.concatenate([np.full(n, -1), start + np.arange(sum(counts)) % n])
            for part, values in zip(parts, (np.full(len(kinds), index), np.full(len(kinds), worker), kinds, original)):
                part.append(values)
            start += len(kinds)
        slot_hit, slot_worker, kind, slot_original = (np.concatenate(p).astype(np.int64) for p in parts)
        return cls(slot_hit, slot_worker, kind, slot_original, list(hits), len(workers))

    def simulate(self, model: PeopleModel, seed: int) -> np.ndarray:
        """Every slot's score by simulated people (one per real worker; ``da_platform.simulation.people``), the
        answers of true quality 100 · Beta(quality_a, quality_b)."""
        rng = np.random.default_rng(seed)
        quality = 100 * rng.beta(model.quality_a, model.quality_b, len(self.kind))
        checks = self.original >= 0
        quality[checks] = quality[self.original[checks]]
        return simulate_slots(model, self.hit, self.worker, self.kind, self.original, quality, rng)

    def observed(self, scores: np.ndarray) -> Observed:
        """The statistics' raw material from simulated scores of these slots."""
        def pairs(kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            rows = np.flatnonzero(self.kind == kind)
            return scores[self.original[rows]], scores[rows], self.hit[rows]

        ordinary = self.kind == SYSTEM_KIND
        return Observed(pairs(DAMAGED), pairs(REF_KIND), pairs(REPEAT_KIND), (scores[ordinary], self.hit[ordinary]),
                        (scores, self.hit), len(self.hits))

    def as_table(self, scores: np.ndarray) -> RatingsTable:
        """Simulated scores as a ratings table (one group; each worker-HIT ``<group>/<worker>``, its HIT)."""
        names = {KIND_OF[t]: t for t in ("SYSTEM", "REPEAT", "BAD_REF", "REF")}
        hit_labels = [f"{h.group}/{h.worker}|{h.hit}" for h in self.hits]
        slots = [str(i) for i in range(len(scores))]
        return RatingsTable.from_columns(
            group=["sim"] * len(scores), worker=[hit_labels[h].split("|")[0] for h in self.hit.tolist()],
            hit=[hit_labels[h] for h in self.hit.tolist()], system=["s"] * len(scores), item=slots,
            slot_type=[names[k] for k in self.kind.tolist()], slot=slots,
            original_slot=["" if o < 0 else slots[o] for o in self.original.tolist()], score=scores)

    def as_hits(self, scores: np.ndarray) -> list[RealHit]:
        """Simulated scores as HITs (for the platform's quality control)."""
        simulated = []
        for index, hit in enumerate(self.hits):
            rows = np.flatnonzero(self.hit == index)
            kinds, original = self.kind[rows], self.original[rows]

            def pairs(kind: int, rows: np.ndarray = rows, kinds: np.ndarray = kinds,
                      original: np.ndarray = original) -> tuple[np.ndarray, np.ndarray]:
                mine = kinds == kind
                return scores[original[mine]], scores[rows[mine]]

            simulated.append(RealHit(hit.group, hit.worker, hit.hit, hit.reliable, pairs(DAMAGED), pairs(REF_KIND),
                                     pairs(REPEAT_KIND), scores[rows[kinds == SYSTEM_KIND]], scores[rows]))
        return simulated


@dataclass(frozen=True)
class Observed:
    """Scores a statistic is made of: (originals, checks, HIT) per check family, (scores, HIT) of the ordinary
    items and of every item."""

    damaged: tuple[np.ndarray, np.ndarray, np.ndarray]
    reference: tuple[np.ndarray, np.ndarray, np.ndarray]
    repeat: tuple[np.ndarray, np.ndarray, np.ndarray]
    ordinary: tuple[np.ndarray, np.ndarray]
    every: tuple[np.ndarray, np.ndarray]
    n_hits: int

    @classmethod
    def of(cls, hits: Sequence[RealHit]) -> Observed:
        def stack(parts: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
            return tuple(np.concatenate([p[k] for p in parts]) for k in range(len(parts[0])))

        def with_hit(pair: tuple[np.ndarray, np.ndarray], index: int) -> tuple[np.ndarray, ...]:
            return (*pair, np.full(len(pair[0]), index))

        return cls(stack([with_hit(h.damaged, i) for i, h in enumerate(hits)]),  # type: ignore[arg-type]
                   stack([with_hit(h.reference, i) for i, h in enumerate(hits)]),  # type: ignore[arg-type]
                   stack([with_hit(h.repeat, i) for i, h in enumerate(hits)]),  # type: ignore[arg-type]
                   stack([(h.ordinary, np.full(len(h.ordinary), i)) for i, h in enumerate(hits)]),  # type: ignore[arg-type]
                   stack([(h.scores, np.full(len(h.scores), i)) for i, h in enumerate(hits)]),  # type: ignore[arg-type]
                   len(hits))


STATISTICS = ("BAD_REF drop", "REPEAT difference", "REF score", "REF - original", "SYSTEM score",
              "HIT: mean SYSTEM score", "HIT: SD of SYSTEM scores", "HIT: mean BAD_REF drop",
              "HIT: mean |REPEAT difference|", "HIT: share of multiples of 10")
GOAL_STATISTICS = ("BAD_REF drop", "REPEAT difference", "REF score")
"""The statistics whose KS distance the model must keep at or below ``GOAL_KS`` on held-out HITs."""
GOAL_KS = 0.10


def statistics(seen: Observed) -> dict[str, np.ndarray]:
    """Each statistic of ``STATISTICS`` (pairs pooled; per-HIT values for the HIT ones, HITs with any)."""
    def per_hit(values: np.ndarray, hit: np.ndarray) -> np.ndarray:
        counts = np.bincount(hit, minlength=seen.n_hits)
        sums = np.bincount(hit, weights=values.astype(np.float64), minlength=seen.n_hits)
        return sums[counts > 0] / counts[counts > 0]

    a, b, hit = seen.damaged
    drop = (a - b).astype(np.float64)
    ra, rb, rhit = seen.repeat
    fa, fb, _ = seen.reference
    scores, ohit = seen.ordinary
    mean = per_hit(scores, ohit)
    square = per_hit(scores.astype(np.float64) ** 2, ohit)
    every, ehit = seen.every
    return {
        "BAD_REF drop": drop, "REPEAT difference": (rb - ra).astype(np.float64), "REF score": fb.astype(np.float64),
        "REF - original": (fb - fa).astype(np.float64), "SYSTEM score": scores.astype(np.float64),
        "HIT: mean SYSTEM score": mean, "HIT: SD of SYSTEM scores": np.sqrt(np.maximum(0.0, square - mean ** 2)),
        "HIT: mean BAD_REF drop": per_hit(drop, hit),
        "HIT: mean |REPEAT difference|": per_hit(np.abs(rb - ra), rhit),
        "HIT: share of multiples of 10": per_hit((every % 10 == 0).astype(np.float64), ehit),
    }


def ks_distances(real: dict[str, np.ndarray], simulated: dict[str, np.ndarray]) -> dict[str, float]:
    """The two-sample Kolmogorov-Smirnov distance of each statistic, simulated against real."""
    from scipy.stats import ks_2samp

    return {name: float(ks_2samp(real[name], simulated[name]).statistic) for name in STATISTICS}


_POSITIVE = ("bias_sd", "bias_hit_sd", "scale_log_sd", "noise_log_sd", "lapse_concentration", "lapse_noise",
             "ref_top_concentration", "notice_concentration", "drop_a", "drop_b", "ref_gap", "quality_a", "quality_b",
             "soft_top", "repeat_noise_log_sd")
_SHARES = ("lapse_mean", "lapse_floor", "notice_mean", "memory_mean", "round10_mean", "round5_mean", "ref_top")
_NAMES = tuple(f.name for f in dataclasses.fields(PeopleModel) if f.name != "source")


def _to_free(model: PeopleModel) -> np.ndarray:
    values = [getattr(model, name) for name in _NAMES]
    return np.array([np.log(v) if n in _POSITIVE else np.log(v / (1 - v)) if n in _SHARES else v
                     for n, v in zip(_NAMES, values)])


def _from_free(free: np.ndarray, source: str) -> PeopleModel:
    values = {n: float(np.exp(np.clip(v, -10, 10)) if n in _POSITIVE
                       else 1 / (1 + np.exp(-np.clip(v, -20, 20))) if n in _SHARES else v)
              for n, v in zip(_NAMES, free.tolist())}
    return PeopleModel(source=source).with_vector(np.array([values[n] for n in _NAMES]))


def shares_kept(hits: Sequence[RealHit], alpha: float = NO_QC.alpha) -> dict[str, float]:
    """The share of ``hits`` each of ``TESTS`` keeps, each HIT judged alone: the verdict of ``analysis.quality``
    on each HIT's pairs directly (the path ``kept_at_one_hit`` takes through a whole ratings table, without
    building one: fast enough for a fit's every evaluation)."""
    from analysis.quality import _verdict

    none = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    policies = {test: QCPolicy(QCMethod(test), alpha=alpha) for test in TESTS}
    kept = {test: 0 for test in TESTS}
    for h in hits:
        families = (none, h.reference, h.repeat, (h.ordinary, h.ordinary))
        sd = float(np.std(h.scores))
        for test, policy in policies.items():
            kept[test] += _verdict(policy, *h.damaged, sd, len(h.scores), True, families=families)["passed"]
    return {test: count / max(1, len(hits)) for test, count in kept.items()}


def fit_model(hits: Sequence[RealHit], source: str, evaluations: int, start: PeopleModel | None = None,
              progress: Path | None = None, free: Sequence[str] = _NAMES, share_weight: float = 0.0,
              seeds: Sequence[int] = (11,)) -> PeopleModel:
    """The model whose simulated HITs are closest to ``hits``: the sum of the KS distances of ``STATISTICS``, plus
    ``share_weight`` times the gaps between the shares of simulated and real HITs each test of ``TESTS``
    keeps (``shares_kept``), averaged over simulations with ``seeds``, minimised by Nelder-Mead over the parameters
    ``free`` (common random numbers: the same seeds every evaluation; the first simplex steps 0.3 along each free
    parameter, on the log or logit scale of a positive number or a share); ``progress``: a file where the best
    model so far is kept (JSON), so that a long fit can be stopped and resumed from it (``start``)."""
    from scipy.optimize import minimize

    layout = Layout.like(hits)
    real = statistics(Observed.of(hits))
    real_kept = shares_kept(hits) if share_weight else {}
    best: list[float] = [math.inf]
    initial = _to_free(start or fitted_model())
    chosen = np.array([name in free for name in _NAMES])

    def full(values: np.ndarray) -> np.ndarray:
        vector = initial.copy()
        vector[chosen] = values
        return vector

    def one_loss(model: PeopleModel, seed: int) -> float:
        scores = layout.simulate(model, seed)
        value = sum(ks_distances(real, statistics(layout.observed(scores))).values())
        if share_weight:
            kept = shares_kept(layout.as_hits(scores))
            value += share_weight * sum(abs(kept[test] - real_kept[test]) for test in kept)
        return value

    def loss(values: np.ndarray) -> float:
        model = _from_free(full(values), source)
        value = float(np.mean([one_loss(model, seed) for seed in seeds]))
        if value < best[0] and progress is not None:
            best[0] = value
            progress.write_text(json.dumps({**model.to_json(), "loss": value}, indent=1) + "\n", encoding="utf-8")
        return value

    first = initial[chosen]
    simplex = np.vstack([first, first + 0.3 * np.eye(len(first))])
    found = minimize(loss, first, method="Nelder-Mead", options={"maxfev": evaluations, "xatol": 1e-3, "fatol": 1e-4,
                                                                 "adaptive": True, "initial_simplex": simplex})
    print(f"fit: loss {found.fun:.4f} after {found.nfev} evaluations ({found.message})", flush=True)
    return _from_free(full(found.x), source)


if __name__ == "__main__":
    main()
