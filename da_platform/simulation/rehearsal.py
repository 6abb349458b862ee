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

import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from da_platform.simulation.page_crowd import (
    MIN_HONEST,
    CrowdSettings,
    CrowdShare,
    Steps,
    check_crowd_tools,
    crowd_plan,
    crowd_share,
    rate_through_pages,
)
from da_platform.simulation.truth import Truth

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from analysis.report import GroupAnalysis
    from da_platform.campaigns.progress import CostProjection
    from da_platform.db.models import Campaign
    from da_platform.results.waves import WaveStatus
    from da_platform.simulation.demo import Fact
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
    identical: bool = False  # one gives the other's answers word for word: rated once, the same ratings


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
    true_quality: dict[str, float]  # system -> mean true quality of its answers (as shown: merged ones as rated)
    order: Fact
    separation: list[PairSeparation]
    clusters: int  # significance clusters of the ranking (0: no ranking)
    # system, ratings stored, copies of ratings of its merged identical answers, ratings scored (kept workers)
    ratings_by_system: list[tuple[str, int, int, int]]
    merged: list[str]  # how the answers of systems merged with another's were rated (rating.merged)
    group: GroupAnalysis | None
    qc: str  # the quality-control policy the analysis used
    cost: CostProjection | None
    exports: list[Path]
    export_notes: list[str]
    seconds: dict[str, float]
    share: CrowdShare  # of the assignments the bad workers asked for take

    waves: WaveStatus | None = None  # a campaign in waves: its waves and decisions on the copy
    waves_ended: str | None = None  # why the copy's waves ended before the campaign stopped (None: it stopped)

    forecast: dict[int, float] = field(default_factory=dict)  # assignments k -> forecast chance that the first k
    # give the clusters all of them give (simulation.forecast, the people fitted to real crowd workers)


REHEARSAL_ADMIN = "rehearsal"
"""The dashboard account ``serve --rehearsal`` creates in a copy (a fresh password each time)."""


def rehearsal_server_config(out: Path) -> tuple[dict, str]:
    """App configuration serving the copy a rehearsal left in ``out`` and its images, and a fresh password for the
    dashboard account :data:`REHEARSAL_ADMIN`."""
    from da_platform.simulation.demo import scratch_server_config

    database = out.resolve() / DATABASE
    if not database.exists():
        raise FileNotFoundError(f"no rehearsal copy at {database}: run `da-platform simulate CAMPAIGN --out {out}` "
                                "first")
    return scratch_server_config(database, out.resolve() / "images", REHEARSAL_ADMIN)


def default_out(instance: Path, campaign: str) -> Path:
    """``<instance>/simulations/<campaign>``, the campaign's name made safe for a folder name."""
    from analysis.output import safe_name

    return instance / "simulations" / (safe_name(campaign).strip(".") or "campaign")


def fresh_workspace(out: Path) -> Path:
    """An empty scratch folder (an earlier rehearsal's files removed); refuses a folder holding anything else,
    and one where any of the rehearsal's own names is a symbolic link: the rehearsal writes only inside
    ``out`` and never through a link (an ``exports`` linked elsewhere had its files overwritten there).
    Nothing is removed before every name has been checked."""
    out.mkdir(parents=True, exist_ok=True)
    ours = set(SCRATCH) | set(FOLDERS)
    others = sorted(p.name for p in out.iterdir() if p.name not in ours)
    if others or (any(out.iterdir()) and not (out / DATABASE).exists() and not (out / DATABASE).is_symlink()):
        raise RehearsalError(f"{out} holds other files ({', '.join(others[:3]) or 'no earlier rehearsal'}): "
                             "give --out a new or empty folder")
    links = [out / name for name in sorted(ours) if (out / name).is_symlink()]
    if links:
        raise RehearsalError(f"{links[0]} is a symbolic link (to {os.readlink(links[0])}): a rehearsal writes only "
                             "inside its folder, never through a link; remove the link or give --out a new or "
                             "empty folder")
    try:
        for name in SCRATCH:
            (out / name).unlink(missing_ok=True)
        for name in FOLDERS:
            if (out / name).is_dir():
                shutil.rmtree(out / name)  # (links inside are removed, never followed)
            else:
                (out / name).unlink(missing_ok=True)
    except OSError as error:
        raise RehearsalError(f"cannot empty the earlier rehearsal in {out}: {error}") from None
    return out / DATABASE


