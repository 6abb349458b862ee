"""Kinds of simulated worker for the crowd (``da_platform.simulation.crowd``): how each scores, waits and behaves.

A :class:`Rater` sees one screen as an :class:`Item` (the served PNG bytes, and for the simulation
the item's true quality) and decides a score, how long a person would take (virtual milliseconds),
and the behaviour record its "browser" sends (docs/quality-control.md#behaviour-record, or None for no record at all).

Kinds (``KINDS``):

- ``honest``: a person as fitted to real crowd workers (:mod:`da_platform.simulation.people`, :class:`PersonRater`):
  they read, their time grows with the amount of text shown, and they send a person's record (pointer or touch
  events on the slider, sometimes keys).
- ``random``, ``constant``, ``bot``: the profiles of :mod:`da_platform.simulation.profiles`; no record.
- ``ocr-overlap``: reads both images with Tesseract and scores adequacy as 100 × ROUGE-L (LCS F-measure,
  γ = 1.2) of Answer B against Answer A; fluency (no Answer A) by :func:`fluency_guess`. No record.
- ``rapidocr-overlap``: the same with RapidOCR and the bag-of-tokens F1 instead of ROUGE-L.
- ``ocr-overlap-paced``, ``rapidocr-overlap-paced``: the same scores, but each item takes a
  human-looking time that grows with the text read, and the bot forges a plausible person's record.
  With ``waits=False`` it only claims those times in its records without taking them (the server's
  time on item then gives it away: ``analysis.behaviour_signals``, ``server_time``).
- ``oracle-agent``: an excellent rater (scores the true quality with little noise, as a good
  language model reading the images would) that behaves like a script: a regular time per item
  whatever the length, and a record without any pointer, touch or key event.

Waiting: a rater's times are virtual; the crowd sleeps ``virtual seconds × time_scale`` for real
before posting (``time_scale`` 0 for fast tests, 1 for real time), and one worker never rates two
items at the same time. The records report the virtual times, as the worker's browser would.
"""
from __future__ import annotations

import hashlib
import json
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from da_core.text import tokenize
from da_platform.simulation.ocr import Reader
from da_platform.simulation.people import KIND_OF, SYSTEM, HitState, Person
from da_platform.simulation.profiles import WorkerProfile, random_profile

KINDS = ("honest", "random", "constant", "bot", "ocr-overlap", "rapidocr-overlap", "ocr-overlap-paced",
         "rapidocr-overlap-paced", "oracle-agent")
SIMPLE_KINDS = {"honest": "honest", "random": "random", "constant": "constant", "bot": "always_high"}
KIND_DESCRIPTIONS = {
    "honest": "reads and rates as real crowd workers do: a personal bias, scale and noise, now and then a HIT "
              "without attention",
    "random": "clicks anywhere on the slider",
    "constant": "leaves every answer at the same score",
    "bot": "fast bot-like clicker: everything 90-100 %",
    "ocr-overlap": "Tesseract reads the images; scores Answer B by its ROUGE-L overlap with Answer A",
    "rapidocr-overlap": "RapidOCR reads the images; scores Answer B by its token F1 with Answer A",
    "ocr-overlap-paced": "ocr-overlap at a person's pace, with forged browser records",
    "rapidocr-overlap-paced": "rapidocr-overlap at a person's pace, with forged browser records",
    "oracle-agent": "knows each answer's true quality; scripted: regular timing, no input events",
}

#: Lines of text a simulated person reads when the images were not fetched (so their length is unknown):
#: about a screen with a short reference and answer, like the sample's.
LINES_WITHOUT_IMAGES = 8
LINE_PIXELS = 30  # one line of answer text as shown (CSS pixels; font 22 px), for reading times
RECORD_VERSION = 1


