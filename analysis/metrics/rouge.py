"""ROUGE-L: the F-measure of the longest common subsequence (Lin 2004).

With several references the MS MARCO convention applies (the coco-caption scorer its evaluation
uses, and DuReader's): precision and recall are each the maximum over the references, and F is
computed from those two maxima. γ (``gamma``, 1.2 by default) is Lin's β: F = (1+γ²)PR / (R+γ²P).
The corpus score is the mean of the sentence scores.
"""
from __future__ import annotations

from collections.abc import Sequence

from analysis.metrics.base import (
    Metric,
    QuestionInfo,
    check_references,
    f_measure,
    number,
)
from analysis.metrics.lcs import lcs_length
from analysis.metrics.tokenize import DEFAULT_TOKENIZATION


class RougeL(Metric):
    """ROUGE-L F-measure with recall weight ``gamma``."""

    name = "rouge-l"
    label = "ROUGE-L"

    def __init__(self, gamma: float = 1.2, lowercase: bool = False,
                 tokenization: str = DEFAULT_TOKENIZATION) -> None:
        self.gamma = gamma
        self.lowercase = lowercase
        self.tokenization = tokenization

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "gamma": number(self.gamma), "refs": "max-p-max-r"}

    def precision_recall(self, hypothesis: str, references: Sequence[str]) -> tuple[float, float]:
        """Maximum LCS precision and maximum LCS recall over the references."""
        check_references(references)
        hyp = self.tokens(hypothesis)
        best_p = best_r = 0.0
        for reference in references:
            ref = self.tokens(reference)
            common = lcs_length(hyp, ref)
            if common:
                best_p = max(best_p, common / len(hyp))
                best_r = max(best_r, common / len(ref))
        return best_p, best_r

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        precision, recall = self.precision_recall(hypothesis, references)
        return f_measure(precision, recall, self.gamma)