def run_rehearsal(live: Session, campaign: Campaign, images: ImageStorage, options: RehearsalOptions,
                  steps: Steps | None = None) -> RehearsalOutcome:
    """Rehearse ``campaign`` (a row of the live database, read through ``live``; its images in ``images``) on a
    scratch copy; see the module docstring."""
    from da_platform.db.engine import make_engine, session_factory, upgrade
    from da_platform.simulation.campaign_copy import copy_campaign, copy_images, image_keys

    steps = steps or Steps()
    seconds: dict[str, float] = {}
    # Every option is checked before any work (the answers scored, the folder emptied, the crowd served).
    crowd = _crowd_settings(campaign, options)
    hits, places = _size(live, campaign)
    share = crowd_share(options.bad_workers, places, crowd.bad_hits)
    if share.too_many:
        raise RehearsalError(f"{share.describe()}, one each and first, leaving {max(0, share.left)} to honest workers "
                             f"({MIN_HONEST} at least, or nothing shows how quality control treats people): ask for "
                             "fewer with --bad")
    cost = _cost(campaign, places, options.reward)
    started = time.perf_counter()
    truth = _truth(live, campaign, options.truth, steps)  # labels read at once; a metric only checked
    check_crowd_tools(options.bad_workers)

    out = options.out.resolve()
    database = fresh_workspace(out)
    if not isinstance(truth, Truth):
        truth = truth()
    seconds["truth"] = time.perf_counter() - started

    started = time.perf_counter()
    url = f"sqlite:///{database}"
    steps.step(f"copying campaign {campaign.name!r} to {database}")
    upgrade(url)
    engine = make_engine(url)
    try:
        copy_campaign(live, campaign, engine)
        with session_factory(engine)() as copied:
            _mark_copy(copied, _campaign(copied, campaign.id), options)
            copied.commit()
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
                            places=places, cost=cost, seconds=seconds, share=share)


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


def _truth(session: Session, campaign: Campaign, spec: str, steps: Steps) -> Truth | Callable[[], Truth]:
    """``--truth`` checked: the labels read (quick), or a metric's scoring to run once every option is checked."""
    from da_platform.simulation.truth import labels_truth, metric_scorer, metric_truth, parse_truth, shown_answers

    kind, value = parse_truth(spec)
    if kind == "labels":
        steps.step(f"reading the quality labels in {value}")
        return labels_truth(session, campaign, Path(value))
    metric_scorer(value)  # an unknown or unavailable metric is said now

    def score() -> Truth:
        shown = len(shown_answers(session, campaign))
        truth = metric_truth(session, campaign, value,
                             steps.bar(f"scoring the {shown} answers shown ({value})", shown))
        steps.done()
        return truth

    return score


def _cost(campaign: Campaign, places: int, reward: tuple[str, str] | None) -> CostProjection | None:
    """Rewards and fees of every assignment of the real campaign at its reward settings (None: it has none, an
    own-pool or not yet launched campaign), or at ``reward`` (provider, amount) with the provider's other settings
    as stored or their defaults, as ``mturk launch`` / ``prolific launch`` would price it."""
    from da_platform.campaigns.progress import project_cost
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.models import Campaign

    if reward is None:
        return project_cost(campaign, places, places)
    priced = Campaign(settings=CampaignSettings().replace(**_priced(campaign, reward)).to_json())  # (never stored)
    return project_cost(priced, places, places)


def _priced(campaign: Campaign, reward: tuple[str, str]) -> dict[str, object]:
    """The provider's settings of ``campaign`` (as stored, or the defaults) at ``reward`` (provider, amount), by
    their settings key (``mturk`` or ``prolific``)."""
    from da_platform.config.campaign_settings import CampaignSettings

    provider, amount = reward
    if provider not in ("mturk", "prolific"):
        raise RehearsalError(f"--reward {provider}:{amount}: the provider is mturk or prolific")
    try:
        settings = CampaignSettings.of(campaign)
        stored = settings.mturk_settings if provider == "mturk" else settings.prolific_settings
        return {provider: stored.with_changes(reward=amount)}
    except ValueError as error:
        raise RehearsalError(f"--reward {provider}:{amount}: {error}") from None


