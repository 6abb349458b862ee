"""Score every system of a test set with a set of metrics: the corpora in, a system × metric table out."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from analysis import csv_safety
from analysis.errors import InputError
from analysis.metrics.base import Metric, MetricScore, QuestionInfo


@dataclass(frozen=True)
class SystemCorpus:
    """One system's answers, aligned with the references and annotations of their questions."""

    system: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    questions: tuple[QuestionInfo, ...]


@dataclass(frozen=True)
class SystemScores:
    """Corpus scores by metric and system; ``labels`` gives each metric's printed name."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    labels: Mapping[str, str]
    scores: Mapping[str, Mapping[str, MetricScore]]

    def value(self, metric: str, system: str) -> float:
        return self.scores[metric][system].score

    def by_metric(self) -> dict[str, dict[str, float]]:
        """metric → system → score, the shape ``validate_metrics`` takes."""
        return {m: {s: self.value(m, s) for s in self.systems} for m in self.metrics}

    def to_markdown(self, digits: int = 4) -> str:
        lines = ["| System | " + " | ".join(self.labels[m] for m in self.metrics) + " |",
                 "|---|" + "---:|" * len(self.metrics)]
        for system in self.systems:
            lines.append(f"| {system} | " + " | ".join(f"{self.value(m, system):.{digits}f}" for m in self.metrics)
                         + " |")
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        """Header ``system,<metric names>``; ``read_metric_scores`` reads it back."""
        buffer = io.StringIO()
        writer = csv_safety.writer(buffer)
        writer.writerow(["system", *self.metrics])
        for system in self.systems:
            writer.writerow([system, *(repr(self.value(m, system)) for m in self.metrics)])
        return buffer.getvalue()

    def to_json(self) -> str:
        document = {m: {s: {"score": self.scores[m][s].score, "n": self.scores[m][s].n,
                            **dict(self.scores[m][s].details)} for s in self.systems} for m in self.metrics}
        return json.dumps({"systems": list(self.systems), "labels": dict(self.labels), "scores": document},
                          indent=2, ensure_ascii=False) + "\n"


def score_systems(corpora: Sequence[SystemCorpus], metrics: Sequence[Metric],
                  progress: Callable[[int], None] | None = None) -> SystemScores:
    """Corpus score of every metric for every system; ``progress`` hears how many answers were scored."""
    scores: dict[str, dict[str, MetricScore]] = {m.name: {} for m in metrics}
    for corpus in corpora:
        for metric in metrics:
            scores[metric.name][corpus.system] = metric.corpus_score(corpus.hypotheses, corpus.references,
                                                                     corpus.questions)
            if progress is not None:
                progress(len(corpus.hypotheses))
    return SystemScores(systems=tuple(c.system for c in corpora), metrics=tuple(m.name for m in metrics),
                        labels={m.name: m.label for m in metrics}, scores=scores)


def read_metric_scores(text: str, file: str) -> dict[str, dict[str, float]]:
    """metric → system → score from the CSV that ``SystemScores.to_csv`` writes."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or not rows[0] or rows[0][0].strip().lower() != "system" or len(rows[0]) < 2:
        raise InputError("expected a header 'system,<metric>,...'", file=file, line=1)
    metrics = [m.strip() for m in rows[0][1:]]
    table: dict[str, dict[str, float]] = {m: {} for m in metrics}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(rows[0]):
            raise InputError(f"{len(row)} fields, the header has {len(rows[0])}", file=file, line=number)
        system = row[0].strip()
        for metric, cell in zip(metrics, row[1:]):
            try:
                table[metric][system] = float(cell)
            except ValueError:
                raise InputError(f"not a number: {cell!r}", file=file, line=number, field=metric) from None
    return table


@dataclass(frozen=True)
class QuestionEntry:
    """A question as the metrics need it: its id, references and annotations."""

    id: str
    references: tuple[str, ...]
    info: QuestionInfo


def system_corpus(system: str, answers: Mapping[str, str], questions: Sequence[QuestionEntry], *,
                  is_human: bool = False) -> SystemCorpus:
    """Align a system's answers (question id → text) with the questions, in question order.

    A human system's answer is a reference itself (e.g. the second reference imported as ``HUMAN``),
    so for it the references with exactly its text are left out; it is scored against the others.
    """
    hypotheses, references, infos = [], [], []
    for question in questions:
        if question.id not in answers:
            raise ValueError(f"system {system!r} has no answer for question {question.id!r}")
        answer = answers[question.id]
        refs = question.references
        if is_human:
            refs = tuple(r for r in refs if r != answer)
            if not refs:
                raise ValueError(f"human system {system!r}: question {question.id!r} has no reference "
                                 f"other than the human answer itself")
        hypotheses.append(answer)
        references.append(refs)
        infos.append(question.info)
    return SystemCorpus(system, tuple(hypotheses), tuple(references), tuple(infos))
