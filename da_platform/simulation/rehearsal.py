"""A rehearsal of one's own campaign before paying (``da-platform simulate CAMPAIGN``).

copy the campaign's design into a scratch SQLite database (:mod:`da_platform.simulation.campaign_copy`; the live
database is only read) → each answer's true quality from a metric or the researcher's labels
(:mod:`da_platform.simulation.truth`) → serve the copy's real worker pages on 127.0.0.1 and let a simulated crowd
(honest workers and the adversarial kinds asked for) rate through them over HTTP
(:mod:`da_platform.simulation.page_crowd`, as the demo does) → the campaign's own analysis and every export, on
the copy → what a researcher wants to know first: how many of each kind of worker quality control kept, flagged
or excluded, whether the true order is recovered and adjacent systems separate, the ratings per system, and what
the real campaign costs at its reward settings.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from da_platform.simulation.page_crowd import CrowdSettings, Steps, crowd_plan, rate_through_pages

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from analysis.report import GroupAnalysis
    from da_platform.campaigns.progress import CostProjection
    from da_platform.db.models import Campaign
    from da_platform.simulation.demo import Fact
    from da_platform.simulation.truth import Truth
    from hit_builder.storage import ImageStorage

DATABASE = "simulation.sqlite"
SCRATCH = (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm")
FOLDERS = ("images", "exports")
WORKER_PREFIX = "sim"
HONEST = "honest"


class RehearsalError(RuntimeError):
    """The rehearsal cannot run as asked (said in a sentence, without a traceback)."""


@dataclass(frozen=True)
class RehearsalOptions:
    """What to rehearse and with which crowd."""

    out: Path  # the scratch folder: database, images, exports
    truth: str = "metric:rouge-l"  # metric:NAME or labels:FILE (da_platform.simulation.truth)
    honest: int | None = None  # honest workers; None: enough for every assignment of every HIT
    hits_per_worker: int | None = None  # HITs one honest worker takes; None: the campaign's maximum
    bad_workers: dict[str, int] = field(default_factory=dict)  # kind -> how many (adversaries.KINDS)
    seed: int = 1
    threads: int = 4
    fetch_images: bool = True
    reward: tuple[str, str] | None = None  # (mturk | prolific, amount): price the campaign at this reward


@dataclass(frozen=True)
class KindCount:
    """What quality control made of the simulated workers of one kind."""

    kind: str
    workers: int
    kept: int
    flagged: int
    excluded: int
    unjudged: int  # no verdict (too few check pairs)
    why: dict[str, int] = field(default_factory=dict)  # of the workers not kept: check or signal -> how many


@dataclass(frozen=True)
class PairSeparation:
    """Two systems next to each other in the true order, and whether the ranking separates them."""

    better: str
    worse: str
    true_difference: float  # mean true quality, better minus worse (0-100 points)
    pvalue: float | None  # p(better > worse) of the ranking; None when one of them is not ranked
    separated: bool  # in different significance clusters, the better one above


@dataclass(frozen=True)
class RehearsalOutcome:
    campaign: str
    out: Path
    database_url: str  # the scratch copy's
    truth: Truth
    hits: int
    places: int  # assignments the campaign needs (HITs x assignments per HIT)
    hits_rated: int
    ratings: int
    kinds: list[KindCount]  # of the workers who rated
    idle: dict[str, int]  # kind -> workers who found no HIT left
    true_quality: dict[str, float]  # system -> mean true quality of its shown answers
    order: Fact
    separation: list[PairSeparation]
    clusters: int  # significance clusters of the ranking (0: no ranking)
    ratings_by_system: list[tuple[str, int, int]]  # system, ratings stored, ratings scored (kept workers)
    group: GroupAnalysis | None
    qc: str  # the quality-control policy the analysis used
    cost: CostProjection | None
    exports: list[Path]
    export_notes: list[str]
    seconds: dict[str, float]
    forecast: dict[int, float] = field(default_factory=dict)  # assignments k -> forecast chance that the first k
    # give the clusters all of them give (simulation.forecast, the people fitted to real crowd workers)


def default_out(instance: Path, campaign: str) -> Path:
    """``<instance>/simulations/<campaign>``, the campaign's name made safe for a folder name."""
    from analysis.output import safe_name

    return instance / "simulations" / (safe_name(campaign).strip(".") or "campaign")


