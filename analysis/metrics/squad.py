"""Exact match and token F1 with SQuAD-style answer normalisation.

Normalisation as in the SQuAD v1.1 evaluation script (lower case, drop punctuation, drop the
articles a/an/the, collapse whitespace), extended to every Unicode punctuation mark so that Chinese
and Japanese punctuation goes too; tokens then come from the metrics' ``words`` tokenisation, so
Chinese, Japanese and Thai (and digits and letters written inside them) count characters. Both take the maximum over the
references.
"""
from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import cache

from analysis.metrics.base import Metric, QuestionInfo, check_references
from analysis.metrics.tokenize import word_tokens

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> list[str]:
    """SQuAD normalisation, returned as ``words`` tokens (CJK/Thai text as characters)."""
    text = text.lower().translate(_punctuation_table())
    return word_tokens(_ARTICLES.sub(" ", text))


@cache
def _punctuation_table() -> dict[int, None]:
    """Every Unicode punctuation character (general category P*), mapped to deletion."""
    return dict.fromkeys(
        i for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)).startswith("P")
    )


class _NormalisedMatch(Metric):
    """Compares normalised token lists; the best reference counts."""

    lowercase = True

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "norm": "squad+unicode-punct"}

    @staticmethod
    def compare(hyp: list[str], ref: list[str]) -> float:
        raise NotImplementedError

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        check_references(references)
        hyp = normalize_answer(hypothesis)
        return max(self.compare(hyp, normalize_answer(reference)) for reference in references)


class ExactMatch(_NormalisedMatch):
    """1 when the normalised hypothesis equals a normalised reference, else 0."""

    name = "exact-match"
    label = "EM"

    @staticmethod
    def compare(hyp: list[str], ref: list[str]) -> float:
        return float(hyp == ref)


class TokenF1(_NormalisedMatch):
    """Harmonic mean of token precision and recall (bag of normalised tokens), best reference."""

    name = "f1"
    label = "F1"

    @staticmethod
    def compare(hyp: list[str], ref: list[str]) -> float:
        return _token_f1(hyp, ref)


def _token_f1(hyp: list[str], ref: list[str]) -> float:
    if not hyp or not ref:
        return float(hyp == ref)
    common = sum((Counter(hyp) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision = common / len(hyp)
    recall = common / len(ref)
    return 2 * precision * recall / (precision + recall)
