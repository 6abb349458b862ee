"""ROUGE-L and BLEU adapted to yes/no and entity questions (Yang et al. 2018).

Plain n-gram overlap barely moves when a yes/no answer gets the opinion wrong or an entity answer
misses the entities, so both metrics add a bonus to the matched and the total counts:

- yes/no questions (bonus weight α): when the hypothesis' opinion label equals the gold label,
  ROUGE-L adds α·LCS(hyp, ref) and BLEU adds α·(clipped n-gram matches) to numerator and denominator;
- entity questions (bonus weight β): ROUGE-L adds β·(tokens of the gold entities the hypothesis
  contains as contiguous token runs); BLEU adds β·(hypothesis n-grams matched against the gold
  entities' n-grams, clipped by the most frequent entity).

So ROUGE-L P = (LCS + B)/(|hyp| + B), R = (LCS + B)/(|ref| + B) with P and R maximised over the
references (as for ``RougeL``); BLEU's modified precision p_n = (matches + B_n)/(n-grams + B_n). The
yes/no bonus applies when the question has a gold label and its answer type is ``yes_no`` (or
unknown); the entity bonus when it has gold entities and its type is ``entity`` (or unknown). With
the type unknown and both annotations present, ROUGE-L adds both bonuses and BLEU the yes/no one
(as DuReader's reference scorer does).

The platform stores answers as text only, so the hypothesis' opinion label is read from the answer
by ``infer_yes_no_label`` (its opening words); pass another ``label_hypothesis`` to change that.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

from analysis.metrics.base import (
    Metric,
    MetricScore,
    QuestionInfo,
    check_corpus,
    check_references,
    f_measure,
    tokens,
)
from analysis.metrics.lcs import lcs_length

YES, NO, DEPENDS = "yes", "no", "depends"

_OPENINGS = (
    (DEPENDS, re.compile(r"^\W*(it\s+depends|depends|depending|maybe|sometimes|看情况|视情况|取决于|不一定)",
                         re.IGNORECASE)),
    (YES, re.compile(r"^\W*(yes|yeah|yep|sure|correct|true|是的|是|对|可以|能|会)(?![a-z])", re.IGNORECASE)),
    (NO, re.compile(r"^\W*(no|nope|not|never|false|不是|不|没有|没|否)(?![a-z])", re.IGNORECASE)),
)


def infer_yes_no_label(text: str) -> str | None:
    """``yes``, ``no`` or ``depends`` from an answer's opening words (English or Chinese), else None."""
    for label, pattern in _OPENINGS:
        if pattern.match(text):
            return label
    return None


def _same_label(hypothesis_label: str | None, gold_label: str | None) -> bool:
    return (hypothesis_label is not None and gold_label is not None
            and hypothesis_label.strip().lower() == gold_label.strip().lower())


def _yes_no_applies(question: QuestionInfo | None) -> bool:
    return (question is not None and question.yes_no_label is not None
            and question.answer_type in (None, "yes_no"))


def _entity_applies(question: QuestionInfo | None) -> bool:
    return (question is not None and bool(question.gold_entities)
            and question.answer_type in (None, "entity"))