def fresh_workspace(out: Path) -> Path:
    """An empty scratch folder (an earlier rehearsal's files removed); refuses a folder holding anything else."""
    out.mkdir(parents=True, exist_ok=True)
    ours = set(SCRATCH) | set(FOLDERS)
    others = sorted(p.name for p in out.iterdir() if p.name not in ours)
    if others or (any(out.iterdir()) and not (out / DATABASE).exists()):
        raise RehearsalError(f"{out} holds other files ({', '.join(others[:3]) or 'no earlier rehearsal'}): "
                             "give --out a new or empty folder")
    for name in SCRATCH:
        (out / name).unlink(missing_ok=True)
    for name in FOLDERS:
        shutil.rmtree(out / name, ignore_errors=True)
    return out / DATABASE


def run_rehearsal(live: Session, campaign: Campaign, images: ImageStorage, options: RehearsalOptions,
                  steps: Steps | None = None) -> RehearsalOutcome:
    """Rehearse ``campaign`` (a row of the live database, read through ``live``; its images in ``images``) on a
    scratch copy; see the module docstring."""
    from da_platform.db.engine import make_engine, session_factory, upgrade
    from da_platform.simulation.campaign_copy import copy_campaign, copy_images, image_keys

    steps = steps or Steps()
    seconds: dict[str, float] = {}
    crowd = _crowd_settings(campaign, options)
    hits, places = _size(live, campaign)
    started = time.perf_counter()
    truth = _truth(live, campaign, options.truth, steps)
    seconds["truth"] = time.perf_counter() - started
    cost = _cost(campaign, places, options.reward)

    started = time.perf_counter()
    out = options.out.resolve()
    database = fresh_workspace(out)
    url = f"sqlite:///{database}"
    steps.step(f"copying campaign {campaign.name!r} to {database}")
    upgrade(url)
    engine = make_engine(url)
    try:
        copy_campaign(live, campaign, engine)
        keys = image_keys(live, campaign.id)
        copy_images(keys, images, out / "images", steps.bar("copying the answer images", len(keys)))
        steps.done()
        live.rollback()  # (nothing was written: end the read transaction)
        seconds["copy"] = time.perf_counter() - started
        sessions = session_factory(engine)
        outcome = _rehearse(sessions, campaign.id, campaign.name, truth, crowd, options, url, out, steps, seconds)
    finally:
        engine.dispose()
    return RehearsalOutcome(**outcome, campaign=campaign.name, out=out, database_url=url, truth=truth, hits=hits,
                            places=places, cost=cost, seconds=seconds)


def _crowd_settings(campaign: Campaign, options: RehearsalOptions) -> CrowdSettings:
    from da_platform.simulation.text_raters import CROWD_KINDS

    unknown = sorted(set(options.bad_workers) - set(CROWD_KINDS) - {HONEST})
    if unknown or HONEST in options.bad_workers:
        raise RehearsalError(f"unknown kind of bad worker {', '.join(unknown) or HONEST} (kinds: "
                             f"{', '.join(k for k in CROWD_KINDS if k != HONEST)}; honest workers: --workers)")
    limit = campaign.max_hits_per_worker
    hits_per_worker = options.hits_per_worker or limit
    if hits_per_worker > limit:
        raise RehearsalError(f"--hits-per-worker {hits_per_worker}: campaign {campaign.name!r} lets one worker take "
                             f"at most {limit} HIT(s)")
    return CrowdSettings(seed=options.seed, hits_per_worker=hits_per_worker, bad_hits=1, threads=options.threads,
                         fetch_images=options.fetch_images)


