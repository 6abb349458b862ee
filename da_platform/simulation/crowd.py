"""A simulated crowd that rates a campaign through the real worker web pages, over HTTP.

Each simulated worker follows its own-pool invite link, opens the slot page, and for every item
decides a score with its rater (:mod:`da_platform.simulation.adversaries`: by default its
``da_platform.simulation.profiles.WorkerProfile``) and posts it exactly as the page's script does (the answer is the
next item), with the behaviour record its browser would send (docs/quality-control.md#behaviour-record; none for
simple bots), until
the campaign gives it no more HITs. Workers arrive in a fixed order, so a seed gives the same ratings
every run. A simulated person cannot read the answer images; in its place a :class:`SlotOracle` tells
it the true quality of what the page shows (from the sample data's ``truth.json``), keyed by the opaque
slot id the page carries. OCR bots read the images they fetched, as a real bot would.

Paced raters wait ``virtual seconds × time_scale`` for real before each rating (0: no waiting).

As the page's script does, a rating lost on the way (no answer within ``SEND_TIMEOUT_S``, a dropped
connection) is sent again; the server stores it once and answers the repeat with the next item. A worker
whose HIT's time limit passed (the page says so) leaves that HIT, keeping the ratings given, and arrives
for the next; any other refusal is a :class:`CrowdError`.

Time as the server sees it: with a :class:`SimulatedClock` (given to the app as ``create_app(clock=...)`` and
to :func:`run_crowd`), each assignment's serving and rating times are its worker's own simulated time,
which advances by the virtual time a rater really waits (``Rater.waits``); a rater that claims a
person's times without waiting leaves the clock where it was, so its records claim more time than
the server saw. Without one, the server's real clock runs, and at ``time_scale`` 0 every record that
claims a person's time claims more than the server saw.
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import requests
from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from da_platform.db.models import Hit, Question, Slot, System, utcnow
from da_platform.simulation.adversaries import Item, PersonRater, ProfileRater, Rater, encode_record
from da_platform.simulation.profiles import WorkerProfile, slot_quality

_SLOT_FIELD = re.compile(r'name="slot" value="([^"]+)"')
_ASSIGNMENT_URL = re.compile(r"(.*/a/[^/]+)/")
_IMAGE = re.compile(r'<img id="answer-([ab])" src="([^"]+)"')
_ROLE = {"a": "reference", "b": "candidate"}
_RATING_URL = re.compile(r'data-rating-url="([^"]+)"')
_TOKEN = re.compile(r"/a/([^/]+)/slot$")
_DENSITY = re.compile(r'data-density="([0-9.]+)x"')
MAX_PAGES_PER_HIT = 1_000  # a HIT has 100 slots: anything beyond this is a server that does not advance
SEND_TIMEOUT_S = 30
SEND_ATTEMPTS = 3  # a rating lost on the way (timeout, dropped connection) is sent again, as the page does


class CrowdError(RuntimeError):
    """The worker pages did not behave as a worker expects (an error page, a loop, a missing form)."""


class TimeRanOut(Exception):
    """The HIT's time limit passed before the worker finished it: the worker page says so, and the worker
    goes on to the next HIT (the ratings given are kept)."""


class SlotOracle:
    """True quality of what each slot shows, for the simulation only (workers cannot read images), and,
    when built from the database, the texts it shows (Answer B, Answer A) for raters that stand for a
    reader of the texts (``da_platform.simulation.text_raters``)."""

    def __init__(self, qualities: Mapping[str, float],
                 texts: Mapping[str, tuple[str, str | None]] | None = None,
                 answers: Mapping[str, tuple[str, float]] | None = None) -> None:
        self._qualities = dict(qualities)
        self._texts = dict(texts or {})
        self._answers = dict(answers or {})

    @classmethod
    def from_database(cls, session: Session, campaign_id: int,
                      quality: Mapping[str, Mapping[str, float]]) -> SlotOracle:
        """Build from a campaign's slots and ``quality[system][question id]`` (truth.json)."""
        original = aliased(Slot)
        rows = session.execute(
            select(Slot.public_id, Slot.slot_type, System.name, Question.external_id, Slot.candidate_text,
                   Slot.reference_text)
            .join(Hit, Slot.hit_id == Hit.id)
            .outerjoin(original, Slot.original_slot_id == original.id)
            .join(System, System.id == Slot.system_id)
            .join(Question, Question.id == Slot.question_id)
            .where(Hit.campaign_id == campaign_id)
        ).all()
        qualities, texts, answers = {}, {}, {}
        for public_id, slot_type, system, question, candidate, reference in rows:
            answer_quality = quality.get(system, {}).get(question)
            if answer_quality is None:
                raise CrowdError(f"no true quality for system {system!r}, question {question!r}")
            qualities[public_id] = slot_quality(slot_type.value, float(answer_quality))
            texts[public_id] = (candidate, reference)
            answers[public_id] = (slot_type.value, float(answer_quality))
        return cls(qualities, texts, answers)

    def __call__(self, slot_public_id: str) -> float:
        return self._qualities[slot_public_id]

    def answer(self, slot_public_id: str) -> tuple[str, float | None]:
        """(slot type, true quality of its answer: a check's original's) when known, else ("SYSTEM", None)."""
        return self._answers.get(slot_public_id, ("SYSTEM", None))

    def texts(self, slot_public_id: str) -> tuple[str | None, str | None]:
        """(Answer B, Answer A) as the slot shows them; (None, None) when not known."""
        return self._texts.get(slot_public_id, (None, None))