def _mark_copy(session: Session, campaign: Campaign, options: RehearsalOptions) -> None:
    """Say in the copy's settings that it is a rehearsal's (of which campaign, how), and store the reward it was
    priced at as the provider's settings, so that its dashboard prices it as the report does."""
    from da_platform.config.campaign_settings import CampaignSettings, RehearsalCopy

    reward = ":".join(options.reward) if options.reward else None
    parts: dict[str, object] = _priced(campaign, options.reward) if options.reward else {}
    CampaignSettings.update(campaign, rehearsal=RehearsalCopy(of=campaign.name, seed=options.seed,
                                                              truth=options.truth, reward=reward), **parts)


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
    later, waves_ended = _later_waves(sessions, campaign_id, truth, crowd, url, out, steps, plan)
    outcomes += later
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
        found["waves"] = _wave_status(session, _campaign(session, campaign_id))
        found["waves_ended"] = waves_ended
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
    from sqlalchemy import select

    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.models import Hit, Question, Slot, System
    from da_platform.simulation.forecast import campaign_design, forecast_recovery

    rows = session.execute(
        select(Hit.public_id, Hit.max_assignments, Slot.id, Slot.slot_type, Slot.original_slot_id, System.name,
               Question.external_id).join(Slot, Slot.hit_id == Hit.id).join(System, System.id == Slot.system_id)
        .join(Question, Question.id == Slot.question_id).where(Hit.campaign_id == campaign.id)
        .order_by(Hit.index, Slot.position)).all()
    design, places = campaign_design(campaign.name, [(r.public_id, r.max_assignments, r.id, r.slot_type.value,
                                                      r.original_slot_id, r.name, r.external_id) for r in rows],
                                     truth.quality)
    sizes = sorted({max(1, round(share * places)) for share in FORECAST_SHARES})
    qc = CampaignSettings.of(campaign).qc_policy
    return forecast_recovery(design, sizes, runs, seed=seed, qc=qc).get(campaign.name, {})


def _later_waves(sessions, campaign_id: int, truth: Truth, crowd: CrowdSettings, url: str, out: Path, steps: Steps,
                 plan: dict[str, str]) -> tuple[list, str | None]:
    """A campaign in waves (docs/method.md §12): after each wave, the copy's next wave is planned from its analysis
    and added (``da-platform waves --next`` on the copy), and fresh honest workers rate it (the bad workers asked
    for came in the first wave), until the campaign stops. ``plan`` (worker -> kind) gains the new workers. Nothing
    for a fixed campaign. Also why the waves ended before the campaign stopped: a wave whose ratings all come from
    workers quality control left out gives no new look, so no next wave can be planned from it (None: it stopped)."""
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.operations.waves import NoNewLook, next_wave
    from da_platform.simulation.crowd import SlotOracle
    from hit_builder.storage import LocalImageStorage

    outcomes: list = []
    while True:
        with sessions() as session:
            campaign = _campaign(session, campaign_id)
            record = CampaignSettings.of(campaign).waves
            if record is None or record.stopped is not None:
                return outcomes, None
            steps.step(f"wave {record.latest.wave} rated: the look, and the next wave's plan")
            try:
                step = next_wave(session, campaign, storage=LocalImageStorage(out / "images"), force=True)
            except NoNewLook:
                steps.done()
                return outcomes, (f"wave {record.latest.wave} gave no new look: its ratings all come from workers "
                                  "quality control left out, and a live campaign needs its HITs rated by workers it "
                                  f"keeps before wave {record.latest.wave + 1} can be planned")
            session.commit()
            if step.added is None:
                steps.done()
                return outcomes, None
            oracle = SlotOracle.from_database(session, campaign_id, truth.quality)
            hits, places = _size(session, campaign)
        steps.done()
        wave_places = round(step.added.hits * places / hits)  # the new HITs' assignments
        more = crowd_plan(f"{WORKER_PREFIX}-w{step.added.wave}", {}, None, wave_places, crowd)
        plan.update(more)
        outcomes += rate_through_pages(crowd, steps, url, out / "images", campaign_id, wave_places * 100, more, oracle)