@dataclass(frozen=True)
class Item:
    """One screen as a simulated worker sees it."""

    slot: str
    candidate_png: bytes | None
    reference_png: bytes | None
    quality: float  # the truth behind the screen (da_platform.simulation.profiles.slot_quality)
    density: float = 1.0  # image pixels per CSS pixel (the page's data-density: images drawn at 2x show at half)
    candidate_text: str | None = None  # the texts shown, for the careful raters (simulation.text_raters)
    reference_text: str | None = None
    slot_type: str = "SYSTEM"  # what the slot is, and the true quality of its answer (a check's: its original's),
    answer_quality: float | None = None  # for the simulated people of ``simulation.people`` (None: ``quality``)


@dataclass(frozen=True)
class Timing:
    """Virtual milliseconds: to the first slider input, and to sending the rating."""

    first_input_ms: int | None
    shown_ms: int


class Rater(Protocol):
    kind: str
    waits: bool  # takes the time its ``timing`` says (False: claims it in its record without waiting)

    def score(self, item: Item, rng: np.random.Generator) -> int: ...

    def timing(self, item: Item, rng: np.random.Generator) -> Timing | None: ...

    def behaviour(self, item: Item, timing: Timing | None, rng: np.random.Generator) -> dict | None: ...


def png_height(png: bytes | None) -> int:
    """Height in pixels of a PNG (from its header); 0 for no image."""
    if not png:
        return 0
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    return struct.unpack(">I", png[20:24])[0]


def reading_seconds(item: Item, rng: np.random.Generator) -> float:
    """How long a person takes on a screen: about 3 s per line of text shown (as the page shows the images:
    ``LINE_PIXELS`` CSS pixels a line) plus 2.5 s to decide, log-normal (σ 0.35) around that."""
    lines = (png_height(item.candidate_png) + png_height(item.reference_png)) / (LINE_PIXELS * item.density)
    if item.candidate_png is None and item.reference_png is None:
        lines = LINES_WITHOUT_IMAGES  # images not fetched (demo --no-images): a typical screen's reading
    return float((2.5 + 3.0 * lines) * rng.lognormal(0.0, 0.35))


def person_record(slot: str, timing: Timing, rng: np.random.Generator, *, touch: bool) -> dict:
    """A behaviour record (C1) as a person's browser sends it: a drag of the slider (pointer or touch
    events), now and then keys, rarely a moment in another tab."""
    away = int(rng.random() < 0.05)
    return {"v": RECORD_VERSION, "slot": slot, "first_input_ms": timing.first_input_ms,
            "pointer": 0 if touch else int(rng.integers(3, 30)), "touch": int(rng.integers(2, 12)) if touch else 0,
            "key": int(rng.integers(1, 6)) if rng.random() < 0.1 else 0,
            # (never longer than the item was shown: the page cannot send that)
            "hidden_ms": min(int(rng.integers(500, 5000)) * away, timing.shown_ms),
            "blur_ms": min(int(rng.integers(500, 5000)) * away, timing.shown_ms),
            "paste": 0, "copy": 0, "shown_ms": timing.shown_ms}


def person_timing(seconds: float, rng: np.random.Generator) -> Timing:
    shown = max(800, int(seconds * 1000))
    return Timing(int(shown * rng.uniform(0.55, 0.92)), shown)


@dataclass
class ProfileRater:
    """The simulation's classic kinds (``da_platform.simulation.profiles.WorkerProfile``); honest ones read."""

    profile: WorkerProfile
    kind: str = ""
    touch: bool = False  # an honest worker on a phone
    waits: bool = True

    def __post_init__(self) -> None:
        self.kind = self.kind or {v: k for k, v in SIMPLE_KINDS.items()}[self.profile.kind]

    def score(self, item: Item, rng: np.random.Generator) -> int:
        return self.profile.rate(item.quality, rng)

    def timing(self, item: Item, rng: np.random.Generator) -> Timing | None:
        return person_timing(reading_seconds(item, rng), rng) if self.profile.kind == "honest" else None

    def behaviour(self, item: Item, timing: Timing | None, rng: np.random.Generator) -> dict | None:
        if self.profile.kind != "honest" or timing is None:
            return None  # simple bots post straight to the endpoint
        return person_record(item.slot, timing, rng, touch=self.touch)


