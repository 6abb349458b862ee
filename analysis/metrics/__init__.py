"""Automatic metrics for QA answers and their validation against human scores (docs/method.md §9).

Every metric is a small class (see ``base.Metric``); ``METRICS`` maps registry names to classes so
that the command line and the validation can iterate over them. ``DEFAULT_METRICS`` are the ones
that always run offline; ``meteor-wordnet`` is optional (NLTK with its WordNet data, installed
beforehand). Tokens come from ``analysis.metrics.tokenize`` (named in each metric's ``signature()``).
"""
from __future__ import annotations

from analysis.metrics.adapted import (
    PAPER,
    SCORER,
    AdaptedBleu,
    AdaptedRougeL,
    infer_yes_no_label,
)
from analysis.metrics.base import Metric, MetricScore, MetricUnavailable, QuestionInfo
from analysis.metrics.bleu import Bleu1, Bleu4
from analysis.metrics.meteor import Meteor, MeteorWordNet
from analysis.metrics.rouge import RougeL
from analysis.metrics.squad import ExactMatch, TokenF1, normalize_answer

METRICS: dict[str, type[Metric]] = {
    cls.name: cls
    for cls in (RougeL, Bleu1, Bleu4, Meteor, ExactMatch, TokenF1, AdaptedRougeL, AdaptedBleu, MeteorWordNet)
}
DEFAULT_METRICS: tuple[str, ...] = tuple(name for name in METRICS if name != MeteorWordNet.name)


def get_metric(name: str) -> Metric:
    """A metric with its default settings, by registry name (``KeyError`` lists the known names)."""
    try:
        cls = METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(METRICS)}") from None
    cls.check_available()
    return cls()


__all__ = [
    "AdaptedBleu", "AdaptedRougeL", "Bleu1", "Bleu4", "DEFAULT_METRICS", "ExactMatch", "METRICS", "Meteor",
    "MeteorWordNet", "Metric", "MetricScore", "MetricUnavailable", "QuestionInfo", "RougeL", "TokenF1",
    "PAPER", "SCORER", "get_metric", "infer_yes_no_label", "normalize_answer",
]
