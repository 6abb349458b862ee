"""The true quality of each answer a campaign shows, for a rehearsal's simulated workers (0-100).

Two sources (``--truth`` of ``da-platform simulate``):

- ``metric:NAME``: an automatic metric of the answer against the question's references, times 100: any metric of
  ``analysis.metrics`` (``rouge-l``, ``bleu-4``, ``meteor``, ``f1``, the adapted ones ...; a HUMAN system scored
  against the other references, as ``da-platform metrics`` does) or ``chrf`` (sacrebleu's chrF, 0-100). Workers
  simulated this way judge like the metric, so the overlap signals cannot tell them from overlap bots.
- ``labels:FILE``: the researcher's own label of each answer: JSONL, CSV or TSV with the fields ``system``,
  ``id`` (the question id) and ``quality`` (a number from 0 to 100); every answer the campaign shows needs one.
  Errors name the file, the line and the field.

Checks follow from the answers' quality as in the demo (``profiles.slot_quality``): a damaged or meaning-changed
copy is 40 points worse, a REPEAT the same, a REF slot the reference's 95.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from da_core.errors import InputError
from da_platform.db.models import Answer, Campaign, Hit, Question, Slot, System

if TYPE_CHECKING:
    from analysis.metrics import QuestionInfo

CHRF = "chrf"


class TruthError(ValueError):
    """The truth cannot be had as asked (the message says why and what to give instead)."""


@dataclass(frozen=True)
class Truth:
    """Each shown answer's true quality, ``quality[system][question id]`` (0-100), and where it came from."""

    quality: dict[str, dict[str, float]]
    source: str  # e.g. "metric:rouge-l" or "labels:labels.jsonl"
    metric: str | None = None  # the metric's printed name when the truth is a metric

    def describe(self) -> str:
        """One line for the report: what the honest simulated workers judge by."""
        if self.metric is None:
            return f"each answer's quality from your labels ({self.source.removeprefix('labels:')})"
        return (f"each answer's {self.metric} against the references x 100: the simulated honest workers judge "
                f"like {self.metric}, so the overlap signals cannot tell them from overlap bots (their verdicts "
                "on real people may differ; give your own labels with --truth labels:FILE)")


def parse_truth(spec: str) -> tuple[str, str]:
    """``("metric", name)`` or ``("labels", file)`` from ``metric:NAME`` or ``labels:FILE``."""
    kind, _, value = spec.partition(":")
    if kind not in ("metric", "labels") or not value:
        raise TruthError(f"--truth {spec!r}: give metric:NAME (e.g. metric:rouge-l, metric:chrf) or labels:FILE")
    return kind, value


def metric_names() -> list[str]:
    """The metrics a truth may come from."""
    from analysis.metrics import METRICS

    return [*METRICS, CHRF]


def shown_answers(session: Session, campaign: Campaign) -> dict[tuple[str, str], int]:
    """Every (system, question id) the campaign's slots show, with its answer's id."""
    rows = session.execute(
        select(System.name, Question.external_id, Slot.answer_id).join(Hit, Hit.id == Slot.hit_id)
        .join(System, System.id == Slot.system_id).join(Question, Question.id == Slot.question_id)
        .where(Hit.campaign_id == campaign.id).distinct()).all()
    return {(system, question): answer for system, question, answer in rows}


def metric_scorer(name: str) -> tuple[str, Callable[[str, Sequence[str], QuestionInfo], float]]:
    """The metric ``name``'s printed name and its score of one answer x 100 (chrF as it is); a ``TruthError`` for
    an unknown or unavailable metric, so that ``--truth`` can be checked before any work."""
    from analysis.metrics import MetricUnavailable
    from analysis.metrics.config import MetricSettings, configure

    if name not in metric_names():
        raise TruthError(f"--truth metric:{name}: no such metric (choose from {', '.join(metric_names())})")
    if name == CHRF:
        def chrf(hypothesis: str, references: Sequence[str], info: QuestionInfo) -> float:  # (no annotations)
            return float(_chrf().sentence_score(hypothesis, list(references)).score)

        return "chrF", chrf
    try:
        [metric] = configure([name], MetricSettings())
    except MetricUnavailable as error:
        raise TruthError(str(error)) from None

    def score(hypothesis: str, references: Sequence[str], info: QuestionInfo) -> float:
        return 100 * metric.sentence_score(hypothesis, references, info)

    return metric.label, score