@dataclass
class PersonRater:
    """An honest worker as fitted to real people (:mod:`da_platform.simulation.people`): reads at a person's pace
    and sends a person's record, as ``ProfileRater``'s honest kind; its scores are the fitted model's, with lapses,
    unnoticed damage and memory of repeats (the crowd calls ``start_hit`` at each new HIT)."""

    person: Person
    kind: str = "honest"
    touch: bool = False
    waits: bool = True
    profile: WorkerProfile = field(default_factory=WorkerProfile)  # (the crowd's worker record; unused here)
    state: HitState | None = None

    def start_hit(self, rng: np.random.Generator) -> None:
        self.state = self.person.start_hit(rng)

    def score(self, item: Item, rng: np.random.Generator) -> int:
        if self.state is None:
            self.start_hit(rng)
        assert self.state is not None
        quality = item.quality if item.answer_quality is None else item.answer_quality
        return self.person.score(KIND_OF.get(item.slot_type, SYSTEM), quality, self.state, rng)

    def timing(self, item: Item, rng: np.random.Generator) -> Timing | None:
        return person_timing(reading_seconds(item, rng), rng)

    def behaviour(self, item: Item, timing: Timing | None, rng: np.random.Generator) -> dict | None:
        assert timing is not None
        return person_record(item.slot, timing, rng, touch=self.touch)


class _ReadingCache:
    """OCR readings by image content, shared by every bot of a process (as an attacker's farm would)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[tuple[str, str], str] = {}

    def read(self, reader: Reader, png: bytes) -> str:
        key = (reader.name, hashlib.sha256(png).hexdigest())
        with self._lock:
            if key in self._texts:
                return self._texts[key]
        text = reader.read(png)
        with self._lock:
            self._texts[key] = text
        return text


READINGS = _ReadingCache()


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure (γ = 1.2) of the project's metrics, lowercased tokens."""
    from analysis.metrics.rouge import RougeL

    return float(RougeL().sentence_score(candidate.lower(), [reference.lower()])) if candidate and reference else 0.0


def token_f1(candidate: str, reference: str) -> float:
    """Bag-of-tokens F1 (SQuAD normalisation) of the project's metrics."""
    from analysis.metrics.squad import TokenF1

    return float(TokenF1().sentence_score(candidate, [reference])) if candidate and reference else 0.0


def fluency_guess(text: str) -> float:
    """A bot's fluency score in [0, 1] without understanding: long enough, few repeated tokens, ends
    like a sentence."""
    tokens = tokenize(text.lower())
    if not tokens:
        return 0.0
    length = min(1.0, len(tokens) / 12)
    variety = len(set(tokens)) / len(tokens)
    ending = 1.0 if text.rstrip()[-1:] in ".!?。！？" else 0.7
    return length * (0.4 + 0.6 * variety) * ending


OVERLAPS: dict[str, Callable[[str, str], float]] = {"tesseract": rouge_l, "rapidocr": token_f1}


def overlap_score(candidate: str, reference: str | None, engine: str) -> int:
    """An overlap bot's 0–100 score of what it read: overlap with Answer A by the metric of ``engine``'s
    bot (Tesseract: ROUGE-L, RapidOCR: token F1), or :func:`fluency_guess` when there is no Answer A."""
    value = fluency_guess(candidate) if reference is None else OVERLAPS[engine](candidate, reference)
    return int(np.clip(round(100 * value), 0, 100))


