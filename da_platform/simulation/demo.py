"""The demo: a whole simulated campaign on the embedded default, from import to ranking.

import the bundled sample → build an adequacy (or fluency) campaign → serve the worker pages on
127.0.0.1 → a simulated crowd rates through them over HTTP → quality control → analysis → report,
then check, as facts, that the bad workers were caught and the systems' known order recovered.
"""
from __future__ import annotations

import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.report import AnalysisResult, GroupAnalysis
from da_platform.db.rows import get_row
from da_platform.simulation.adversaries import KIND_DESCRIPTIONS, KINDS
from da_platform.simulation.page_crowd import CrowdSettings, Steps, crowd_plan, rate_through_pages
from da_platform.simulation.page_crowd import serving as serving  # re-exported: scripts written against the demo

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from da_platform.building.crowds import CrowdChoice

DemoSteps = Steps  # the progress callbacks (da_platform.simulation.page_crowd)

DEMO_CAMPAIGN = "demo"
# The demo's kinds of simulated worker (da_platform.simulation.adversaries), and what each does.
CROWD_KINDS = {kind: kind for kind in KINDS}
CROWD_KIND_DESCRIPTIONS = dict(KIND_DESCRIPTIONS)
CLASSIC_BAD_KINDS = ("random", "constant", "bot")  # the kinds the published method was built to catch


class DemoError(RuntimeError):
    """The demo could not finish (said in a sentence, without a traceback)."""


@dataclass(frozen=True)
class DemoOptions:
    """What the demo runs; the defaults give a full campaign in well under two minutes."""

    out: Path = Path("demo-output")
    questions: int | None = None  # None: all questions of the sample
    seed: int = 1
    criterion: str = "adequacy"
    bad_workers: dict[str, int] = field(default_factory=lambda: {"random": 2, "constant": 2, "bot": 2})
    honest: int | None = None  # None: as many as the HITs left after the bad workers need
    hits_per_worker: int = 3
    threads: int = 4
    fetch_images: bool = True
    layout: str = "classic"  # hit_builder.layouts
    render: str = "plain"  # hit_builder.ocr_resistant.render_style: "plain" or "hardened" (OCR-resistant)
    bad_hits: int = 1  # HITs each bad (non-honest) worker may take
    passes: int = 1  # passes over the items (more HITs for a larger crowd)
    time_scale: float = 0.0  # paced workers sleep virtual seconds x this (0: no waiting); the server sees
    # the virtual times anyway (da_platform.simulation.crowd.SimulatedClock)
    phone_share: float = 0.3  # share of honest workers rating on a phone (touch events)
    font_paths: tuple[str, ...] = ()  # $DA_FONT (settings): fonts tried before the bundled ones
    fit_crowd: bool = False  # the bad workers are the default crowd: made smaller to fit a small campaign
    preset: CrowdChoice | None = None  # build's crowd preset (building.crowds): its layout, render and test, stored
    # with the campaign; None: ``layout`` and ``render`` above, no test stored (the analysis's default)

    def crowd(self) -> CrowdSettings:
        """How the demo's crowd works (``da_platform.simulation.page_crowd``)."""
        return CrowdSettings(seed=self.seed, hits_per_worker=self.hits_per_worker, bad_hits=self.bad_hits,
                             threads=self.threads, fetch_images=self.fetch_images, time_scale=self.time_scale,
                             phone_share=self.phone_share)


@dataclass(frozen=True)
class Fact:
    """One thing the demo checked, and whether it held."""

    held: bool
    statement: str


@dataclass(frozen=True)
class DemoOutcome:
    campaign: str
    database_url: str
    hits: int
    ratings: int
    workers: dict[str, str]  # worker label -> demo kind
    hits_rated: int
    result: AnalysisResult
    report_files: list[Path]
    facts: list[Fact]
    seconds: dict[str, float]
    notes: list[str] = field(default_factory=list)  # how the crowd was sized to the campaign

    @property
    def group(self) -> GroupAnalysis:
        return self.result.groups[self.campaign]