def _size(session: Session, campaign: Campaign) -> tuple[int, int]:
    """The campaign's HITs and assignments (places); a campaign without HITs cannot be rehearsed."""
    from sqlalchemy import func, select

    from da_platform.db.models import Hit

    hits, places = session.execute(select(func.count(Hit.id), func.coalesce(func.sum(Hit.max_assignments), 0))
                                   .where(Hit.campaign_id == campaign.id)).one()
    if not hits:
        raise RehearsalError(f"campaign {campaign.name!r} has no HITs ({campaign.status.value}): build it first")
    return int(hits), int(places)


def _truth(session: Session, campaign: Campaign, spec: str, steps: Steps) -> Truth:
    from da_platform.simulation.truth import labels_truth, metric_truth, parse_truth, shown_answers

    kind, value = parse_truth(spec)
    if kind == "labels":
        steps.step(f"reading the quality labels in {value}")
        return labels_truth(session, campaign, Path(value))
    shown = len(shown_answers(session, campaign))
    truth = metric_truth(session, campaign, value, steps.bar(f"scoring the {shown} answers shown ({value})", shown))
    steps.done()
    return truth


def _cost(campaign: Campaign, places: int, reward: tuple[str, str] | None) -> CostProjection | None:
    """Rewards and fees of every assignment of the real campaign at its reward settings (None: it has none, an
    own-pool or not yet launched campaign), or at ``reward`` (provider, amount) with the provider's other settings
    as stored or their defaults, as ``mturk launch`` / ``prolific launch`` would price it."""
    from da_platform.campaigns.progress import project_cost
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.models import Campaign

    if reward is None:
        return project_cost(campaign, places, places)
    provider, amount = reward
    if provider not in ("mturk", "prolific"):
        raise RehearsalError(f"--reward {provider}:{amount}: the provider is mturk or prolific")
    try:
        settings = CampaignSettings.of(campaign)
        stored = settings.mturk_settings if provider == "mturk" else settings.prolific_settings
        priced = Campaign(settings=CampaignSettings().replace(  # (never stored)
            **{provider: stored.with_changes(reward=amount)}).to_json())
    except ValueError as error:
        raise RehearsalError(f"--reward {provider}:{amount}: {error}") from None
    return project_cost(priced, places, places)


def _rehearse(sessions, campaign_id: int, name: str, truth: Truth, crowd: CrowdSettings, options: RehearsalOptions,
              url: str, out: Path, steps: Steps, seconds: dict[str, float]) -> dict:
    """The crowd, the analysis and the exports on the copy; the outcome's fields found there."""
    from da_platform.rating.campaign_ratings import worker_label
    from da_platform.simulation.crowd import SlotOracle

    with sessions() as session:
        oracle = SlotOracle.from_database(session, campaign_id, truth.quality)
        hits, places = _size(session, _campaign(session, campaign_id))
    plan = crowd_plan(WORKER_PREFIX, options.bad_workers, options.honest, places, crowd)
    started = time.perf_counter()
    outcomes = rate_through_pages(crowd, steps, url, out / "images", campaign_id, places * 100, plan, oracle)
    seconds["crowd"] = time.perf_counter() - started

    started = time.perf_counter()
    steps.step("quality control, analysis and exports on the copy")
    rated = {worker_label("pool", o.name): plan[o.name] for o in outcomes if o.ratings}
    idle: dict[str, int] = {}
    for o in outcomes:
        if not o.ratings:
            idle[plan[o.name]] = idle.get(plan[o.name], 0) + 1
    with sessions() as session:
        found = _analyse_and_export(session, _campaign(session, campaign_id), truth, out / "exports", rated)
    seconds["analysis and exports"] = time.perf_counter() - started
    started = time.perf_counter()
    steps.step("forecast: how soon the ranking is decided, from the people fitted to real crowd workers")
    with sessions() as session:
        forecast = campaign_forecast(session, _campaign(session, campaign_id), truth, options.seed)
    seconds["forecast"] = time.perf_counter() - started
    return {**found, "idle": idle, "hits_rated": sum(o.hits for o in outcomes),
            "ratings": sum(o.ratings for o in outcomes), "forecast": forecast}


FORECAST_RUNS = 20
"""Simulated campaigns behind a rehearsal's forecast (the standard error of each share is at most 0.11)."""
FORECAST_SHARES = (0.25, 0.5, 0.75)
"""The forecast's campaign sizes, as shares of the campaign's assignments."""


