"""A simulated crowd through the real worker pages of one campaign: the steps ``demo`` and ``simulate`` share.

Plan who arrives (:func:`crowd_plan`: the bad workers first, so that each gets a HIT to be caught on, then
honest workers for the rest), serve the real worker application on 127.0.0.1 (:func:`serving`), give every
simulated worker its own-pool invite link and let them rate over HTTP (:func:`rate_through_pages`, with
:func:`da_platform.simulation.crowd.run_crowd`). :class:`Steps` carries the caller's progress callbacks.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from da_platform.simulation.crowd import SimulatedWorker, SlotOracle, WorkerOutcome


class Steps:
    """Callbacks a command gives a simulation to show progress (all optional)."""

    def __init__(self, *, step: Callable[[str], None] | None = None,
                 progress: Callable[[str, int], Callable[[int], None]] | None = None,
                 done: Callable[[], None] | None = None) -> None:
        self.step = step or (lambda message: None)
        self._progress = progress
        self.done = done or (lambda: None)

    def bar(self, label: str, total: int) -> Callable[[int], None]:
        """A function advancing a progress bar of ``total`` steps by n; ``done()`` closes it."""
        return self._progress(label, total) if self._progress else (lambda n: None)

    def stage_bars(self) -> Callable[[str, int, int], None]:
        """A ``(stage, done, total)`` callback (as ``build_campaign`` reports) driving one bar per stage."""
        bars: dict[str, tuple[Callable[[int], None], list[int]]] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = (self.bar("rendering answer images" if stage == "render" else stage, total), [0])
            advance, reported = bars[stage]
            advance(done - reported[0])
            reported[0] = done

        return report


@dataclass(frozen=True)
class CrowdSettings:
    """How the simulated crowd works: the seed of every score, HITs per worker, threads, pace."""

    seed: int = 1
    hits_per_worker: int = 3  # HITs one honest worker may take
    bad_hits: int = 1  # HITs each bad (non-honest) worker may take
    threads: int = 4
    fetch_images: bool = True
    time_scale: float = 0.0  # paced workers sleep virtual seconds x this (0: no waiting); the server sees
    # the virtual times anyway (da_platform.simulation.crowd.SimulatedClock)
    phone_share: float = 0.3  # share of honest workers rating on a phone (touch events)


BAD_SHARE = 1 / 3
"""The share of a simulated campaign's assignments its bad workers may take: beyond it a rehearsal warns that its
honest crowd is smaller than a real one would be, and the demo's default crowd is made smaller to fit."""
MIN_HONEST = 2
"""Assignments left to honest workers at least: with fewer, one honest worker (or none) does all the honest work,
and nothing shows how quality control treats people."""


@dataclass(frozen=True)
class CrowdShare:
    """How much of a simulated campaign the bad workers asked for take (each takes its ``bad_hits`` first)."""

    bad_workers: int
    bad_places: int  # assignments the bad workers take (at most every one)
    places: int  # assignments of the campaign

    @property
    def left(self) -> int:
        """Assignments left to honest workers."""
        return self.places - self.bad_places

    @property
    def too_many(self) -> bool:
        """The bad workers leave honest workers fewer than :data:`MIN_HONEST` assignments."""
        return self.bad_workers > 0 and self.left < min(MIN_HONEST, self.places)

    @property
    def over_share(self) -> bool:
        """The bad workers take more than :data:`BAD_SHARE` of the assignments."""
        return self.bad_places > BAD_SHARE * self.places

    def describe(self) -> str:
        """``the 4 bad workers take 4 of the 6 assignments (67 %)``."""
        return (f"the {self.bad_workers} bad worker(s) asked for take {self.bad_places} of the {self.places} "
                f"assignment(s) ({100 * self.bad_places / max(1, self.places):.0f} %)")


def crowd_share(bad_workers: Mapping[str, int], places: int, bad_hits: int = 1) -> CrowdShare:
    """The share of ``places`` assignments the bad workers asked for take, ``bad_hits`` each, arriving first."""
    count = sum(bad_workers.values())
    return CrowdShare(count, min(places, count * bad_hits), places)


def fit_bad_crowd(bad_workers: Mapping[str, int], places: int, bad_hits: int = 1) -> dict[str, int]:
    """The bad crowd made smaller, one worker at a time from the kind with the most (the last such kind first), until
    it takes at most :data:`BAD_SHARE` of ``places`` and leaves :data:`MIN_HONEST` to honest workers; the crowd as
    it is when it fits already. May leave no bad worker at all."""
    fitted = dict(bad_workers)
    while True:
        share = crowd_share(fitted, places, bad_hits)
        if share.bad_workers == 0 or not (share.over_share or share.too_many):
            return fitted
        most = max(fitted.values())
        kind = [k for k, n in fitted.items() if n == most][-1]
        fitted[kind] -= 1