class SimulatedClock:
    """Simulated time per assignment (keyed by its link's token), for the server and the crowd alike.

    An assignment's clock starts at the real time it is first asked for and advances only when its
    worker waits (:meth:`advance`), so the server's time on each item is the time the simulated worker
    took, however fast the simulation runs. The app calls it with the token of the link being served
    (an :data:`~da_platform.rating.clock.AssignmentClock`, given to ``create_app``)."""

    LATENCY_MS = 150  # the network's share of a round trip (server time also covers it)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now: dict[str, datetime] = {}

    def __call__(self, token: str) -> datetime:
        with self._lock:
            return self._now.setdefault(token, utcnow())

    def advance(self, token: str, milliseconds: float) -> None:
        """The worker of ``token``'s assignment waited this long (plus a network round trip)."""
        with self._lock:
            start = self._now.setdefault(token, utcnow())
            self._now[token] = start + timedelta(milliseconds=milliseconds + self.LATENCY_MS)


@dataclass(frozen=True)
class SimulatedWorker:
    """One member of the crowd: a name, how it rates, its invite link and how many HITs it takes.

    ``rater`` (optional) replaces the profile's way of rating: OCR bots, agents, paced variants."""

    name: str
    profile: WorkerProfile
    invite_url: str
    max_hits: int
    rater: Rater | None = None

    @property
    def kind(self) -> str:
        return self.rater.kind if self.rater is not None else self.profile.kind


@dataclass(frozen=True)
class WorkerOutcome:
    name: str
    kind: str
    hits: int
    ratings: int


def arrive(http: requests.Session, invite_url: str) -> str | None:
    """Follow the invite link: the URL of the slot page of the HIT taken, or None when none is offered."""
    page = http.get(invite_url, timeout=30)
    if page.status_code == 409:
        return None  # the campaign has nothing (more) for this worker
    _check(page, invite_url)
    assignment = _ASSIGNMENT_URL.match(page.url)
    if assignment is None:
        raise CrowdError(f"the invite link led to {page.url}, not to a task")
    return assignment.group(1) + "/slot"