def metric_truth(session: Session, campaign: Campaign, name: str,
                 advance: Callable[[int], None] | None = None) -> Truth:
    """Each shown answer's ``name`` score against its question's references, x 100 (chrF: as it is)."""
    from analysis.metrics.scoring import system_corpus

    label, score = metric_scorer(name)
    shown = shown_answers(session, campaign)
    entries = _question_entries(session, campaign, {question for _, question in shown})
    answers = session.execute(select(Answer, System.name, System.is_human, Question.external_id)
                              .join(System, System.id == Answer.system_id)
                              .join(Question, Question.id == Answer.question_id)
                              .where(Answer.id.in_(set(shown.values())))).all()
    by_system: dict[str, tuple[bool, dict[str, Answer]]] = {}
    for answer, system, is_human, question in answers:
        by_system.setdefault(system, (is_human, {}))[1][question] = answer
    quality: dict[str, dict[str, float]] = defaultdict(dict)
    for system, (is_human, given) in sorted(by_system.items()):
        questions = [entries[q] for q in sorted(given)]
        corpus = system_corpus(system, {q: a.text for q, a in given.items()}, questions, is_human=is_human,
                               labels={q: a.yes_no_label for q, a in given.items()})
        for entry, hypothesis, references, info in zip(questions, corpus.hypotheses, corpus.references,
                                                       corpus.questions):
            if not references:
                raise TruthError(f"question {entry.id!r} has no reference, so {label} cannot score its answers: "
                                 "give each answer's quality with --truth labels:FILE")
            quality[system][entry.id] = float(score(hypothesis, references, info))
            if advance is not None:
                advance(1)
    return Truth(dict(quality), f"metric:{name}", label)


@cache
def _chrf():
    """sacrebleu's chrF with its defaults (character 6-grams, β = 2), as ``careful_rules.judge``."""
    from sacrebleu.metrics import CHRF as ChrF

    return ChrF()


def _question_entries(session: Session, campaign: Campaign, ids: set[str]):
    """The metrics' view of the questions with these ids: references and annotations."""
    from analysis.metrics import QuestionInfo
    from analysis.metrics.scoring import QuestionEntry

    questions = session.scalars(select(Question).where(Question.test_set_id == campaign.test_set_id,
                                                       Question.external_id.in_(ids))
                                .options(selectinload(Question.references))).all()
    return {q.external_id: QuestionEntry(q.external_id, tuple(r.text for r in q.references), QuestionInfo(
        answer_type=q.answer_type.value if q.answer_type else None, yes_no_label=q.yes_no_label,
        gold_entities=tuple(q.gold_entities or ()), reference_labels=tuple(r.yes_no_label for r in q.references)))
        for q in questions}


def labels_truth(session: Session, campaign: Campaign, path: Path) -> Truth:
    """Each shown answer's quality from a labels file (see the module docstring); every shown answer needs one."""
    from hit_builder.judge_scores import parse_answer_values
    from hit_builder.readers import read_table

    table = read_table(path)
    records = parse_answer_values(table, value="quality", kind="a quality-labels file", bounds=(0.0, 100.0))
    systems = set(session.scalars(select(System.name).where(System.test_set_id == campaign.test_set_id)))
    questions = set(session.scalars(select(Question.external_id).where(Question.test_set_id == campaign.test_set_id)))
    quality: dict[str, dict[str, float]] = defaultdict(dict)
    for record in records:
        if record.system not in systems:
            raise InputError(f"no system {record.system!r} in test set {campaign.test_set.name!r} (systems: "
                             f"{', '.join(sorted(systems))})", file=table.file, line=record.line, field="system")
        if record.question not in questions:
            raise InputError(f"no question {record.question!r} in test set {campaign.test_set.name!r}",
                             file=table.file, line=record.line, field="id")
        quality[record.system][record.question] = record.score
    missing = sorted(pair for pair in shown_answers(session, campaign) if pair[1] not in quality.get(pair[0], {}))
    if missing:
        examples = "; ".join(f"system {s!r}, id {q!r}" for s, q in missing[:3])
        raise InputError(f"no quality for {len(missing)} of the answers campaign {campaign.name!r} shows "
                         f"(e.g. {examples}): every answer the campaign shows needs a label", file=table.file)
    return Truth(dict(quality), f"labels:{path}")