def crowd_plan(prefix: str, bad_workers: Mapping[str, int], honest: int | None, places: int,
               crowd: CrowdSettings) -> dict[str, str]:
    """Worker name -> kind, in order of arrival: ``{prefix}-{kind}-01`` ... The bad workers arrive first, so that
    each of them gets a HIT to be caught on even in a small campaign; ``honest`` workers (None: at least 3, and
    enough to take the ``places`` left, a place being one assignment of a HIT) take the rest."""
    plan = {f"{prefix}-{kind}-{i + 1:02d}": kind for kind, count in bad_workers.items() for i in range(count)}
    if honest is None:
        honest = max(3, -(-max(0, places - len(plan) * crowd.bad_hits) // crowd.hits_per_worker))
    plan.update({f"{prefix}-honest-{i + 1:02d}": "honest" for i in range(honest)})
    return plan


def check_crowd_tools(bad_workers: Mapping[str, int]) -> None:
    """Make one rater of each kind asked for and drop it, so that a tool a kind needs and this machine lacks (an
    OCR engine: ``da_platform.simulation.ocr.OcrUnavailable``) is said before any work, not when the crowd
    arrives."""
    from da_platform.simulation.text_raters import make_crowd_rater

    for kind, count in bad_workers.items():
        if count:
            make_crowd_rater(kind, np.random.default_rng(0))


def simulated_workers(crowd: CrowdSettings, crowd_kinds: Mapping[str, str],
                      invite_url: Callable[[str], str]) -> list[SimulatedWorker]:
    """One simulated worker per planned name, rating as its kind (``text_raters.CROWD_KINDS``; personal
    parameters drawn from the seed's generator)."""
    from da_platform.simulation.adversaries import ProfileRater
    from da_platform.simulation.crowd import SimulatedWorker
    from da_platform.simulation.profiles import WorkerProfile
    from da_platform.simulation.text_raters import make_crowd_rater

    rng = np.random.default_rng(crowd.seed)
    workers = []
    for number, (name, kind) in enumerate(crowd_kinds.items()):
        # Every n-th honest worker is on a phone (no draw from rng: the scores stay those of the seed).
        touch = crowd.phone_share > 0 and number % max(1, round(1 / crowd.phone_share)) == 0
        rater = make_crowd_rater(kind, rng, touch=touch)
        workers.append(SimulatedWorker(
            name=name, profile=rater.profile if isinstance(rater, ProfileRater) else WorkerProfile(),
            invite_url=invite_url(name),
            max_hits=crowd.bad_hits if kind != "honest" else crowd.hits_per_worker, rater=rater))
    return workers


def rate_through_pages(crowd: CrowdSettings, steps: Steps, database_url: str, images: Path, campaign_id: int,
                       slots: int, crowd_kinds: Mapping[str, str], oracle: SlotOracle) -> list[WorkerOutcome]:
    """Serve the worker pages of ``database_url`` and let the simulated crowd rate through them over HTTP
    (``slots``: the progress bar's length, the ratings there are to give)."""
    from da_platform.providers.tokens import Tokens
    from da_platform.simulation.crowd import SimulatedClock, run_crowd

    secret = secrets.token_hex(32)
    tokens = Tokens(secret)
    expires = int(time.time() + 86400)
    clock = SimulatedClock()  # the server sees each worker's simulated time (da_platform.simulation.crowd)
    with serving(database_url, secret, images, clock) as base_url:
        steps.step(f"worker pages on {base_url}; {len(crowd_kinds)} simulated workers arrive")
        workers = simulated_workers(crowd, crowd_kinds,
                                    lambda name: f"{base_url}/pool/{tokens.invite(campaign_id, name, expires)}")
        advance = steps.bar("rating through the worker pages", slots)
        outcomes = run_crowd(workers, oracle, seed=crowd.seed, threads=crowd.threads,
                             fetch_images=crowd.fetch_images, on_rating=lambda: advance(1),
                             time_scale=crowd.time_scale, clock=clock)
        steps.done()
    return outcomes


@contextmanager
def serving(database_url: str, secret: str, images: Path,
            clock: Callable[[str], datetime] | None = None) -> Iterator[str]:
    """The real worker application of ``database_url`` on 127.0.0.1 (a free port) in a background thread, its
    images in the folder ``images`` (whatever ``$DA_IMAGE_STORE`` says); ``clock``: the crowd's simulated time
    (``da_platform.simulation.crowd.SimulatedClock``), else the real clock."""
    from da_platform.simulation.background import serve_in_background
    from da_platform.web import create_app

    app = create_app({"DATABASE_URL": database_url, "SECRET_KEY": secret, "IMAGE_STORE": "folder",
                      "IMAGE_FOLDER": str(images), "ENVIRONMENT": "development"}, clock=clock)
    try:
        with serve_in_background(app) as base_url:
            yield base_url
    finally:
        engine = app.extensions.get("da_engine")
        if engine is not None:
            engine.dispose()