def _contains_run(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    width = len(needle)
    return width > 0 and any(list(haystack[i:i + width]) == list(needle)
                             for i in range(len(haystack) - width + 1))


class AdaptedRougeL(Metric):
    """ROUGE-L with the yes/no bonus α and the entity bonus β of Yang et al. (2018)."""

    name = "rouge-l-adapted"
    label = "ROUGE-L (adapted)"

    def __init__(self, alpha: float = 1.0, beta: float = 1.0, gamma: float = 1.2, lowercase: bool = False,
                 label_hypothesis: Callable[[str], str | None] = infer_yes_no_label) -> None:
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.lowercase = lowercase
        self.label_hypothesis = label_hypothesis

    def precision_recall(self, hypothesis: str, references: Sequence[str],
                         question: QuestionInfo | None = None) -> tuple[float, float]:
        """Adapted LCS precision and recall, each maximised over the references."""
        check_references(references)
        hyp = tokens(hypothesis, self.lowercase)
        yes_no = _yes_no_applies(question) and _same_label(self.label_hypothesis(hypothesis),
                                                          question.yes_no_label)
        entity_bonus = 0.0
        if _entity_applies(question):
            entity_bonus = self.beta * sum(
                len(entity) for entity in (tokens(e, self.lowercase) for e in question.gold_entities)
                if _contains_run(hyp, entity))
        best_p = best_r = 0.0
        for reference in references:
            ref = tokens(reference, self.lowercase)
            common = lcs_length(hyp, ref)
            bonus = entity_bonus + (self.alpha * common if yes_no else 0.0)
            if common + bonus > 0:
                best_p = max(best_p, (common + bonus) / (len(hyp) + bonus))
                best_r = max(best_r, (common + bonus) / (len(ref) + bonus))
        return best_p, best_r

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        precision, recall = self.precision_recall(hypothesis, references, question)
        return f_measure(precision, recall, self.gamma)


class AdaptedBleu(Metric):
    """BLEU-4 with the yes/no bonus α and the entity bonus β of Yang et al. (2018).

    With no bonus (α = β = 0, or a description question) it equals ``Bleu4`` exactly: same tokens,
    same sufficient statistics and sacrebleu's own formula (``BLEU.compute_bleu``).
    """

    name = "bleu-4-adapted"
    label = "BLEU-4 (adapted)"

    def __init__(self, alpha: float = 1.0, beta: float = 1.0, max_order: int = 4, lowercase: bool = False,
                 label_hypothesis: Callable[[str], str | None] = infer_yes_no_label) -> None:
        self.alpha, self.beta = alpha, beta
        self.max_order = max_order
        self.lowercase = lowercase
        self.label_hypothesis = label_hypothesis

    def _ngrams(self, text: str):
        from sacrebleu.metrics.helpers import extract_all_word_ngrams

        return extract_all_word_ngrams(" ".join(tokens(text, self.lowercase)), 1, self.max_order)

    def statistics(self, hypothesis: str, references: Sequence[str],
                   question: QuestionInfo | None = None) -> list[float]:
        """[hyp length, closest ref length, matches per order..., n-grams per order...], bonus included."""
        check_references(references)
        hyp_ngrams, hyp_len = self._ngrams(hypothesis)
        ref_ngrams: dict[tuple[str, ...], int] = {}
        ref_lens = []
        for reference in references:
            ngrams, length = self._ngrams(reference)
            ref_lens.append(length)
            for ngram, count in ngrams.items():
                ref_ngrams[ngram] = max(ref_ngrams.get(ngram, 0), count)
        correct = _clipped_matches(hyp_ngrams, ref_ngrams, self.max_order)
        total = [0.0] * self.max_order
        for ngram, count in hyp_ngrams.items():
            total[len(ngram) - 1] += count
        bonus = [0.0] * self.max_order
        if _yes_no_applies(question) and _same_label(self.label_hypothesis(hypothesis), question.yes_no_label):
            bonus = [self.alpha * c for c in correct]
        elif _entity_applies(question):
            entity_ngrams: dict[tuple[str, ...], int] = {}
            for entity in question.gold_entities:
                for ngram, count in self._ngrams(entity)[0].items():
                    entity_ngrams[ngram] = max(entity_ngrams.get(ngram, 0), count)
            bonus = [self.beta * m for m in _clipped_matches(hyp_ngrams, entity_ngrams, self.max_order)]
        return ([hyp_len, closest_length(hyp_len, ref_lens)]
                + [c + b for c, b in zip(correct, bonus)] + [t + b for t, b in zip(total, bonus)])

    def _bleu(self, stats: Sequence[float], sentence: bool) -> float:
        from sacrebleu.metrics import BLEU

        order = self.max_order
        result = BLEU.compute_bleu(list(stats[2:2 + order]), list(stats[2 + order:]), int(stats[0]), int(stats[1]),
                                   smooth_method="exp", effective_order=sentence, max_ngram_order=order)
        return result.score / 100

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        return self._bleu(self.statistics(hypothesis, references, question), sentence=True)

    def corpus_score(self, hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                     questions: Sequence[QuestionInfo | None] | None = None) -> MetricScore:
        questions = check_corpus(hypotheses, references_lists, questions)
        if not hypotheses:
            return MetricScore(self.name, 0.0, 0)
        sums = [0.0] * (2 + 2 * self.max_order)
        for hypothesis, references, question in zip(hypotheses, references_lists, questions):
            for k, value in enumerate(self.statistics(hypothesis, references, question)):
                sums[k] += value
        return MetricScore(self.name, self._bleu(sums, sentence=False), len(hypotheses))


def _clipped_matches(hyp_ngrams, ref_ngrams, max_order: int) -> list[float]:
    matches = [0.0] * max_order
    for ngram, count in hyp_ngrams.items():
        available = ref_ngrams.get(ngram)
        if available:
            matches[len(ngram) - 1] += min(count, available)
    return matches


def closest_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to the hypothesis length, the shorter on a tie (as BLEU does)."""
    return min(ref_lens, key=lambda length: (abs(hyp_len - length), length))
