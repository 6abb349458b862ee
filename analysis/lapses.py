"""Each HIT's checks on their own: which HITs of a worker carried no signal (a lapse), beside the worker's verdict.

Quality control judges a worker over all their HITs (``analysis.quality``). A careful person sometimes gives a
HIT little attention: measured on real MTurk workers (WMT21 to English, docs/quality-control.md, "A lapse is not
a bot"), 5-10 % of the HITs of workers reliable over their whole work fail the checks when judged alone. Such a
HIT says nothing about whether its worker is a person; the worker's other HITs do. This module runs the
campaign's own test on every worker-HIT alone, so that the payment policy and the dashboard can tell

- a **lapse**: a HIT whose own checks fail, of a worker whose checks pass over all their HITs: "this HIT
  carried no signal" (paid, never grounds to block; ``da_platform.review.decisions``), from
- a worker whose checks fail over all their HITs, or whom a behaviour signal flags: "this worker looks
  automated, or did not read".
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCScope
from analysis.quality import WorkerQC, quality_control
from analysis.table import Categorical, RatingsTable
from analysis.verdict import WorkerVerdict

SEPARATOR = "\x1f"
"""Joins a worker's label and a HIT's in the per-HIT table (a character no label holds)."""


@dataclass(frozen=True)
class HitCheck:
    """One worker-HIT's checks judged alone, and whether that makes it a lapse."""

    group: str
    worker: str
    hit: str
    qc: WorkerQC  # the campaign's test on this HIT's pairs alone
    worker_passed: bool  # the worker's checks over all their HITs

    @property
    def lapse(self) -> bool:
        """The HIT's own checks fail, its worker's pass: this HIT carried no signal, the worker did read."""
        return self.worker_passed and not self.qc.passed

    def describe(self) -> str:
        if self.qc.passed:
            return f"this HIT's checks alone pass (p = {self.qc.pvalue:.3g})"
        alone = f"this HIT's checks alone: {self.qc.status} ({self.qc.reason})"
        if self.lapse:
            return f"lapse: this HIT carried no signal, the worker's checks over all their HITs pass; {alone}"
        return alone


def hit_checks(table: RatingsTable, policy: QCPolicy,
               workers: Mapping[str, Mapping[str, WorkerQC]]) -> dict[str, dict[str, dict[str, HitCheck]]]:
    """group -> worker -> HIT -> its checks alone (``policy``'s test, per group), given each worker's quality
    control over all their HITs (``workers``: group -> worker -> ``WorkerQC``)."""
    labels = [f"{w}{SEPARATOR}{h}" for w, h in zip(table.worker.values(), table.hit.values())]
    by_hit = dataclasses.replace(table, worker=Categorical.from_values(labels))
    reports = quality_control(by_hit, dataclasses.replace(policy, scope=QCScope.group))
    checks: dict[str, dict[str, dict[str, HitCheck]]] = {}
    for group, report in reports.items():
        for qc in report.workers:
            worker, hit = qc.worker.split(SEPARATOR, 1)
            whole = workers.get(group, {}).get(worker)
            checks.setdefault(group, {}).setdefault(worker, {})[hit] = HitCheck(
                group, worker, hit, dataclasses.replace(qc, worker=worker), bool(whole is not None and whole.passed))
    return checks


@dataclass(frozen=True)
class Reading:
    """What a worker's evidence says, in one line for the dashboard (``key``: ``automated``, ``no_signal``,
    ``lapses``, ``reads`` or ``unknown``)."""

    key: str
    sentence: str


def what_the_evidence_says(verdict: WorkerVerdict | None, checks: Mapping[str, HitCheck]) -> Reading:
    """Tell "this worker looks automated" (a behaviour or content signal flags them) from "this HIT carried no
    signal" (a lapse of a worker whose checks pass over all their HITs) and from a worker none of whose work
    carried a signal (at one HIT a content-blind rater and a person who did not read look alike)."""
    if verdict is None:
        return Reading("unknown", "no verdict: quality control is off or there are no analysed ratings")
    if verdict.flags:
        names = ", ".join(s.name.replace("_", " ") for s in verdict.flags)
        return Reading("automated", f"this worker looks automated: {names} (evidence of how the ratings were "
                                    "given or of what they follow, not of one careless HIT)")
    lapses = sorted(hit for hit, check in checks.items() if check.lapse)
    if not verdict.qc.passed:
        return Reading("no_signal", f"no signal in this worker's checks over all their {verdict.qc.n_hits} HIT(s) "
                                    f"({verdict.qc.status}): a content-blind rater or a person who did not read; "
                                    "nothing in how they rated says which")
    if lapses:
        return Reading("lapses", f"{len(lapses)} of {len(checks)} HITs carried no signal on their own (lapses); "
                                 "the worker's checks over all their HITs pass: a careful person's lapse, not a bot")
    return Reading("reads", "the checks show a reader" + (f" in each of the {len(checks)} HITs" if len(checks) > 1
                                                            else ""))


__all__ = ["HitCheck", "Reading", "SEPARATOR", "hit_checks", "what_the_evidence_says"]
