"""Rate-level models of the raters quality control must tell apart at one HIT per worker (no browser).

Each kind turns what a slot shows into a 0-100 score; ``one_hit.py`` gives the careful kinds a person's
behaviour record and really-waited time (they drive a real browser with trusted input and human waits:
the behaviour signals cannot see them), so only the content tests decide. The overlap, check-aware and judge
kinds score with the very rules of the careful bots that rate through the real pages in Chromium
(``da_platform.simulation.careful_rules``), here on the true texts (a perfect reading). Kinds:

- ``honest``: a person, calibrated on real ratings (``HonestParams`` says how): bias, scale use, noise,
  rounding to 5 and 10, and lapses (a damaged or meaning-changed copy not noticed is scored like its original);
- ``random``, ``constant``, ``bot`` (90-100): content-blind;
- ``overlap+N``: 100 × ROUGE-L of Answer B against Answer A, plus Gaussian noise of standard deviation N
  (``careful_rules.overlap_noise``);
- ``aware+N``: the same, check-aware (``careful_rules.check_aware``): a REPEAT gets exactly the score its
  original got (the bots match them by pixels), a rewrite of A that the bots' rules spot (yes/no flip,
  negation, a new number or name) is scored 5-25;
- ``judge+N``: the score of the automatic judge the researcher also ran (the same scores are imported) plus
  noise N (``careful_rules.noisy``);
- ``competent``: each answer's true quality with a person's noise (SD 8), no lapses: the frontier.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from da_platform.simulation import careful_rules as rules


@dataclass(frozen=True)
class HonestParams:
    """One simulated person. Calibration (docs/benchmarks.md, "Quality control at one HIT"):

    - scale use and rounding from the WMT21 Facebook-Wikipedia ratings in tests/data (6 raters, 14,443
      ratings): per rater 23-92 % of scores are multiples of 10 and 40-97 % multiples of 5, 0-72 % at 100,
      mean 38-93: bias N(0, 12), scale U(0.5, 1.6), a share U(0, 0.7) of scores rounded to 10 and of the
      rest U(0.2, 0.9) to 5;
    - the BAD_REF drop from the public WMT21 MTurk worker statistics (newstest2021-toen ad-wrkr-stats.csv,
      first 281 workers): one-HIT workers who rate the references at 90 or more and drop at least 10 points
      have a mean drop of 42.5 (IQR 24-57); the simulated people drop 33 (IQR 24-41) on originals of
      quality 60+, i.e. react *less* than real attentive people (the simulation errs against them);
    - noise SD U(5, 20); lapses: each BAD_REF copy noticed with probability U(0.85, 1), each MEANING copy
      with U(0.6, 0.95) (assumed: no real data on meaning changes exists).
    """

    bias: float
    scale: float
    noise: float
    round10: float
    round5: float
    notice_bad: float
    notice_meaning: float

    @classmethod
    def draw(cls, rng: np.random.Generator) -> HonestParams:
        return cls(float(rng.normal(0, 12)), float(rng.uniform(0.5, 1.6)), float(rng.uniform(5, 20)),
                   float(rng.uniform(0.0, 0.7)), float(rng.uniform(0.2, 0.9)), float(rng.uniform(0.85, 1.0)),
                   float(rng.uniform(0.6, 0.95)))


@dataclass(frozen=True)
class Shown:
    """What one slot shows and the truth behind it."""

    slot_type: str
    candidate: str
    reference: str | None
    quality: float  # of what is shown
    original_quality: float  # of the original answer (checks); = quality otherwise
    judge: float  # the automatic judge's score of what is shown


def kind_names() -> list[str]:
    return (["random", "constant", "bot"] + [f"overlap+{n}" for n in (0, 5, 10, 20)]
            + [f"aware+{n}" for n in (0, 5, 10, 20)] + [f"judge+{n}" for n in (5, 10, 20)] + ["competent"])


def rate_hit(kind: str, shown: list[Shown], originals: list[int], rng: np.random.Generator) -> list[int]:
    """Scores of one worker of ``kind`` for a HIT's slots in order (``originals``: each check's original's
    index in the HIT, -1 for ordinary slots)."""
    n = len(shown)
    if kind == "honest":
        return _honest(HonestParams.draw(rng), shown, rng)
    if kind == "random":
        return rng.integers(0, 101, n).tolist()
    if kind == "constant":
        return [int(rng.integers(0, 101))] * n
    if kind == "bot":
        return rng.integers(90, 101, n).tolist()
    if kind == "competent":
        return _clip([s.quality + 8 * rng.standard_normal() for s in shown])
    name, noise = kind.split("+")
    sd = float(noise)
    if name == "judge":
        return [rules.noisy(s.judge, sd, rng) for s in shown]
    if name == "overlap":
        return [rules.overlap_noise(s.candidate, s.reference or "", sd, rng) for s in shown]
    scores = [rules.check_aware(s.candidate, s.reference or "", sd, rng)[0] for s in shown]
    for k, s in enumerate(shown):  # a REPEAT matched to its original (by pixels): the same score
        if s.slot_type == "REPEAT" and originals[k] >= 0:
            scores[k] = scores[originals[k]]
    return scores


def _honest(p: HonestParams, shown: list[Shown], rng: np.random.Generator) -> list[int]:
    scores = []
    for s in shown:
        quality = s.quality
        if s.slot_type == "BAD_REF" and rng.random() > p.notice_bad:
            quality = s.original_quality
        elif s.slot_type == "MEANING" and rng.random() > p.notice_meaning:
            quality = s.original_quality
        x = 50 + p.bias + p.scale * (quality - 50) + p.noise * rng.standard_normal()
        if rng.random() < p.round10:
            x = round(x / 10) * 10
        elif rng.random() < p.round5:
            x = round(x / 5) * 5
        scores.append(x)
    return _clip(scores)


def _clip(values: list[float]) -> list[int]:
    return [int(np.clip(round(v), 0, 100)) for v in values]
