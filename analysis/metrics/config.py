"""Metrics configured from one set of settings (what the command line offers), each getting its own.

α, β apply to the adapted metrics and γ to the ROUGE-L family only (METEOR's α, β, γ are its own
parameters and keep their defaults); the tokenisation to every metric; the sacrebleu tokenizer and
the smoothing to plain BLEU (the smoothing to the adapted BLEU too). Exact match and F1 keep the
SQuAD normalisation on ``words`` tokens.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analysis.metrics import METRICS, Metric
from analysis.metrics.adapted import (
    LABELS_FROM_DATA,
    SCORER,
    AdaptedBleu,
    AdaptedRougeL,
)
from analysis.metrics.bleu import Bleu
from analysis.metrics.meteor import Meteor, MeteorWordNet
from analysis.metrics.rouge import RougeL
from analysis.metrics.tokenize import DEFAULT_TOKENIZATION


@dataclass(frozen=True)
class MetricSettings:
    """Everything a run of the metrics may choose; the defaults are the definitions'."""

    alpha: float = SCORER["alpha"]
    beta: float = SCORER["beta"]
    gamma: float = SCORER["gamma"]
    tokenization: str = DEFAULT_TOKENIZATION
    bleu_tokenize: str | None = None
    smooth: str = "none"
    labels: str = LABELS_FROM_DATA


def configure(names: Sequence[str], settings: MetricSettings) -> list[Metric]:
    """The named metrics (registry names) set up with ``settings``; ``KeyError`` for an unknown name."""
    metrics: list[Metric] = []
    for name in names:
        cls = METRICS[name]
        cls.check_available()
        if issubclass(cls, AdaptedRougeL):
            metric: Metric = cls(alpha=settings.alpha, beta=settings.beta, gamma=settings.gamma,
                                 tokenization=settings.tokenization, labels=settings.labels)
        elif issubclass(cls, AdaptedBleu):
            metric = cls(alpha=settings.alpha, beta=settings.beta, tokenization=settings.tokenization,
                         smooth=settings.smooth, labels=settings.labels)
        elif issubclass(cls, RougeL):
            metric = cls(gamma=settings.gamma, tokenization=settings.tokenization)
        elif issubclass(cls, Bleu):
            metric = cls(tokenize=settings.bleu_tokenize or settings.tokenization, smooth=settings.smooth)
        elif issubclass(cls, Meteor):
            metric = cls(tokenization=settings.tokenization)
        elif issubclass(cls, MeteorWordNet):
            metric = cls()
            metric.tokenization = settings.tokenization
        else:  # exact match and F1: SQuAD normalisation, always on ``words`` tokens
            metric = cls()
        metrics.append(metric)
    return metrics
