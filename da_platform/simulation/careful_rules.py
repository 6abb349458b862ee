"""How a careful automated rater scores and paces what it read: pure rules, texts in and a number out.

The careful bots of :mod:`da_platform.simulation.careful_bots` (real Chromium, trusted input, human waits) read
Answer A and Answer B (OCR of the served images, or the true texts where a bot stands for a vision model)
and score with one of the strategies below; the fast rate simulation can call the same functions. The
rules are what an attacker writes from looking at the pages, not from the platform's check-making code.

- :func:`overlap`: ROUGE-L F-measure of B against A (``da_platform.simulation.adversaries.rouge_l``), 0-1.
- :func:`spot_rewrite`: a few rules that say "B says something A does not": B opens with yes where A opens
  with no (or the other way round), or a sentence of B close to a sentence of A (character overlap at least
  ``REWRITE_GATE``) has another number of negations, a number or an English name that sentence of A has not.
  Sentence by sentence, because a rewritten answer differs from A where it was rewritten, and a whole answer
  far from A differs everywhere. On the bundled sample's hardened campaign (300 questions, one pass) they
  spot 50 % of the MEANING copies and fire on 3.6 % of the ordinary items (the issue's attacker: 54 % and 3 %).
- :func:`judge`: chrF (character n-gram F-score, β = 2; sacrebleu) of B against A, 0-100: an automatic judge
  the researcher can compute too, a plain function of the texts standing in for an LLM judge.
- strategies (score 0-100): :func:`overlap_noise`, :func:`check_aware` (REPEATs are matched on the images by
  the caller, before the text is looked at), :func:`judge_noise`.
- pace: :func:`bot_seconds` (a careful bot's wait, about 9-11 s for a typical item, longer for longer text)
  and :func:`person_seconds` (a person reading at the IReST mean rates, as the fast simulation assumes).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from analysis.evidence import character_overlap, reading_units
from da_platform.simulation.adversaries import rouge_l

REWRITE_GATE = 0.6
"""Character overlap (LCS F1) of a sentence of B with its closest sentence of A from which the rules compare them."""
SPOTTED_SCORE = (5, 25)
"""A spotted rewrite is scored uniformly in this range (a clear "no")."""

_EN_YES = {"yes", "yeah", "yep", "right", "correct", "true", "sure", "definitely", "absolutely"}
_EN_NO = {"no", "nope", "not", "wrong", "incorrect", "false", "never"}
_ZH_NO = ("不是", "不对", "不可以", "不会", "不能", "没有", "不", "没")  # tried first: they start with a yes-word's
_ZH_YES = ("是的", "是", "对", "没错", "可以", "会", "能", "有")
_EN_NEGATION = re.compile(r"\b(?:not|never|no|none|nothing|neither|nor|cannot)\b|n't\b", re.IGNORECASE)
_ZH_NEGATION = re.compile(r"[不没未别无非]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?|[一二三四五六七八九十两百千万]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+)([A-Z][A-Za-z'-]*)")
_SENTENCE = re.compile(r"[^.!?。！？;；]+[.!?。！？;；]?")


@dataclass(frozen=True)
class Rewrite:
    """A rule that fired, and what it saw (for the bot's log)."""

    rule: str  # yes_no | negation | number | name
    detail: str


def overlap(candidate: str, reference: str) -> float:
    """The bots' text overlap of B with A, 0-1: ROUGE-L F-measure of lowercased tokens."""
    return rouge_l(candidate, reference)


def _opening(text: str) -> str | None:
    """``"yes"`` or ``"no"`` when the text opens with a yes or no word (English or Chinese), else None."""
    stripped = text.strip().lstrip("\"'“‘(「『")
    for word in _ZH_NO:
        if stripped.startswith(word):
            return "no"
    for word in _ZH_YES:
        if stripped.startswith(word):
            return "yes"
    first = _WORD.match(stripped)
    if first is None:
        return None
    word = first.group(0).lower()
    return "yes" if word in _EN_YES else "no" if word in _EN_NO else None


def _negations(text: str) -> int:
    return len(_EN_NEGATION.findall(text)) + len(_ZH_NEGATION.findall(text))


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def _names(text: str) -> set[str]:
    """Capitalised English words not opening a sentence (a crude proper-name finder), lowercased."""
    openers = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    return {m.group(0).lower() for m in _WORD.finditer(text)
            if m.group(0)[0].isupper() and m.start() not in openers and m.group(0) != "I"}


def sentences(text: str) -> list[str]:
    """The sentences of a text (split after . ! ? ; and their full-width forms)."""
    return [part.strip() for part in _SENTENCE.findall(text) if part.strip()]


def spot_rewrite(candidate: str, reference: str, gate: float = REWRITE_GATE) -> Rewrite | None:
    """The first rule that says B (``candidate``) states something A (``reference``) does not, or None."""
    if not candidate.strip() or not reference.strip():
        return None
    opening_a, opening_b = _opening(reference), _opening(candidate)
    if opening_a and opening_b and opening_a != opening_b:
        return Rewrite("yes_no", f"A opens with {opening_a}, B with {opening_b}")
    of_a = sentences(reference)
    known_words = {w.lower() for w in _WORD.findall(reference)}
    for sentence in sentences(candidate):
        closest = max(of_a, key=lambda a: character_overlap(sentence, a))
        if character_overlap(sentence, closest) < gate:
            continue
        if _negations(sentence) != _negations(closest):
            return Rewrite("negation", f"{sentence!r}: {_negations(closest)} negation(s) in A, "
                                       f"{_negations(sentence)} in B")
        new_numbers = _numbers(sentence) - _numbers(closest)
        if new_numbers:
            return Rewrite("number", f"{sentence!r} has " + ", ".join(sorted(new_numbers)))
        new_names = _names(sentence) - known_words
        if new_names:
            return Rewrite("name", f"{sentence!r} names " + ", ".join(sorted(new_names)))
    return None


@lru_cache(maxsize=1 << 14)
def judge(candidate: str, reference: str) -> float:
    """The automatic judge: chrF (character 6-grams, β = 2, sacrebleu's defaults) of B against A, 0-100."""
    from sacrebleu.metrics import CHRF

    if not candidate.strip() or not reference.strip():
        return 0.0
    return float(CHRF().sentence_score(candidate, [reference]).score)


def noisy(value: float, sd: float, rng: np.random.Generator) -> int:
    """``value`` (0-100) plus normal noise of ``sd`` points, as a whole score 0-100."""
    return int(np.clip(round(value + sd * rng.standard_normal()), 0, 100))


def overlap_noise(candidate: str, reference: str, sd: float, rng: np.random.Generator) -> int:
    """100 × overlap of B with A, plus noise."""
    return noisy(100 * overlap(candidate, reference), sd, rng)


def check_aware(candidate: str, reference: str, sd: float,
                rng: np.random.Generator) -> tuple[int, Rewrite | None]:
    """A spotted rewrite scores low (``SPOTTED_SCORE``); everything else 100 × overlap plus noise."""
    rewrite = spot_rewrite(candidate, reference)
    if rewrite is not None:
        return int(rng.integers(SPOTTED_SCORE[0], SPOTTED_SCORE[1] + 1)), rewrite
    return overlap_noise(candidate, reference, sd, rng), None


def judge_noise(candidate: str, reference: str, sd: float, rng: np.random.Generator) -> int:
    """The judge's score of B against A, plus noise."""
    return noisy(judge(candidate, reference), sd, rng)


def bot_seconds(texts: list[str], rng: np.random.Generator) -> float:
    """A careful bot's time on an item: 7 s, plus 0.2 s a word and 0.1 s a CJK character of the texts shown,
    ± 10 % (a typical item of 10-20 words: 9-11 s)."""
    words, characters = reading_units(texts)
    return (7.0 + 0.2 * words + 0.1 * characters) * float(rng.uniform(0.9, 1.1))


READING_WPS, READING_CPS, DECIDE_S = 228 / 60, 255 / 60, 2.5  # IReST means (analysis.behaviour_signals), and deciding


def person_seconds(texts: list[str], rng: np.random.Generator) -> float:
    """A person's time on an item: the texts shown at the IReST mean reading rates (228 words/min,
    255 CJK characters/min) plus 2.5 s to decide, log-normal (σ 0.35) around that."""
    words, characters = reading_units(texts)
    return (DECIDE_S + words / READING_WPS + characters / READING_CPS) * float(rng.lognormal(0.0, 0.35))