def rate_hit(http: requests.Session, slot_url: str, oracle: SlotOracle, profile: WorkerProfile,
             rng: np.random.Generator, *, fetch_images: bool = True,
             on_rating: Callable[[], None] | None = None, rater: Rater | None = None,
             behaviour_rng: np.random.Generator | None = None, time_scale: float = 0.0,
             clock: SimulatedClock | None = None) -> int:
    """Rate the HIT whose slot page is ``slot_url`` to the end; the number of ratings given.

    Scores come from ``rng`` (so adding records and waits changes no score); times and behaviour
    records from ``behaviour_rng``. An OCR rater always fetches the images (it reads them).
    ``clock``: the server's simulated clock, advanced by each wait the rater really takes."""
    rater = rater if rater is not None else ProfileRater(profile)
    behaviour_rng = behaviour_rng if behaviour_rng is not None else np.random.default_rng(0)
    fetch_images = fetch_images or not isinstance(rater, (ProfileRater, PersonRater))
    page = http.get(slot_url, timeout=30)
    _check(page, slot_url)
    if page.url.endswith("/done"):
        return 0
    found, rating_url = _SLOT_FIELD.search(page.text), _RATING_URL.search(page.text)
    if found is None or rating_url is None:
        raise CrowdError(f"no rating form on {page.url}")
    rating_url = requests.compat.urljoin(page.url, rating_url.group(1))
    slot = found.group(1)
    assignment = _TOKEN.search(slot_url)
    token = assignment.group(1) if assignment else None
    density = _DENSITY.search(page.text)
    images = [(_ROLE[role], src.replace("&amp;", "&")) for role, src in _IMAGE.findall(page.text)]
    start_hit = getattr(rater, "start_hit", None)
    if start_hit is not None:
        start_hit(rng)  # a person's state for this HIT (simulation.people: a lapse or not, ...)
    for ratings in range(1, MAX_PAGES_PER_HIT + 1):
        pngs: dict[str, bytes] = {}
        if fetch_images:
            for role, src in images:
                fetched = http.get(requests.compat.urljoin(page.url, src), timeout=30)
                _check(fetched, src)
                pngs[role] = fetched.content
        item = Item(slot, pngs.get("candidate"), pngs.get("reference"), oracle(slot),
                    float(density.group(1)) if density else 1.0, *oracle.texts(slot), *oracle.answer(slot))
        score = rater.score(item, rng)
        timing = rater.timing(item, behaviour_rng)
        record = rater.behaviour(item, timing, behaviour_rng)
        waited_ms = timing.shown_ms if timing is not None and rater.waits else 0
        if waited_ms and time_scale > 0:
            time.sleep(waited_ms / 1000 * time_scale)  # one item at a time, at the rater's pace
        if clock is not None and token is not None:
            clock.advance(token, waited_ms)
        # As the page's script does: the answer is the next item, or where the completion page is.
        answer = send_rating(http, rating_url, {"slot": slot, "score": str(score), **encode_record(record)})
        if answer.status_code >= 400:
            try:
                _check_refusal(http, answer, rating_url)
            except TimeRanOut:
                return ratings - 1
        if on_rating is not None:
            on_rating()
        step = answer.json()
        if "done" in step:
            _check(http.get(requests.compat.urljoin(page.url, step["done"]), timeout=30), step["done"])
            return ratings
        slot = step["screen"]["slot"]
        images = [(role, step["screen"][f"{role}_image"]) for role in ("reference", "candidate")
                  if step["screen"][f"{role}_image"]]
    raise CrowdError(f"{slot_url} never reached the completion page")


def send_rating(http: requests.Session, rating_url: str, data: dict[str, str],
                timeout: float = SEND_TIMEOUT_S) -> requests.Response:
    """POST a rating as the page's script does: a request lost on the way (no answer within ``timeout``
    seconds, a dropped connection) is sent again, which is safe: the server stores a rating once and answers
    a repeat of it with what comes next."""
    for attempt in range(1, SEND_ATTEMPTS + 1):
        try:
            return http.post(rating_url, data=data, timeout=timeout)
        except (requests.Timeout, requests.ConnectionError) as error:
            if attempt == SEND_ATTEMPTS:
                raise CrowdError(f"no answer from {rating_url} in {SEND_ATTEMPTS} tries ({error})") from None
    raise AssertionError("unreachable")


