"""One verdict per worker from all the evidence: the quality checks and the behaviour signals
(docs/quality-control.md#the-verdict).

- ``excluded``: a quality check failed: the quality-control test (``analysis.quality``: the pooled test of
  every check family, or the published BAD_REF test), or, with the published and compatibility tests where
  the group has MEANING checks, the same test on the meaning-change pairs came out ``failed``.
- ``flagged``: the checks pass, but a behaviour or content signal (``analysis.behaviour_signals``, e.g.
  ``beyond_automatic``) flags the worker. Their ratings are left out of the scores like a failed check's,
  but a flag is never enough to reject anyone: the payment policy holds such work for the researcher's
  review.
- ``kept``: everything else.

A MEANING test with too few non-zero pairs says nothing either way (it is reported, it does not exclude).
"""
from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass

from analysis.behaviour_signals import SIGNALS, Signal, behaviour_signals
from analysis.qc_policy import DEFAULT_QC, QCPolicy
from analysis.quality import FAILED, QCReport, WorkerQC, quality_control
from analysis.table import MEANING, RatingsTable


class VerdictStatus(str, enum.Enum):
    """What the evidence says about a worker (see the module docstring)."""

    kept = "kept"
    flagged = "flagged"  # flagged for review: behaviour or overlap signals only
    excluded = "excluded"  # a quality check failed


@dataclass(frozen=True)
class WorkerVerdict:
    """A worker's combined verdict in one group, with the evidence it rests on."""

    group: str
    worker: str
    status: VerdictStatus
    reasons: tuple[str, ...]
    qc: WorkerQC
    meaning: WorkerQC | None  # None when the group has no MEANING checks
    signals: tuple[Signal, ...]

    @property
    def kept(self) -> bool:
        return self.status == VerdictStatus.kept

    @property
    def flags(self) -> tuple[Signal, ...]:
        """The signals that flag this worker."""
        return tuple(s for s in self.signals if s.flagged)

    def as_row(self) -> dict[str, object]:
        """Flat columns for qc-workers.csv (NaN for values that do not apply)."""
        meaning = self.meaning
        row: dict[str, object] = {
            "verdict": self.status.value, "verdict_reasons": "; ".join(self.reasons),
            "meaning_status": meaning.status if meaning else "",
            "meaning_pvalue": meaning.pvalue if meaning else math.nan,
            "meaning_n_pairs": meaning.n_pairs if meaning else 0,
            "meaning_n_nonzero_pairs": meaning.n_nonzero_pairs if meaning else 0,
        }
        by_name = {s.name: s for s in self.signals}
        for name in SIGNALS:
            signal = by_name.get(name)
            row[f"{name}_value"] = signal.value if signal else math.nan
            row[f"{name}_flagged"] = ("" if signal is None or signal.flagged is None
                                      else str(bool(signal.flagged)).lower())
        return row


VERDICT_COLUMNS = ("verdict", "verdict_reasons", "meaning_status", "meaning_pvalue", "meaning_n_pairs",
                   "meaning_n_nonzero_pairs", *(f"{n}_{part}" for n in SIGNALS for part in ("value", "flagged")))


def combine(qc: WorkerQC, meaning: WorkerQC | None, signals: tuple[Signal, ...]) -> WorkerVerdict:
    """The verdict of one worker from its BAD_REF QC, its MEANING test and its signals."""
    reasons: list[str] = []
    if not qc.passed:
        reasons.append(f"BAD_REF check {qc.status}: {qc.reason}")
    if meaning is not None and meaning.status == FAILED:
        reasons.append(f"MEANING check failed: {meaning.reason}")
    flags = [f"{s.name} ({s.kind}): {s.reason}" for s in signals if s.flagged]
    if reasons:
        status = VerdictStatus.excluded
        reasons += [f"also flagged: {f}" for f in flags]
    elif flags:
        status = VerdictStatus.flagged
        reasons = [f"flagged for review: {f}" for f in flags]
    else:
        status = VerdictStatus.kept
        reasons = [qc.reason]
        if meaning is not None:
            reasons.append(f"MEANING check {meaning.status}: {meaning.reason}")
    return WorkerVerdict(qc.group, qc.worker, status, tuple(reasons), qc, meaning, signals)


#: A meaning-changed answer says something false: a person marks it down about as much as a degraded answer,
#: while a rater scoring by text overlap barely moves (measured: 0.7-1.4 points for overlap bots against 6-7 on
#: BAD_REF; docs/benchmarks.md). The MEANING test of the published and compatibility methods can ask for a drop
#: of more than this share of the worker's own mean BAD_REF drop (rounded to whole points), not just any drop.
#: Measured at rates (docs/benchmarks.md, "Rates"): every share above 0 costs honest workers more than the 5 %
#: the issue allows (0.25: 89 % kept with two HITs each, 56 % with one), so the test is the plain one (0: any
#: drop), as for BAD_REF. (The pooled method tests the MEANING pairs with every other check pair instead, and
#: raters who score by overlap are the ``beyond_automatic`` signal's.)
MEANING_MARGIN_SHARE = 0.0


def meaning_margins(reports: Mapping[str, QCReport], share: float = MEANING_MARGIN_SHARE) -> dict[str, int]:
    """Worker label -> the MEANING test's margin: ``share`` (``MEANING_MARGIN_SHARE``) of their mean BAD_REF
    drop (0 if none or negative; the largest over the worker's groups)."""
    margins: dict[str, int] = {}
    for report in reports.values():
        for qc in report.workers:
            drop = qc.mean_original - qc.mean_degraded
            margin = int(round(share * drop)) if math.isfinite(drop) and drop > 0 else 0
            margins[qc.worker] = max(margins.get(qc.worker, 0), margin)
    return margins


def worker_verdicts(table: RatingsTable, reports: Mapping[str, QCReport], policy: QCPolicy = DEFAULT_QC, *,
                    margin_share: float = MEANING_MARGIN_SHARE) -> dict[str, dict[str, WorkerVerdict]]:
    """group -> worker -> verdict, for every worker of ``reports`` (the BAD_REF quality control of ``table`` by
    ``policy``); ``margin_share``: the MEANING test's margin as a share of each worker's BAD_REF drop (for
    trade-off studies)."""
    meaning_reports = {} if policy.pools_every_check else quality_control(  # (pooled: MEANING pairs included)
        table, policy, check=MEANING, margin=meaning_margins(reports, margin_share))
    checked = {group: {w.worker: w.passed for w in report.workers} for group, report in reports.items()}
    signals = behaviour_signals(table, checked)
    result: dict[str, dict[str, WorkerVerdict]] = {}
    for group, report in reports.items():
        meaning_report = meaning_reports.get(group)
        meaning = ({w.worker: w for w in meaning_report.workers}
                   if meaning_report is not None and meaning_report.applicable else {})
        group_signals = signals.get(group, {})
        result[group] = {
            w.worker: combine(w, meaning.get(w.worker) if meaning else None, group_signals.get(w.worker, ()))
            for w in report.workers}
    return result


def kept_workers(verdicts: Mapping[str, Mapping[str, WorkerVerdict]]) -> dict[str, frozenset[str]]:
    """Per group, the workers whose ratings are used (verdict ``kept``)."""
    return {g: frozenset(w for w, v in vs.items() if v.kept) for g, vs in verdicts.items()}


def summary(verdicts: Mapping[str, WorkerVerdict]) -> dict[str, int]:
    """Workers per verdict in one group."""
    counts = {s.value: 0 for s in VerdictStatus}
    for v in verdicts.values():
        counts[v.status.value] += 1
    return counts