def campaign_forecast(session: Session, campaign: Campaign, truth: Truth, seed: int,
                      runs: int = FORECAST_RUNS) -> dict[int, float]:
    """Assignments k -> the forecast chance that the campaign's first k assignments (a quarter, half and three
    quarters of them) give the significance clusters all of them give (``simulation.forecast``): each assignment
    rated by its own simulated person of ``simulation.people``, analysed with the campaign's quality control."""
    import numpy as np
    from sqlalchemy import select

    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.models import Hit, Question, Slot, System
    from da_platform.simulation.forecast import Design, forecast_recovery

    rows = session.execute(
        select(Hit.public_id, Hit.max_assignments, Slot.id, Slot.slot_type, Slot.original_slot_id, System.name,
               Question.external_id).join(Slot, Slot.hit_id == Hit.id).join(System, System.id == Slot.system_id)
        .join(Question, Question.id == Slot.question_id).where(Hit.campaign_id == campaign.id)
        .order_by(Hit.index, Slot.position)).all()
    columns: dict[str, list] = {c: [] for c in ("group", "hit", "worker", "slot_type", "original", "system", "item",
                                                "quality")}
    places = 0
    for public_id in dict.fromkeys(r.public_id for r in rows):
        mine = [r for r in rows if r.public_id == public_id]
        index = {r.id: k for k, r in enumerate(mine)}
        for copy in range(max(1, mine[0].max_assignments)):
            place = f"{public_id}/{copy}"
            start = len(columns["hit"])
            places += 1
            for r in mine:
                for column, value in (("group", campaign.name), ("hit", place), ("worker", place),
                                      ("slot_type", r.slot_type.value), ("system", r.name), ("item", r.external_id),
                                      ("quality", truth.quality[r.name][r.external_id]),
                                      ("original", -1 if r.original_slot_id is None
                                       else start + index[r.original_slot_id])):
                    columns[column].append(value)
    design = Design(columns["group"], columns["hit"], columns["worker"], columns["slot_type"],
                    np.array(columns["original"], dtype=np.int64), columns["system"], columns["item"],
                    np.array(columns["quality"], dtype=np.float64))
    sizes = sorted({max(1, round(share * places)) for share in FORECAST_SHARES})
    qc = CampaignSettings.of(campaign).qc_policy.method.value
    return forecast_recovery(design, sizes, runs, seed=seed, qc_method=qc).get(campaign.name, {})


def _campaign(session: Session, campaign_id: int) -> Campaign:
    from da_platform.db.models import Campaign
    from da_platform.db.rows import get_row

    return get_row(session, Campaign, campaign_id)


def _analyse_and_export(session: Session, campaign: Campaign, truth: Truth, folder: Path,
                        kinds: dict[str, str]) -> dict:
    """The campaign's one analysis (as the dashboard and the exports compute it) and every export, in ``folder``."""
    from da_platform.campaigns.progress import ratings_by_system
    from da_platform.results.campaign_analysis import CampaignAnalysis
    from da_platform.simulation.demo import order_fact
    from da_platform.simulation.truth import shown_answers

    analysis = CampaignAnalysis(session, campaign)
    if analysis.load_error:
        raise RehearsalError(f"the copy's ratings cannot be analysed: {analysis.load_error}")
    group = analysis.group
    true_quality = _mean_quality(truth, shown_answers(session, campaign))
    true_order = sorted(true_quality, key=lambda s: -true_quality[s])
    ranked = list(group.ranking.systems) if group is not None else []
    clusters = group.ranking.clusters if group is not None else ()
    stored = ratings_by_system(session, campaign)
    scored = {s.system: s.n_ratings for s in group.system_scores} if group is not None else {}
    exports, notes = _exports(session, campaign, analysis, folder)
    return {
        "kinds": _kind_counts(analysis, kinds),
        "true_quality": true_quality,
        "order": order_fact(ranked, clusters, true_order),
        "separation": _separation(group, true_order, true_quality),
        "clusters": len(clusters),
        "ratings_by_system": [(s.name, stored.get(s.name, 0), scored.get(s.name, 0)) for s in campaign.systems],
        "group": group,
        "qc": f"{analysis.qc.method}, alpha {analysis.qc.alpha}",
        "exports": exports,
        "export_notes": notes,
    }