def run_demo(options: DemoOptions, steps: DemoSteps | None = None) -> DemoOutcome:
    """Run the whole simulated campaign and return what it found."""
    from analysis.output import write_report
    from da_platform.db.engine import make_engine, session_factory, upgrade
    from da_platform.db.models import Campaign
    from da_platform.rating.campaign_ratings import worker_label
    from da_platform.results.campaign_analysis import CampaignAnalysis
    from da_platform.simulation.crowd import SlotOracle
    from da_platform.simulation.sample_data import load_truth

    steps = steps or DemoSteps()
    bad_workers, notes = check_options(options)
    seconds: dict[str, float] = {}
    out = options.out.resolve()
    database, images = fresh_workspace(out)
    url = f"sqlite:///{database}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    truth = load_truth()

    started = time.perf_counter()
    campaign_id, n_hits = _import_and_build(sessions, options, images, steps)
    seconds["import and build"] = time.perf_counter() - started

    with sessions() as session:
        oracle = SlotOracle.from_database(session, campaign_id, truth["quality"])
    crowd = options.crowd()
    crowd_kinds = crowd_plan("demo", bad_workers, options.honest, n_hits, crowd)
    started = time.perf_counter()
    outcomes = rate_through_pages(crowd, steps, url, images, campaign_id, n_hits * 100, crowd_kinds, oracle)
    seconds["crowd"] = time.perf_counter() - started

    started = time.perf_counter()
    steps.step("quality control and analysis")
    with sessions() as session:  # the campaign's one analysis, as the dashboard and the exports show it
        analysis = CampaignAnalysis(session, get_row(session, Campaign, campaign_id))
    engine.dispose()
    if analysis.load_error or analysis.result is None:
        raise DemoError(f"the demo campaign cannot be analysed: {analysis.load_error or 'no ratings'}")
    result = analysis.result
    report_files = write_report(result, out / "report")
    seconds["analysis"] = time.perf_counter() - started
    labels = {worker_label("pool", name): kind for name, kind in crowd_kinds.items()}
    group = result.groups[DEMO_CAMPAIGN]
    facts = check_facts(group, labels, list(truth["order"]))  # the demo campaign rates every sample system
    return DemoOutcome(campaign=DEMO_CAMPAIGN, database_url=url, hits=n_hits,
                       ratings=sum(o.ratings for o in outcomes), workers=labels,
                       hits_rated=sum(o.hits for o in outcomes),  # one assignment per HIT
                       result=result, report_files=report_files, facts=facts, seconds=seconds, notes=notes)


def check_options(options: DemoOptions) -> tuple[dict[str, int], list[str]]:
    """Refuse options the demo cannot run with, before any work: unknown kinds of worker, more questions than the
    sample has, a tool a kind of bad worker needs and this machine lacks (an OCR engine), bad workers that leave
    honest workers too few HITs (``page_crowd.MIN_HONEST``). Returns the bad workers to send (the default crowd
    made smaller to fit a small campaign) and notes saying how the crowd was sized."""
    from da_platform.simulation.page_crowd import BAD_SHARE, check_crowd_tools, crowd_share, fit_bad_crowd
    from da_platform.simulation.sample_data import sample_questions

    unknown = set(options.bad_workers) - set(CROWD_KINDS) - {"honest"}
    if unknown:
        raise ValueError(f"unknown worker kinds {sorted(unknown)}; expected {sorted(CROWD_KINDS)}")
    available = sample_questions()
    if options.questions is not None and options.questions > available:
        raise DemoError(f"--questions {options.questions}: the bundled sample has {available} questions")
    check_crowd_tools(options.bad_workers)
    hits = planned_hits(options)
    share = crowd_share(options.bad_workers, hits, options.bad_hits)
    asked = ", ".join(f"{n} {kind}" for kind, n in options.bad_workers.items() if n)
    size = f"{options.questions or available} questions make {hits} HITs"
    if options.fit_crowd and (share.over_share or share.too_many):
        fitted = fit_bad_crowd(options.bad_workers, hits, options.bad_hits)
        if not sum(fitted.values()):
            raise DemoError(f"{size}: too few for a bad worker and honest ones; give --questions "
                            f"{fewest_questions(options)} or more")
        sent = ", ".join(f"{n} {kind}" for kind, n in fitted.items() if n)
        return fitted, [f"{size}: the default {share.bad_workers} bad workers ({asked}) would take "
                        f"{share.bad_places} of the {hits}, so the demo sends {sent}, a third of the HITs at most "
                        "(--random, --constant, --bots set your own)"]
    if share.too_many:
        raise DemoError(f"{size}, and {share.describe().replace('assignment(s)', 'HITs')} first (one each), "
                        f"leaving {max(0, share.left)} to honest workers: ask for fewer bad workers or more "
                        "--questions")
    if share.over_share:
        return dict(options.bad_workers), [
            f"warning: {size}; {share.describe().replace('assignment(s)', 'HITs')}, more than "
            f"{100 * BAD_SHARE:.0f} %: the honest crowd is smaller than a real campaign's would be"]
    return dict(options.bad_workers), []


