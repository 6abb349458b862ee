"""What every automatic metric shares: the interface, the score object and the question annotations.

Metrics follow sacrebleu's shape: a small class configured in its constructor, with
``sentence_score(hypothesis, references) -> float`` and
``corpus_score(hypotheses, references_lists) -> MetricScore``. Every score lies in [0, 1].
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar, Mapping, Sequence

from analysis.text import tokenize


@dataclass(frozen=True)
class QuestionInfo:
    """What a test set says about a question beyond its references (used by the adapted metrics).

    ``answer_type`` is ``description``, ``yes_no`` or ``entity`` (SPEC §1); ``yes_no_label`` is the
    gold opinion of the references (``Yes``, ``No``, ``Depends``); ``gold_entities`` the gold entity list.
    """

    answer_type: str | None = None
    yes_no_label: str | None = None
    gold_entities: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricScore:
    """A metric's score over a corpus (one system's answers), with its parts where it has any."""

    metric: str
    score: float
    n: int
    details: Mapping[str, float] = field(default_factory=dict)


class MetricUnavailable(RuntimeError):
    """An optional metric backend is not installed; the message says what to install."""


class Metric(ABC):
    """An automatic metric comparing a hypothesis (system answer) with one or more references."""

    name: ClassVar[str]
    """Registry key, e.g. ``rouge-l``."""
    label: ClassVar[str]
    """Name as printed in tables, e.g. ``ROUGE-L``."""

    @classmethod
    def check_available(cls) -> None:
        """Raise :class:`MetricUnavailable` when an optional backend is missing (offline metrics never do)."""

    @abstractmethod
    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        """Score one hypothesis against its references."""

    def corpus_score(self, hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                     questions: Sequence[QuestionInfo | None] | None = None) -> MetricScore:
        """Score a corpus; by default the mean of the sentence scores."""
        questions = check_corpus(hypotheses, references_lists, questions)
        total = 0.0
        for hypothesis, references, question in zip(hypotheses, references_lists, questions):
            total += self.sentence_score(hypothesis, references, question)
        n = len(hypotheses)
        return MetricScore(self.name, total / n if n else 0.0, n)


def check_corpus(hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                 questions: Sequence[QuestionInfo | None] | None) -> Sequence[QuestionInfo | None]:
    """Check that the corpus is aligned and every hypothesis has a reference; return the questions."""
    if len(hypotheses) != len(references_lists):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references_lists)} reference lists")
    if questions is None:
        return [None] * len(hypotheses)
    if len(questions) != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(questions)} question annotations")
    return questions


def check_references(references: Sequence[str]) -> None:
    """A hypothesis needs at least one reference; a bare string is a common mistake."""
    if isinstance(references, str):
        raise TypeError("references must be a sequence of strings, not one string")
    if not references:
        raise ValueError("at least one reference is needed")


def tokens(text: str, lowercase: bool = False) -> list[str]:
    """The project's tokens (CJK/Thai characters, whitespace words elsewhere), optionally lowercased."""
    return tokenize(text.lower() if lowercase else text)


def f_measure(precision: float, recall: float, gamma: float) -> float:
    """F = (1 + γ²)·P·R / (R + γ²·P): γ > 1 weighs recall more (Lin 2004 calls γ β)."""
    if precision <= 0 or recall <= 0:
        return 0.0
    return (1 + gamma**2) * precision * recall / (recall + gamma**2 * precision)