def _check_refusal(http: requests.Session, answer: requests.Response, rating_url: str) -> None:
    """A refused rating: :class:`TimeRanOut` when the page it points to (as the worker's Continue link does)
    says the HIT's time is up, else a :class:`CrowdError` with the refusal."""
    try:
        resume = answer.json().get("resume")
    except ValueError:
        resume = None
    if resume and http.get(requests.compat.urljoin(rating_url, resume), timeout=30).status_code == 410:
        raise TimeRanOut(rating_url)
    _check(answer, rating_url)


class _Turns:
    """Arrivals in a fixed order: every worker's first arrival in list order, then every second one, ...

    An arrival waits until the one before it has been answered (or will never happen), so which worker
    gets which HIT, and so every score given, depends on the seed alone, not on thread scheduling.
    """

    def __init__(self, workers: list[SimulatedWorker]) -> None:
        order = [(index, round_) for round_ in range(max((w.max_hits for w in workers), default=0))
                 for index, worker in enumerate(workers) if round_ < worker.max_hits]
        self._answered = {turn: threading.Event() for turn in order}
        self._before = dict(zip(order[1:], order))

    def wait(self, index: int, round_: int) -> None:
        before = self._before.get((index, round_))
        if before is not None:
            self._answered[before].wait()

    def answered(self, index: int, round_: int) -> None:
        self._answered[(index, round_)].set()

    def give_up(self, index: int) -> None:
        """This worker arrives no more: nobody waits for its remaining turns."""
        for (who, _), event in self._answered.items():
            if who == index:
                event.set()


def run_crowd(workers: list[SimulatedWorker], oracle: SlotOracle, *, seed: int, threads: int = 4,
              fetch_images: bool = True, on_rating: Callable[[], None] | None = None,
              time_scale: float = 0.0, clock: SimulatedClock | None = None) -> list[WorkerOutcome]:
    """Let every worker take HITs until it reaches its limit or the campaign has none left.

    ``clock``: the simulated clock the app was given (``create_app(clock=...)``, see the module docstring).

    Workers arrive in a fixed order (see :class:`_Turns`), so a seed gives the same ratings every run;
    at most ``threads`` of them rate at the same time, as a crowd does. The first error stops nobody
    else; it is raised once all have finished.
    """
    lock = threading.Lock()
    raters = threading.Semaphore(max(1, threads))
    turns = _Turns(workers)

    def counted() -> None:
        if on_rating is not None:
            with lock:
                on_rating()

    def work(index: int, worker: SimulatedWorker) -> WorkerOutcome:
        rng = np.random.default_rng([seed, index])
        behaviour_rng = np.random.default_rng([seed, index, 1])
        hits = ratings = 0
        try:
            with requests.Session() as http:
                while hits < worker.max_hits:
                    turns.wait(index, hits)
                    slot_url = arrive(http, worker.invite_url)
                    turns.answered(index, hits)
                    if slot_url is None:
                        break
                    with raters:
                        done = rate_hit(http, slot_url, oracle, worker.profile, rng,
                                        fetch_images=fetch_images, on_rating=counted, rater=worker.rater,
                                        behaviour_rng=behaviour_rng, time_scale=time_scale, clock=clock)
                    hits, ratings = hits + 1, ratings + done
        finally:
            turns.give_up(index)
        return WorkerOutcome(worker.name, worker.kind, hits, ratings)

    # One thread per worker, so that a worker waiting for its turn never keeps another from rating.
    with ThreadPoolExecutor(max_workers=max(1, len(workers))) as pool:
        return list(pool.map(work, range(len(workers)), workers))


def _check(response: requests.Response, what: str) -> None:
    if response.status_code >= 400:
        message = re.sub(r"<[^>]+>", " ", response.text)
        raise CrowdError(f"HTTP {response.status_code} from {what}: {' '.join(message.split())[:300]}")