@dataclass
class OverlapBot:
    """Reads the images with an OCR engine and scores by text overlap (see the module docstring)."""

    reader: Reader
    kind: str
    paced: bool = False
    touch: bool = False
    waits: bool = True  # False: a paced bot that only claims a person's times in its records
    readings: _ReadingCache = field(default_factory=lambda: READINGS)

    def _texts(self, item: Item) -> tuple[str, str | None]:
        candidate = self.readings.read(self.reader, item.candidate_png) if item.candidate_png else ""
        reference = self.readings.read(self.reader, item.reference_png) if item.reference_png else None
        return candidate, reference

    def score(self, item: Item, rng: np.random.Generator) -> int:
        candidate, reference = self._texts(item)
        return overlap_score(candidate, reference, self.reader.name)

    def timing(self, item: Item, rng: np.random.Generator) -> Timing | None:
        if not self.paced:
            return None
        candidate, reference = self._texts(item)
        words = len(tokenize(candidate)) + len(tokenize(reference or ""))
        # About 4 words (or 8 characters) a second, as people read, plus time to decide.
        seconds = (2.5 + words / 4.0) * float(rng.lognormal(0.0, 0.3))
        return person_timing(seconds, rng)

    def behaviour(self, item: Item, timing: Timing | None, rng: np.random.Generator) -> dict | None:
        return person_record(item.slot, timing, rng, touch=self.touch) if self.paced and timing else None


@dataclass
class OracleAgent:
    """Knows each answer's true quality; behaves like a script (regular timing, no input events)."""

    kind: str = "oracle-agent"
    noise: float = 4.0
    seconds: float = 6.0
    waits: bool = True

    def score(self, item: Item, rng: np.random.Generator) -> int:
        return int(np.clip(round(item.quality + self.noise * rng.standard_normal()), 0, 100))

    def timing(self, item: Item, rng: np.random.Generator) -> Timing | None:
        shown = int(self.seconds * 1000 * rng.uniform(0.98, 1.02))
        return Timing(None, shown)

    def behaviour(self, item: Item, timing: Timing | None, rng: np.random.Generator) -> dict | None:
        assert timing is not None
        return {"v": RECORD_VERSION, "slot": item.slot, "first_input_ms": None, "pointer": 0, "touch": 0,
                "key": 0, "hidden_ms": 0, "blur_ms": 0, "paste": 0, "copy": 0, "shown_ms": timing.shown_ms}


def make_rater(kind: str, rng: np.random.Generator, *, touch: bool = False) -> Rater:
    """A rater of ``kind`` (one of ``KINDS``) with plausible personal parameters (drawn from ``rng``
    for the simple kinds, as ``da_platform.simulation.profiles.random_profile`` does); ``touch``: rates on a phone."""
    from da_platform.simulation.ocr import RapidOcrReader, TesseractReader

    if kind == "honest":
        return PersonRater(Person.draw(rng), touch=touch)
    if kind in SIMPLE_KINDS:
        return ProfileRater(random_profile(SIMPLE_KINDS[kind], rng), kind, touch=touch)
    if kind in ("ocr-overlap", "ocr-overlap-paced"):
        return OverlapBot(TesseractReader(), kind, paced=kind.endswith("-paced"), touch=touch)
    if kind in ("rapidocr-overlap", "rapidocr-overlap-paced"):
        return OverlapBot(RapidOcrReader(), kind, paced=kind.endswith("-paced"), touch=touch)
    if kind == "oracle-agent":
        return OracleAgent()
    raise ValueError(f"unknown kind of simulated worker {kind!r}; expected one of {', '.join(KINDS)}")


def encode_record(record: dict | None) -> dict[str, str]:
    """The form field(s) a record adds to a rating post: ``{"behaviour": json}``, or nothing."""
    return {} if record is None else {"behaviour": json.dumps(record, separators=(",", ":"))}


def virtual_seconds(timing: Timing | None) -> float:
    return 0.0 if timing is None else timing.shown_ms / 1000


__all__ = [
    "KINDS",
    "KIND_DESCRIPTIONS",
    "Item",
    "OracleAgent",
    "OverlapBot",
    "PersonRater",
    "ProfileRater",
    "Rater",
    "Timing",
    "encode_record",
    "fluency_guess",
    "make_rater",
    "png_height",
    "reading_seconds",
    "rouge_l",
    "token_f1",
    "virtual_seconds",
]
