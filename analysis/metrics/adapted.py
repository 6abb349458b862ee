"""ROUGE-L and BLEU adapted to yes/no and entity questions (Yang et al. 2018), as defined.

The definitions, parameters and checks are those of the MRC2018 task (see ``docs/metrics.md``):

- A question gets one kind of bonus (``QuestionInfo.bonus_type``): yes/no **or** entity.
- Yes/no (weight α): every reference carries its own opinion label and the answer carries the label
  its system gave (``QuestionInfo.answer_label``; nothing is guessed here). ROUGE-L adds α·LCS(ref, cand)
  to the numerators and denominators of P and R of each reference whose label equals the answer's;
  BLEU adds α·Σ Count_clip-s to the numerator and denominator of every precision P_i, where
  Count_clip-s clips each candidate i-gram to the most times it appears in a single reference with
  the answer's label.
- Entity (weight β): ROUGE-L adds β·Σ len(e) over the distinct gold entities e the candidate contains
  (as a contiguous token run) to the numerators and denominators; BLEU adds β·Σ Count_clip-e, clipping
  to the most times the i-gram appears in a single gold entity.

ROUGE-L takes the maximum P and the maximum R over the references and F = (1+γ²)PR/(R+γ²P); its
corpus score is the mean of the sentence scores. BLEU is cumulative BLEU-n with uniform weights and
the brevity penalty (closest reference length, the shorter on a tie); corpus statistics (bonuses
included) are summed before the formula; no smoothing by default, so a zero precision gives 0.

Defaults are the official scorer's (α = β = 1.0, γ = 1.2); ``PAPER`` holds the paper's (α = 2.0).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from analysis.metrics.base import (
    Metric,
    MetricScore,
    Progress,
    QuestionInfo,
    check_corpus,
    check_references,
    f_measure,
    number,
)
from analysis.metrics.bleu import SMOOTHING, unit_score
from analysis.metrics.lcs import lcs_length
from analysis.metrics.tokenize import DEFAULT_TOKENIZATION

YES, NO, DEPENDS = "yes", "no", "depends"

#: Parameter presets: the official scorer's defaults and the paper's experiments.
SCORER = {"alpha": 1.0, "beta": 1.0, "gamma": 1.2}
PAPER = {"alpha": 2.0, "beta": 1.0, "gamma": 1.2}

#: How the answers' yes/no labels were obtained, as signatures record it.
LABELS_FROM_DATA = "data"
LABELS_WITH_GUESS = "data+guess"

_OPENINGS = (
    (DEPENDS, re.compile(r"^\W*(it\s+depends|depends|depending|maybe|sometimes|看情况|视情况|取决于|不一定)",
                         re.IGNORECASE)),
    (YES, re.compile(r"^\W*(yes|yeah|yep|sure|correct|true|是的|是(?![否不])|对(?![于])|可以|能|会)(?![a-z])",
                     re.IGNORECASE)),
    (NO, re.compile(r"^\W*(no|nope|not|never(?!\s+mind)|false|不是|不|没有|没|否)(?![a-z])", re.IGNORECASE)),
)


def infer_yes_no_label(text: str) -> str | None:
    """A guess of ``yes``, ``no`` or ``depends`` from an answer's opening words (English or Chinese).

    Only for the explicit opt-in fallback (``metrics --guess-labels``): the guess is often wrong.
    """
    for label, pattern in _OPENINGS:
        if pattern.match(text):
            return label
    return None


def same_label(a: str | None, b: str | None) -> bool:
    """Two yes/no labels are equal (case-insensitive); a missing label equals nothing."""
    return a is not None and b is not None and a.strip().lower() == b.strip().lower()


def _contains_run(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    width = len(needle)
    return width > 0 and any(list(haystack[i:i + width]) == list(needle)
                             for i in range(len(haystack) - width + 1))


def _distinct(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


class _Adapted(Metric):
    labels = LABELS_FROM_DATA
    # The bonus weights, set by each concrete metric's __init__; declared here for the shared methods.
    alpha: float
    beta: float

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "labels": self.labels, "alpha": number(self.alpha),
                "beta": number(self.beta)}


class AdaptedRougeL(_Adapted):
    """ROUGE-L with the yes/no bonus α and the entity bonus β of Yang et al. (2018)."""

    name = "rouge-l-adapted"
    label = "ROUGE-L (adapted)"

    def __init__(self, alpha: float = SCORER["alpha"], beta: float = SCORER["beta"], gamma: float = SCORER["gamma"],
                 lowercase: bool = False, tokenization: str = DEFAULT_TOKENIZATION,
                 labels: str = LABELS_FROM_DATA) -> None:
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.lowercase = lowercase
        self.tokenization = tokenization
        self.labels = labels

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "gamma": number(self.gamma)}

    def precision_recall(self, hypothesis: str, references: Sequence[str],
                         question: QuestionInfo | None = None) -> tuple[float, float]:
        """Adapted LCS precision and recall, each maximised over the references."""
        check_references(references)
        hyp = self.tokens(hypothesis)
        kind = question.bonus_type if question is not None else None
        entity_bonus = 0.0
        if kind == "entity" and question is not None:
            entity_bonus = self.beta * sum(
                len(entity) for entity in (self.tokens(e) for e in _distinct(question.gold_entities))
                if _contains_run(hyp, entity))
        best_p = best_r = 0.0
        for position, reference in enumerate(references):
            ref = self.tokens(reference)
            common = lcs_length(hyp, ref)
            bonus = entity_bonus
            if (kind == "yes_no" and question is not None
                    and same_label(question.answer_label, question.reference_label(position))):
                bonus = self.alpha * common
            if common + bonus > 0:
                best_p = max(best_p, (common + bonus) / (len(hyp) + bonus))
                best_r = max(best_r, (common + bonus) / (len(ref) + bonus))
        return best_p, best_r

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        precision, recall = self.precision_recall(hypothesis, references, question)
        return f_measure(precision, recall, self.gamma)


class AdaptedBleu(_Adapted):
    """BLEU-4 with the yes/no bonus α and the entity bonus β of Yang et al. (2018).

    With no bonus (α = β = 0, or a description question) it equals ``Bleu4`` with the same
    tokenisation and smoothing exactly: same sufficient statistics, sacrebleu's own formula.
    """

    name = "bleu-4-adapted"
    label = "BLEU-4 (adapted)"

    def __init__(self, alpha: float = SCORER["alpha"], beta: float = SCORER["beta"], max_order: int = 4,
                 lowercase: bool = False, tokenization: str = DEFAULT_TOKENIZATION, smooth: str = "none",
                 labels: str = LABELS_FROM_DATA) -> None:
        if smooth not in SMOOTHING:
            raise ValueError(f"unknown BLEU smoothing {smooth!r}; known: {', '.join(SMOOTHING)}")
        self.alpha, self.beta = alpha, beta
        self.max_order = max_order
        self.lowercase = lowercase
        self.tokenization = tokenization
        self.smooth = smooth
        self.labels = labels

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "smooth": self.smooth, "max-order": str(self.max_order)}

    def _ngrams(self, text: str) -> tuple[Counter[tuple[str, ...]], int]:
        from sacrebleu.metrics.helpers import extract_all_word_ngrams

        return extract_all_word_ngrams(" ".join(self.tokens(text)), 1, self.max_order)

    def statistics(self, hypothesis: str, references: Sequence[str],
                   question: QuestionInfo | None = None) -> list[float]:
        """[hyp length, closest ref length, matches per order..., n-grams per order...], bonus included."""
        check_references(references)
        hyp_ngrams, hyp_len = self._ngrams(hypothesis)
        per_reference = [self._ngrams(reference) for reference in references]
        correct = _clipped_matches(hyp_ngrams, _max_counts(ngrams for ngrams, _ in per_reference), self.max_order)
        total = [0.0] * self.max_order
        for ngram, count in hyp_ngrams.items():
            total[len(ngram) - 1] += count
        bonus = [0.0] * self.max_order
        kind = question.bonus_type if question is not None else None
        if kind == "yes_no" and question is not None:
            same = [ngrams for position, (ngrams, _) in enumerate(per_reference)
                    if same_label(question.answer_label, question.reference_label(position))]
            if same:
                bonus = [self.alpha * m for m in _clipped_matches(hyp_ngrams, _max_counts(same), self.max_order)]
        elif kind == "entity" and question is not None:
            entities = _max_counts(self._ngrams(e)[0] for e in _distinct(question.gold_entities))
            bonus = [self.beta * m for m in _clipped_matches(hyp_ngrams, entities, self.max_order)]
        return ([hyp_len, closest_length(hyp_len, [length for _, length in per_reference])]
                + [c + b for c, b in zip(correct, bonus)] + [t + b for t, b in zip(total, bonus)])

    def _bleu(self, stats: Sequence[float]) -> float:
        from sacrebleu.metrics import BLEU

        order = self.max_order
        # compute_bleu annotates the n-gram counts as List[int]; the bonus makes them fractional, which its
        # arithmetic (divisions and logarithms only) takes as they are.
        result = BLEU.compute_bleu(list(stats[2:2 + order]), list(stats[2 + order:]),  # type: ignore[arg-type]
                                   int(stats[0]), int(stats[1]), smooth_method=self.smooth, max_ngram_order=order)
        return unit_score(result.score)

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        return self._bleu(self.statistics(hypothesis, references, question))

    def corpus_score(self, hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                     questions: Sequence[QuestionInfo | None] | None = None, *,
                     progress: Progress | None = None) -> MetricScore:
        questions = check_corpus(hypotheses, references_lists, questions)
        if not hypotheses:
            return MetricScore(self.name, 0.0, 0)
        sums = [0.0] * (2 + 2 * self.max_order)
        for hypothesis, references, question in zip(hypotheses, references_lists, questions):
            for k, value in enumerate(self.statistics(hypothesis, references, question)):
                sums[k] += value
            if progress is not None:
                progress(1)
        return MetricScore(self.name, self._bleu(sums), len(hypotheses))


def _max_counts(counters: Iterable[Counter[tuple[str, ...]]]) -> dict[tuple[str, ...], int]:
    """For each n-gram, the most times it appears in any single one of the counters."""
    best: dict[tuple[str, ...], int] = {}
    for counter in counters:
        for ngram, count in counter.items():
            if count > best.get(ngram, 0):
                best[ngram] = count
    return best


def _clipped_matches(hyp_ngrams: Counter[tuple[str, ...]], ref_ngrams: Mapping[tuple[str, ...], int],
                     max_order: int) -> list[float]:
    matches = [0.0] * max_order
    for ngram, count in hyp_ngrams.items():
        available = ref_ngrams.get(ngram)
        if available:
            matches[len(ngram) - 1] += min(count, available)
    return matches


def closest_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to the hypothesis length, the shorter on a tie (as BLEU does)."""
    return min(ref_lens, key=lambda length: (abs(hyp_len - length), length))
