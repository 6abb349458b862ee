"""Item-level metric validation beside the system-level one, and the warning for too few systems.

A system-level correlation has one point per system: with five systems one system moves r a lot and
its confidence interval spans most of [-1, 1]. The item-level correlation pairs each (system,
question) item's human z-score (mean over its ratings) with the metric's sentence score of that
answer: thousands of points, a different (noisier) question — how well the metric judges single
answers — reported next to the system-level one, not instead of it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from analysis.correlation import CorrelationResult, correlate
from analysis.metrics.base import Metric
from analysis.metrics.scoring import SystemCorpus

MIN_SYSTEMS = 8  # below this a system-level correlation is not a conclusion on its own


def pearson_interval(r: float, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Confidence interval of Pearson r by Fisher's z transformation (None for n <= 3 or |r| = 1)."""
    from scipy import stats

    if n <= 3 or not math.isfinite(r) or abs(r) >= 1:
        return None
    half = stats.norm.ppf(0.5 + level / 2) / math.sqrt(n - 3)
    z = math.atanh(r)
    return math.tanh(z - half), math.tanh(z + half)


def few_systems_warning(n_systems: int, best_r: float) -> str | None:
    """A warning when ``n_systems`` is too few for a system-level conclusion, else None."""
    if n_systems >= MIN_SYSTEMS:
        return None
    interval = pearson_interval(best_r, n_systems)
    spread = (f"; the 95 % confidence interval of r = {best_r:.3f} is [{interval[0]:.2f}, {interval[1]:.2f}]"
              if interval else "")
    return (f"only {n_systems} systems: a system-level correlation over {n_systems} points is not a reliable "
            f"conclusion (one system moves it a lot{spread}); read it with the item-level correlation, and "
            f"prefer {MIN_SYSTEMS} or more systems")


def item_level(corpora: Sequence[SystemCorpus], metrics: Sequence[Metric], question_ids: Sequence[str],
               item_z: Mapping[tuple[str, str], float]) -> dict[str, CorrelationResult]:
    """Per metric: correlation of sentence scores with human item z-scores over the items humans rated
    (``item_z``: (system, question id) -> z; ``question_ids`` in the corpora's order, for a corpus that does not
    name its own ``ids``: a human system that abstains answers fewer questions)."""
    found: dict[str, CorrelationResult] = {}
    for metric in metrics:
        human, machine = [], []
        for corpus in corpora:
            for qid, hypothesis, references, info in zip(corpus.ids or question_ids, corpus.hypotheses,
                                                         corpus.references, corpus.questions):
                z = item_z.get((corpus.system, qid))
                if z is not None and math.isfinite(z):
                    human.append(z)
                    machine.append(metric.sentence_score(hypothesis, references, info))
        if len(human) >= 3:
            found[metric.name] = correlate(machine, human)
    return found
