"""Automatic metrics as a command sets them up: the metrics chosen and their settings (a preset and its
overrides), the systems a validation keeps, and each answer's score written in the judge-scores format."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from analysis import csv_safety
from analysis.metrics import DEFAULT_METRICS, METRICS
from analysis.metrics.adapted import LABELS_FROM_DATA, LABELS_WITH_GUESS, PAPER, SCORER
from analysis.metrics.base import Metric
from analysis.metrics.config import MetricSettings, configure
from analysis.metrics.scoring import SystemCorpus

PER_ANSWER_FORMATS = (".jsonl", ".csv", ".tsv")
"""Endings of a file of each answer's score: the table formats ``import judge-scores`` reads."""


class UnknownMetric(ValueError):
    """A metric name the registry does not have (the message lists the ones there are)."""


class UnknownSystems(ValueError):
    """Systems named that have no human score (the message names the option and the systems there are)."""


def metric_settings(preset: str, alpha: float | None, beta: float | None, gamma: float | None, tokenization: str,
                    bleu_tokenize: str | None, bleu_smooth: str, guess_labels: bool) -> MetricSettings:
    """The metrics' settings: α, β, γ of the ``preset`` (``"paper"``, else the official scorer's) unless given,
    the tokenization, BLEU's tokenizer and smoothing, and whether yes/no labels may be guessed."""
    base = PAPER if preset == "paper" else SCORER
    return MetricSettings(alpha=base["alpha"] if alpha is None else alpha,
                          beta=base["beta"] if beta is None else beta,
                          gamma=base["gamma"] if gamma is None else gamma,
                          tokenization=tokenization, bleu_tokenize=bleu_tokenize, smooth=bleu_smooth,
                          labels=LABELS_WITH_GUESS if guess_labels else LABELS_FROM_DATA)


def chosen_metrics(names: Sequence[str], settings: MetricSettings | None = None) -> list[Metric]:
    """The metrics ``names`` (none: every offline metric) set up with ``settings``; :class:`UnknownMetric` for a
    name the registry does not have, ``MetricUnavailable`` for an optional backend that is not installed."""
    chosen = tuple(names) or DEFAULT_METRICS
    unknown = [n for n in chosen if n not in METRICS]
    if unknown:
        raise UnknownMetric(f"unknown metric {', '.join(unknown)}; choose from {', '.join(METRICS)}")
    return configure(chosen, settings or MetricSettings())


def select_systems(human: dict[str, float], systems: list[str] | None,
                   exclude: list[str] | None) -> dict[str, float]:
    """The human scores of the systems chosen by ``--systems`` (None: all) and not left out by
    ``--exclude-systems``; :class:`UnknownSystems` when either names a system without a human score."""
    for option, names in (("--systems", systems), ("--exclude-systems", exclude)):
        unknown = [s for s in names or () if s not in human]
        if unknown:
            raise UnknownSystems(f"{option}: no human score for {', '.join(unknown)} (systems: {', '.join(human)})")
    chosen = [s for s in human if (systems is None or s in systems) and s not in (exclude or ())]
    return {s: human[s] for s in chosen}


def write_per_answer(path: Path, corpora: Sequence[SystemCorpus],
                     metrics: Sequence[Metric]) -> list[tuple[Metric, Path]]:
    """Each answer's sentence score per metric (what ``simulate --truth metric:NAME`` scores, there x 100; a human
    system against the other references) in the judge-scores format: ``system``, ``id``, ``score``. One file per
    metric: ``path`` itself for one, else ``path`` with the metric's name before its ending. CSV cells that a
    spreadsheet would run as formulas are quoted (``analysis.csv_safety``): JSON lines keep every name as it is."""
    written = []
    for metric in metrics:
        target = path if len(metrics) == 1 else path.with_name(f"{path.stem}.{metric.name}{path.suffix}")
        rows = [(corpus.system, qid, float(metric.sentence_score(hypothesis, references, info)))
                for corpus in corpora
                for qid, hypothesis, references, info in zip(corpus.ids, corpus.hypotheses, corpus.references,
                                                             corpus.questions)]
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as stream:
            if target.suffix.lower() == ".jsonl":
                stream.writelines(json.dumps({"system": system, "id": qid, "score": score}, ensure_ascii=False)
                                  + "\n" for system, qid, score in rows)
            else:
                writer = csv_safety.writer(stream, delimiter="," if target.suffix.lower() == ".csv" else "\t")
                writer.writerow(("system", "id", "score"))
                writer.writerows((system, qid, repr(score)) for system, qid, score in rows)
        written.append((metric, target))
    return written