def _mean_quality(truth: Truth, shown: dict[tuple[str, str], int]) -> dict[str, float]:
    """Each system's mean true quality over the answers the campaign shows of it."""
    totals: dict[str, list[float]] = {}
    for system, question in shown:
        totals.setdefault(system, []).append(truth.quality[system][question])
    return {system: sum(values) / len(values) for system, values in totals.items()}


def _kind_counts(analysis, kinds: dict[str, str]) -> list[KindCount]:
    """Per kind of simulated worker: kept, flagged, excluded by the combined verdict (the check test alone where
    quality control gives no verdict), and why those not kept were not."""
    from analysis.quality import FAILED, TOO_FEW_PAIRS
    from analysis.verdict import VerdictStatus

    verdicts = analysis.worker_verdicts
    checks = analysis.worker_qc
    statuses = [VerdictStatus.kept, VerdictStatus.flagged, VerdictStatus.excluded]
    counts: dict[str, list[int]] = {}
    why: dict[str, dict[str, int]] = {}
    for worker, kind in kinds.items():
        row = counts.setdefault(kind, [0, 0, 0, 0, 0])
        reasons = why.setdefault(kind, {})
        row[0] += 1
        verdict, qc = verdicts.get(worker), checks.get(worker)
        if verdict is not None:
            row[1 + statuses.index(verdict.status)] += 1
            found = [] if verdict.kept else (
                ([f"checks {verdict.qc.status}"] if not verdict.qc.passed else [])
                + (["MEANING check failed"] if verdict.meaning is not None and verdict.meaning.status == FAILED
                   else []) + [signal.name for signal in verdict.flags])
        elif qc is not None and qc.status != TOO_FEW_PAIRS:
            row[1 if qc.passed else 3] += 1
            found = [] if qc.passed else [f"checks {qc.status}"]
        else:
            row[4] += 1
            found = []
        for reason in found:
            reasons[reason] = reasons.get(reason, 0) + 1
    return [KindCount(kind, row[0], row[1], row[2], row[3], row[4], why[kind]) for kind, row in counts.items()]


def _separation(group: GroupAnalysis | None, true_order: list[str],
                true_quality: dict[str, float]) -> list[PairSeparation]:
    ranking = group.ranking if group is not None else None
    cluster = ranking.cluster_index() if ranking is not None else {}
    pairs = []
    for better, worse in zip(true_order, true_order[1:]):
        known = ranking is not None and better in cluster and worse in cluster
        pvalue = ranking.pvalue(better, worse) if known and ranking is not None else None
        pairs.append(PairSeparation(better, worse, true_quality[better] - true_quality[worse], pvalue,
                                    known and cluster[better] < cluster[worse]))
    return pairs


EXPORTS: tuple[tuple[str, dict[str, object]], ...] = (
    ("ranking", {"fmt": "csv"}), ("ranking", {"fmt": "json"}), ("ranking", {"fmt": "latex"}),
    ("ratings", {"with_texts": True}), ("wmt", {}), ("bundle", {}))
"""The exports a rehearsal writes: the dashboard's and ``da-platform export``'s, each file once."""


def _exports(session: Session, campaign: Campaign, analysis, folder: Path) -> tuple[list[Path], list[str]]:
    """Every export of the copy (partial where not every HIT was rated), and why any was not made."""
    from da_platform.exports import files as exports

    folder.mkdir(parents=True, exist_ok=True)
    written, notes = [], []
    for kind, options in EXPORTS:
        try:
            made = getattr(exports, kind)(session, campaign, partial=True, analysis=analysis, **options)
        except exports.ExportError as error:
            notes.append(f"{kind}: {error}")
            continue
        path = folder / made.name
        path.write_bytes(made.content)
        written.append(path)
        notes.extend(note for note in made.notes if note not in notes)
    return written, sorted(set(notes), key=notes.index)
