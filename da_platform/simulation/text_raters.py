"""Careful automated raters for the fast crowd (:mod:`da_platform.simulation.crowd`): texts in, a score out.

They stand for the careful bots of :mod:`da_platform.simulation.careful_bots` (a real browser, trusted input, a
person's pace) without the browser: they read the texts a slot shows (``Item.candidate_text`` /
``reference_text``, from ``SlotOracle.from_database``), which is what an OCR engine or a vision model reading the
images gets at best, score with the rules of :mod:`da_platform.simulation.careful_rules`, take
``careful_rules.bot_seconds`` per item and send a person's behaviour record (no automation traces: the evading
browser). Kinds (``TEXT_KINDS``):

- ``overlap``: 100 × ROUGE-L of Answer B against Answer A, plus N(0, 10) (fluency: ``fluency_guess``);
- ``check-aware``: the same, but a screen whose Answer B it has seen before gets the score given then (a REPEAT,
  as the careful bot matches it by pixels), and a rewrite spotted by ``careful_rules.spot_rewrite`` scores low;
- ``judge``: the automatic judge (chrF of B against A, ``careful_rules.judge``) plus N(0, 10);
- ``competent``: each answer's true quality through a person's bias, scale and noise
  (``profiles.random_profile``): the frontier nothing in the checks can catch.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from da_platform.simulation import careful_rules as rules
from da_platform.simulation.adversaries import (
    KIND_DESCRIPTIONS,
    Item,
    Rater,
    Timing,
    fluency_guess,
    make_rater,
    person_record,
    person_timing,
)
from da_platform.simulation.profiles import WorkerProfile, random_profile

TEXT_KINDS = {
    "overlap": "reads the texts; scores Answer B by its ROUGE-L overlap with Answer A, + N(0, 10); a person's "
               "pace and browser record",
    "check-aware": "overlap, but a repeated Answer B gets its earlier score and rewrites spotted by rules score "
                   "low; a person's pace and record",
    "judge": "an automatic judge (chrF of Answer B against Answer A) + N(0, 10); a person's pace and record",
    "competent": "each answer's true quality with a person's bias, scale and noise; bot pace, a person's record",
}
CROWD_KINDS = {**KIND_DESCRIPTIONS, **TEXT_KINDS}
"""Every kind of simulated worker of the fast crowd (``adversaries.KINDS`` and these), and what each does."""
NOISE = 10.0  # points of normal noise on the overlap and judge scores (careful_bots' default kinds)


@dataclass
class TextRater:
    """One careful automated rater of ``kind`` (see the module docstring)."""

    kind: str
    profile: WorkerProfile = field(default_factory=WorkerProfile)  # competent: how it turns quality into a score
    touch: bool = False
    waits: bool = True
    noise: float = NOISE
    seen: dict[str, int] = field(default_factory=dict)  # check-aware: Answer B -> the score given

    def _texts(self, item: Item) -> tuple[str, str | None]:
        if item.candidate_text is None:
            raise ValueError(f"a {self.kind} rater reads the slot's texts: build the oracle with "
                             "SlotOracle.from_database")
        return item.candidate_text, item.reference_text

    def score(self, item: Item, rng: np.random.Generator) -> int:
        if self.kind == "competent":
            return self.profile.rate(item.quality, rng)
        candidate, reference = self._texts(item)
        if reference is None:  # fluency: nothing to compare with
            return rules.noisy(100 * fluency_guess(candidate), self.noise, rng)
        if self.kind == "judge":
            return rules.judge_noise(candidate, reference, self.noise, rng)
        if self.kind == "overlap":
            return rules.overlap_noise(candidate, reference, self.noise, rng)
        if candidate in self.seen:
            return self.seen[candidate]
        score, _ = rules.check_aware(candidate, reference, self.noise, rng)
        self.seen[candidate] = score
        return score

    def timing(self, item: Item, rng: np.random.Generator) -> Timing | None:
        texts = [text for text in (item.candidate_text, item.reference_text) if text]
        return person_timing(rules.bot_seconds(texts, rng), rng)

    def behaviour(self, item: Item, timing: Timing | None, rng: np.random.Generator) -> dict | None:
        assert timing is not None
        return person_record(item.slot, timing, rng, touch=self.touch)


def make_text_rater(kind: str, rng: np.random.Generator, *, touch: bool = False) -> TextRater:
    """A rater of one of ``TEXT_KINDS`` (a competent one draws a person's bias, scale and noise from ``rng``)."""
    if kind not in TEXT_KINDS:
        raise ValueError(f"unknown text rater {kind!r}; expected one of {', '.join(TEXT_KINDS)}")
    profile = random_profile("honest", rng) if kind == "competent" else WorkerProfile()
    return TextRater(kind, profile, touch=touch)


def make_crowd_rater(kind: str, rng: np.random.Generator, *, touch: bool = False) -> Rater:
    """A rater of any of ``CROWD_KINDS``: these text raters, else ``adversaries.make_rater``'s kinds."""
    if kind in TEXT_KINDS:
        return make_text_rater(kind, rng, touch=touch)
    return make_rater(kind, rng, touch=touch)