def _wave_status(session: Session, campaign: Campaign):
    """A campaign in waves: where the copy's waves ended (None: the fixed design)."""
    from da_platform.results.waves import wave_status

    return wave_status(session, campaign)


def _campaign(session: Session, campaign_id: int) -> Campaign:
    from da_platform.db.models import Campaign
    from da_platform.db.rows import get_row

    return get_row(session, Campaign, campaign_id)


def _analyse_and_export(session: Session, campaign: Campaign, truth: Truth, folder: Path,
                        kinds: dict[str, str]) -> dict:
    """The campaign's one analysis (as the dashboard and the exports compute it) and every export, in ``folder``."""
    from da_platform.campaigns.progress import ratings_by_system
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.rating.merged import also_rated, copies_by_system, merged_systems
    from da_platform.results.campaign_analysis import CampaignAnalysis
    from da_platform.simulation.demo import order_fact
    from da_platform.simulation.truth import shown_answers

    analysis = CampaignAnalysis(session, campaign)
    if analysis.load_error:
        raise RehearsalError(f"the copy's ratings cannot be analysed: {analysis.load_error}")
    group = analysis.group
    merged = merged_systems(session, campaign)
    true_quality = _mean_quality(truth, shown_answers(session, campaign),
                                 also_rated(CampaignSettings.of(campaign).identical_answers))
    ranked = list(group.ranking.systems) if group is not None else []
    # Ties (systems giving the same answers) in the ranking's order: no inversion is made of them.
    true_order = sorted(true_quality, key=lambda s: (-true_quality[s], ranked.index(s) if s in ranked else 0))
    clusters = group.ranking.clusters if group is not None else ()
    stored = ratings_by_system(session, campaign)
    copies = copies_by_system(analysis.table)
    scored = {s.system: s.n_ratings for s in group.system_scores} if group is not None else {}
    exports, notes = _exports(session, campaign, analysis, folder)
    return {
        "kinds": _kind_counts(analysis, kinds),
        "true_quality": true_quality,
        "order": order_fact(ranked, clusters, true_order),
        "separation": _separation(group, true_order, true_quality,
                                  {m.name: m.same_as for m in merged.values() if m.same_as is not None}),
        "clusters": len(clusters),
        "ratings_by_system": [(s.name, stored.get(s.name, 0), copies.get(s.name, 0), scored.get(s.name, 0))
                              for s in campaign.systems],
        "merged": [m.describe() for m in merged.values()],
        "group": group,
        "qc": f"{analysis.qc.method}, alpha {analysis.qc.alpha}",
        "exports": exports,
        "export_notes": notes,
    }


def _mean_quality(truth: Truth, shown: dict[tuple[str, str], int],
                  merged: dict[tuple[str, str], list[str]] | None = None) -> dict[str, float]:
    """Each system's mean true quality over the answers the campaign shows of it; an answer merged with another
    system's identical one (``merged``: ``rating.merged.also_rated``) counts as shown, at the quality of the answer
    rated for it, which is what the workers saw."""
    totals: dict[str, list[float]] = {}
    for system, question in shown:
        totals.setdefault(system, []).append(truth.quality[system][question])
    for (question, rated_as), also in (merged or {}).items():
        for system in also:
            totals.setdefault(system, []).append(truth.quality[rated_as][question])
    return {system: math.fsum(values) / len(values) for system, values in totals.items()}  # (exact: in any order)


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


def _separation(group: GroupAnalysis | None, true_order: list[str], true_quality: dict[str, float],
                same: dict[str, str] | None = None) -> list[PairSeparation]:
    """Adjacent systems in the true order; ``same``: system -> the one whose answers it gives word for word."""
    ranking = group.ranking if group is not None else None
    cluster = ranking.cluster_index() if ranking is not None else {}
    same = same or {}
    pairs = []
    for better, worse in zip(true_order, true_order[1:]):
        known = ranking is not None and better in cluster and worse in cluster
        pvalue = ranking.pvalue(better, worse) if known and ranking is not None else None
        pairs.append(PairSeparation(better, worse, true_quality[better] - true_quality[worse], pvalue,
                                    known and cluster[better] < cluster[worse],
                                    identical=same.get(better) == worse or same.get(worse) == better))
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
