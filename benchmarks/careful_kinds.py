"""Rate-level models of the raters quality control must tell apart at one HIT per worker (no browser).

Each kind turns what a slot shows into a 0-100 score; ``one_hit.py`` gives the careful kinds a person's
behaviour record and really-waited time (they drive a real browser with trusted input and human waits:
the behaviour signals cannot see them), so only the content tests decide. The overlap, check-aware and judge
kinds score with the very rules of the careful bots that rate through the real pages in Chromium
(``da_platform.simulation.careful_rules``), here on the true texts (a perfect reading). Kinds:

- ``honest``: a person as fitted to real crowd workers (``da_platform.simulation.people``: bias, scale use,
  noise, rounding to 5 and 10, damage not noticed, repeats remembered, whole HITs without attention);
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
from da_platform.simulation import people


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
        person = people.Person.draw(rng)
        kinds = np.array([people.KIND_OF[s.slot_type] for s in shown])
        answers = np.array([s.original_quality if s.slot_type != "REPEAT" else s.quality for s in shown])
        return people.rate_slots(person, kinds, answers, np.array(originals), person.start_hit(rng), rng).tolist()
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


def _clip(values: list[float]) -> list[int]:
    return [int(np.clip(round(v), 0, 100)) for v in values]
