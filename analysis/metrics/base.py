"""What every automatic metric shares: the interface, the score object and the question annotations.

Metrics follow sacrebleu's shape: a small class configured in its constructor, with
``sentence_score(hypothesis, references) -> float`` and
``corpus_score(hypotheses, references_lists) -> MetricScore``. Every score lies in [0, 1].
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import ClassVar

from analysis.metrics.tokenize import DEFAULT_TOKENIZATION, get_tokenizer

#: A progress callback: told how many more answers were scored.
Progress = Callable[[int], None]


@dataclass(frozen=True)
class QuestionInfo:
    """What the data says about a question and one answer to it (used by the adapted metrics).

    ``answer_type`` is ``description``, ``yes_no`` or ``entity`` (docs/method.md §1). ``reference_labels`` are the
    references' own yes/no labels (``yes``, ``no``, ``depends`` or None), in reference order;
    ``yes_no_label`` is a question-level label that stands for every reference without its own.
    ``gold_entities`` is the gold entity list (the union of the references' lists). ``answer_label``
    is the yes/no label the system gave with its answer (never guessed here).
    """

    answer_type: str | None = None
    yes_no_label: str | None = None
    gold_entities: tuple[str, ...] = ()
    reference_labels: tuple[str | None, ...] = ()
    answer_label: str | None = None

    def reference_label(self, position: int) -> str | None:
        """The yes/no label of the reference at ``position`` (its own, else the question's)."""
        own = self.reference_labels[position] if position < len(self.reference_labels) else None
        return own if own is not None else self.yes_no_label

    @property
    def has_yes_no_labels(self) -> bool:
        return self.yes_no_label is not None or any(label is not None for label in self.reference_labels)

    @property
    def bonus_type(self) -> str | None:
        """``yes_no``, ``entity`` or None: a question gets one kind of bonus, never both.

        The answer type decides; a question without one is yes/no when it has yes/no labels, else
        entity when it has gold entities (the official scorer's ``if yes/no ... elif entity``).
        """
        if self.answer_type == "yes_no" or (self.answer_type is None and self.has_yes_no_labels):
            return "yes_no"
        if self.answer_type == "entity" or (self.answer_type is None and self.gold_entities):
            return "entity"
        return None


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

    tokenization: str = DEFAULT_TOKENIZATION
    """Name of the tokenisation (``analysis.metrics.tokenize``), recorded in the signature."""
    lowercase: bool = False

    @classmethod  # noqa: B027  (an optional hook, not abstract: most metrics need nothing)
    def check_available(cls) -> None:
        """Raise :class:`MetricUnavailable` when an optional backend is missing (offline metrics never do)."""

    def tokens(self, text: str) -> list[str]:
        """The text's tokens under this metric's tokenisation and case setting."""
        return get_tokenizer(self.tokenization)(text.lower() if self.lowercase else text)

    def signature_fields(self) -> dict[str, str]:
        """What the score depends on besides the data; subclasses add their parameters."""
        return {"tok": self.tokenization, "case": "lc" if self.lowercase else "mixed"}

    def signature(self) -> str:
        """A sacrebleu-style signature: ``name|tok:words|case:mixed|...|version:X``."""
        fields = {**self.signature_fields(), "version": package_version()}
        return "|".join([self.name] + [f"{key}:{value}" for key, value in fields.items()])

    @abstractmethod
    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        """Score one hypothesis against its references."""

    def corpus_score(self, hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                     questions: Sequence[QuestionInfo | None] | None = None, *,
                     progress: Progress | None = None) -> MetricScore:
        """Score a corpus; by default the mean of the sentence scores. ``progress(k)`` hears of every k
        answers scored (a progress bar)."""
        questions = check_corpus(hypotheses, references_lists, questions)
        total = 0.0
        for hypothesis, references, question in zip(hypotheses, references_lists, questions):
            total += self.sentence_score(hypothesis, references, question)
            if progress is not None:
                progress(1)
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


def tokens(text: str, lowercase: bool = False, tokenization: str = DEFAULT_TOKENIZATION) -> list[str]:
    """A text's tokens under a named tokenisation (default ``words``), optionally lowercased."""
    return get_tokenizer(tokenization)(text.lower() if lowercase else text)


@cache
def package_version() -> str:
    """The installed da-platform version, which the signatures record."""
    try:
        return metadata.version("da-platform")
    except metadata.PackageNotFoundError:
        return "unknown"


def number(value: float) -> str:
    """A parameter as a signature prints it: ``2`` for 2.0, ``1.2`` for 1.2."""
    return f"{value:g}"


def f_measure(precision: float, recall: float, gamma: float) -> float:
    """F = (1 + γ²)·P·R / (R + γ²·P): γ > 1 weighs recall more (Lin 2004 calls γ β)."""
    if precision <= 0 or recall <= 0:
        return 0.0
    return (1 + gamma**2) * precision * recall / (recall + gamma**2 * precision)