def planned_hits(options: DemoOptions) -> int:
    """The HITs the demo's campaign will have: every sample system (HUMAN too) answers every question used, in
    HITs of the layout's ordinary slots, times the passes (``hit_builder.assembly``)."""
    from da_platform.simulation.sample_data import load_truth, sample_questions
    from hit_builder.layouts import layout_named

    items = len(load_truth()["systems"]) * (options.questions or sample_questions())
    layout = options.preset.layout if options.preset is not None else options.layout
    return options.passes * -(-items // layout_named(layout).ordinary_per_hit)


def fewest_questions(options: DemoOptions) -> int:
    """The fewest questions that leave room for one bad worker and :data:`page_crowd.MIN_HONEST` honest HITs."""
    from dataclasses import replace

    from da_platform.simulation.page_crowd import crowd_share
    from da_platform.simulation.sample_data import sample_questions

    for questions in range(options.questions or 10, sample_questions() + 1):
        share = crowd_share({"random": 1}, planned_hits(replace(options, questions=questions)), options.bad_hits)
        if not (share.over_share or share.too_many):
            return questions
    return sample_questions()


def _import_and_build(sessions: sessionmaker[Session], options: DemoOptions, images: Path,
                      steps: DemoSteps) -> tuple[int, int]:
    """Import the bundled sample and build the demo campaign, running; returns (campaign id, HITs)."""
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice, choose
    from da_platform.db.engine import transaction
    from da_platform.db.models import CampaignStatus
    from da_platform.simulation.sample import import_sample
    from hit_builder.ocr_resistant import render_style
    from hit_builder.storage import LocalImageStorage

    steps.step("importing the bundled sample data")
    with transaction(sessions) as session:
        test_set = import_sample(session, questions=options.questions)
        n_questions = len(test_set.questions)
        n_systems = len(test_set.systems)
    preset = options.preset
    steps.step(f"building the {options.criterion} campaign: {n_systems} systems x {n_questions} questions"
               + (f", for crowd {preset.describe()}" if preset is not None else ""))
    with transaction(sessions) as session:
        campaign = build_campaign(session,
                                  BuildSpec(name=DEMO_CAMPAIGN, test_set=test_set.name, criterion=options.criterion,
                                            seed=options.seed, passes=options.passes,
                                            max_hits_per_worker=max(options.hits_per_worker, options.bad_hits),
                                            # without a preset, the test a default build stores: the demo's
                                            # people rate as real crowd workers do, whom the published test
                                            # loses at one or two HITs
                                            crowd=preset or CrowdChoice(options.layout, render_style(options.render),
                                                                        choose().qc),
                                            font_paths=list(options.font_paths)),
                                  storage=LocalImageStorage(images), progress=steps.stage_bars())
        steps.done()
        campaign.status = CampaignStatus.running
        return campaign.id, len(campaign.hits)


def fresh_workspace(out: Path) -> tuple[Path, Path]:
    """An empty demo folder: the SQLite file and the image folder (earlier demo output removed)."""
    out.mkdir(parents=True, exist_ok=True)
    database = out / "demo.sqlite"
    for leftover in (database, out / "demo.sqlite-wal", out / "demo.sqlite-shm"):
        leftover.unlink(missing_ok=True)
    for folder in (out / "images", out / "report"):
        shutil.rmtree(folder, ignore_errors=True)
    return database, out / "images"


def check_facts(group: GroupAnalysis, kinds: dict[str, str], true_order: list[str]) -> list[Fact]:
    """Did QC catch every bad worker and keep the honest ones; is the known order recovered?

    "Kept" is the combined verdict (``analysis.verdict``: checks and behaviour signals; only kept workers
    are scored), or the BAD_REF test where there is no verdict."""
    verdicts = {w: _Kept(v.kept) for w, v in group.verdicts.items()} or \
        {w.worker: _Kept(w.passed) for w in group.qc.workers}
    facts = []
    bad = [w for w, kind in kinds.items() if kind in CLASSIC_BAD_KINDS and w in verdicts]
    caught = [w for w in bad if not verdicts[w].passed]
    missed = sorted(set(bad) - set(caught))
    facts.append(Fact(held=not missed and bool(bad),
                      statement=f"quality control caught {len(caught)} of {len(bad)} bad workers"
                      + (f" (missed: {', '.join(missed)})" if missed else "")))
    honest = [w for w, kind in kinds.items() if kind == "honest" and w in verdicts]
    kept = [w for w in honest if verdicts[w].passed]
    # An honest worker with few pairs can fail by chance (a degraded copy of an already poor answer
    # is barely worse), so this fact asks only that most honest workers are kept.
    facts.append(Fact(held=len(kept) * 2 > len(honest),
                      statement=f"quality control kept {len(kept)} of {len(honest)} honest workers"))
    for kind in KINDS:  # the adversarial kinds, one fact each
        if kind in CLASSIC_BAD_KINDS or kind == "honest":
            continue
        of_kind = [w for w, k in kinds.items() if k == kind and w in verdicts]
        if of_kind:
            missed = [w for w in of_kind if verdicts[w].passed]
            facts.append(Fact(held=not missed, statement=f"quality control caught {len(of_kind) - len(missed)} of "
                              f"{len(of_kind)} {kind} workers" + (f" (missed: {', '.join(missed)})" if missed else "")))
    facts.append(order_fact([s.system for s in group.system_scores], group.ranking.clusters, true_order))
    return facts


@dataclass(frozen=True)
class _Kept:
    passed: bool  # the worker's ratings are scored


def order_fact(ranked: list[str], clusters, true_order: list[str]) -> Fact:
    """Is the known order recovered by a ranking (best first) with its significance clusters?"""
    cluster_of = {system: i for i, cluster in enumerate(clusters) for system in cluster}
    position = {system: i for i, system in enumerate(ranked)}
    inverted = [(a, b) for i, a in enumerate(true_order) for b in true_order[i + 1:]
                if a in position and b in position and position[a] > position[b]]
    across = [(a, b) for a, b in inverted if cluster_of[a] != cluster_of[b]]
    missing = [system for system in true_order if system not in position]
    if missing:
        statement, held = (f"the known order was NOT recovered: {len(missing)} of {len(true_order)} systems could not "
                           "be ranked (no rating from a worker who passed quality control)"), False
    elif not inverted:
        statement, held = f"the known order of the {len(ranked)} systems was recovered exactly", True
    elif not across:
        pairs = ", ".join(f"{a}/{b}" for a, b in inverted)
        statement, held = (f"the known order was recovered up to ties inside significance clusters ({pairs})",
                           True)
    else:
        pairs = ", ".join(f"{b} above {a}" for a, b in across)
        statement, held = f"the known order was NOT recovered: {pairs} across clusters", False
    return Fact(held=held, statement=statement)


DEMO_ADMIN = "demo"


def demo_server_config(out: Path) -> tuple[dict, str]:
    """App configuration serving an existing demo's database and images, and a fresh password for the
    dashboard account ``demo`` (created on first use)."""
    database = out.resolve() / "demo.sqlite"
    if not database.exists():
        raise FileNotFoundError(f"no demo database at {database}: run `da-platform demo --out {out}` first")
    return scratch_server_config(database, out.resolve() / "images", DEMO_ADMIN)


def scratch_server_config(database: Path, images: Path, account: str) -> tuple[dict, str]:
    """App configuration serving a scratch SQLite database (the demo's, a rehearsal's copy) and its image folder,
    and a fresh password for the dashboard account ``account`` (created on first use)."""
    from da_platform.config.accounts import create_user, find_user, set_password
    from da_platform.db.engine import make_engine, session_factory, transaction, upgrade

    url = f"sqlite:///{database}"
    upgrade(url)
    engine = make_engine(url)
    password = secrets.token_urlsafe(12)
    with transaction(session_factory(engine)) as session:
        if find_user(session, account) is None:
            create_user(session, account, password)
        else:
            set_password(session, account, password)
    engine.dispose()
    config = {"DATABASE_URL": url, "IMAGE_STORE": "folder", "IMAGE_FOLDER": str(images),
              "SECRET_KEY": secrets.token_hex(32), "ENVIRONMENT": "development"}
    return config, password
