"""Score every system of a test set with a set of metrics: the corpora in, a system × metric table out."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from analysis import csv_safety
from analysis.metrics.adapted import infer_yes_no_label
from analysis.metrics.base import Metric, MetricScore, QuestionInfo
from da_core.errors import InputError


@dataclass(frozen=True)
class SystemCorpus:
    """One system's answers, aligned with the references and annotations of their questions."""

    system: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    questions: tuple[QuestionInfo, ...]
    guessed: int = 0
    """Yes/no answers whose label was guessed from the text (only with the opt-in fallback)."""
    unlabelled: int = 0
    """Answers to yes/no questions with no label (no yes/no bonus for them)."""
    ids: tuple[str, ...] = ()
    """The question id of each answer, in order (``system_corpus`` sets them)."""


@dataclass(frozen=True)
class SystemScores:
    """Corpus scores by metric and system; ``labels`` gives each metric's printed name."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    labels: Mapping[str, str]
    scores: Mapping[str, Mapping[str, MetricScore]]
    signatures: Mapping[str, str] = field(default_factory=dict)

    def signature_lines(self) -> list[str]:
        """``metric: signature`` for every metric that has one, in table order."""
        return [f"{m}: {self.signatures[m]}" for m in self.metrics if m in self.signatures]

    def value(self, metric: str, system: str) -> float:
        return self.scores[metric][system].score

    def by_metric(self) -> dict[str, dict[str, float]]:
        """metric → system → score, the shape ``validate_metrics`` takes."""
        return {m: {s: self.value(m, s) for s in self.systems} for m in self.metrics}

    def to_markdown(self, digits: int = 4) -> str:
        lines = ["| System | " + " | ".join(self.labels[m] for m in self.metrics) + " |",
                 "|---|" + "---:|" * len(self.metrics)]
        for system in self.systems:
            lines.append(f"| {_cell(system)} | "
                         + " | ".join(f"{self.value(m, system):.{digits}f}" for m in self.metrics) + " |")
        signatures = self.signature_lines()
        if signatures:
            lines += ["", "Signatures:", ""] + [f"- `{line}`" for line in signatures]
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        """A plain CSV: header ``system,<metric names>`` first, then one row per system (full precision).

        The signatures go beside it (``signatures_json``), as sacrebleu keeps them out of its scores;
        ``read_metric_scores`` reads it.
        """
        buffer = io.StringIO()
        writer = csv_safety.writer(buffer)
        writer.writerow(["system", *self.metrics])
        for system in self.systems:
            writer.writerow([system, *(repr(self.value(m, system)) for m in self.metrics)])
        return buffer.getvalue()

    def signatures_json(self) -> str:
        """``{"metric": "signature", ...}``: what a CSV of the scores was computed with, for a file beside it."""
        signed = {m: self.signatures[m] for m in self.metrics if m in self.signatures}
        return json.dumps({"signatures": signed}, indent=2, ensure_ascii=False) + "\n"

    def to_json(self) -> str:
        document = {m: {s: {"score": self.scores[m][s].score, "n": self.scores[m][s].n,
                            **dict(self.scores[m][s].details)} for s in self.systems} for m in self.metrics}
        return json.dumps({"systems": list(self.systems), "labels": dict(self.labels),
                           "signatures": {m: self.signatures[m] for m in self.metrics if m in self.signatures},
                           "scores": document}, indent=2, ensure_ascii=False) + "\n"


def score_systems(corpora: Sequence[SystemCorpus], metrics: Sequence[Metric],
                  progress: Callable[[int], None] | None = None) -> SystemScores:
    """Corpus score of every metric for every system; ``progress`` hears how many answers were scored, as
    they are (a metric whose corpus score is not a mean of answers' scores tells of them all at its end)."""
    scores: dict[str, dict[str, MetricScore]] = {m.name: {} for m in metrics}
    for corpus in corpora:
        for metric in metrics:
            scores[metric.name][corpus.system] = metric.corpus_score(corpus.hypotheses, corpus.references,
                                                                     corpus.questions, progress=progress)
    return SystemScores(systems=tuple(c.system for c in corpora), metrics=tuple(m.name for m in metrics),
                        labels={m.name: m.label for m in metrics}, scores=scores,
                        signatures={m.name: m.signature() for m in metrics})


def read_metric_scores(text: str, file: str) -> dict[str, dict[str, float]]:
    """metric → system → score from the CSV (``SystemScores.to_csv``) or the JSON (``to_json``) of ``metrics``.

    A CSV written before the signatures moved beside it begins with ``# metric: signature`` lines: skipped.
    """
    if text.lstrip().startswith("{"):
        return _read_scores_json(text, file)
    rows = list(csv.reader(io.StringIO(text)))
    skipped = 0
    while skipped < len(rows) and rows[skipped] and rows[skipped][0].startswith("#"):
        skipped += 1
    rows = rows[skipped:]
    if not rows or not rows[0] or rows[0][0].strip().lower() != "system" or len(rows[0]) < 2:
        raise InputError("expected a header 'system,<metric>,...'", file=file, line=skipped + 1)
    metrics = [m.strip() for m in rows[0][1:]]
    table: dict[str, dict[str, float]] = {m: {} for m in metrics}
    for number, row in enumerate(rows[1:], start=skipped + 2):
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


def _read_scores_json(text: str, file: str) -> dict[str, dict[str, float]]:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise InputError(f"not valid JSON: {error}", file=file) from None
    scores = document.get("scores") if isinstance(document, dict) else None
    if not isinstance(scores, dict):
        raise InputError("expected the JSON that 'metrics --out FILE.json' writes (a 'scores' object)", file=file,
                         field="scores")
    table: dict[str, dict[str, float]] = {}
    for metric, by_system in scores.items():
        for system, entry in (by_system.items() if isinstance(by_system, dict) else ()):
            value = entry.get("score") if isinstance(entry, dict) else None
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise InputError("not a number", file=file, field=f"scores.{metric}.{system}.score")
            table.setdefault(metric, {})[system] = float(value)
    return table


def read_metric_signatures(text: str) -> dict[str, str]:
    """metric → signature from a signatures file or the JSON of ``metrics`` (``{"signatures": {...}}``), or from
    the ``# metric: signature`` lines that begin a CSV written before the signatures moved beside it."""
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError:
            return {}
        found = document.get("signatures") if isinstance(document, dict) else None
        return {str(m): str(s) for m, s in found.items()} if isinstance(found, dict) else {}
    signatures: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        metric, _, signature = line[1:].strip().partition(": ")
        if signature:
            signatures[metric] = signature
    return signatures


def signatures_path(csv_path: Path) -> Path:
    """Where the signatures of a scores CSV are written: ``scores.csv`` → ``scores.signatures.json``."""
    return csv_path.with_name(csv_path.stem + ".signatures.json")


@dataclass(frozen=True)
class QuestionEntry:
    """A question as the metrics need it: its id, references and annotations."""

    id: str
    references: tuple[str, ...]
    info: QuestionInfo


def system_corpus(system: str, answers: Mapping[str, str], questions: Sequence[QuestionEntry], *,
                  is_human: bool = False, labels: Mapping[str, str | None] | None = None,
                  guess_labels: bool = False) -> SystemCorpus:
    """Align a system's answers (question id → text) with the questions, in question order.

    ``labels`` are the yes/no labels the system gave with its answers (question id → label). With
    ``guess_labels`` an answer to a yes/no question without one gets a label guessed from its text
    (``infer_yes_no_label``), counted in ``guessed``; without it such an answer gets no yes/no bonus,
    counted in ``unlabelled``.

    A human system's answer is a reference itself (the second reference, imported as ``HUMAN``), so
    for it that one reference is left out and it is scored against the others, as SQuAD scores human
    performance: another reference with the same text still counts (two annotators who agree make a
    perfect answer). A question with that one reference only is scored against it as it is.
    """
    hypotheses, references, infos, ids = [], [], [], []
    guessed = unlabelled = 0
    for question in questions:
        if question.id not in answers:
            raise ValueError(f"system {system!r} has no answer for question {question.id!r}")
        answer = answers[question.id]
        refs, info = question.references, question.info
        own = _own_reference(refs, answer) if is_human else None
        if own is not None:
            kept = [k for k in range(len(refs)) if k != own]
            refs = tuple(refs[k] for k in kept)
            info = replace(info, reference_labels=tuple(info.reference_label(k) for k in kept), yes_no_label=None)
        label = (labels or {}).get(question.id)
        if label is None and info.bonus_type == "yes_no":
            if guess_labels:
                label = infer_yes_no_label(answer)
                guessed += label is not None
            unlabelled += label is None
        if label is not None:
            info = replace(info, answer_label=label)
        hypotheses.append(answer)
        references.append(refs)
        infos.append(info)
        ids.append(question.id)
    return SystemCorpus(system, tuple(hypotheses), tuple(references), tuple(infos), guessed, unlabelled, tuple(ids))


def _own_reference(references: Sequence[str], answer: str) -> int | None:
    """Which reference a human system's answer is: the second when it has that text (``import human``),
    else the first with its text; None when no reference has it or it is the only reference."""
    if len(references) < 2:
        return None
    if references[1] == answer:
        return 1
    return next((k for k, text in enumerate(references) if text == answer), None)


def _cell(text: str) -> str:
    """A system name as a Markdown table cell: pipes and line breaks escaped."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
