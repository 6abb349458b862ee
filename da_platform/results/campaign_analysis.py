"""A campaign's analysis: the one path behind every number about a campaign.

``analyze --campaign``, ``validate-metrics --campaign``, the dashboard, every export, the bundle and the
payment policy all build a :class:`CampaignAnalysis`: the ratings, the workers a review decision excluded,
and ``analysis.analyze`` with the campaign's quality-control policy (``CampaignSettings.stored_qc``, an
``analysis.qc_policy.QCPolicy``, with what a command line overrides laid over it by
``analysis.qc_policy.resolve_policy``), which leaves out the decision-excluded workers, lists every exclusion
with its cause, and judges the excluded workers too.

Payment is separate from data use (docs/method.md §6). A worker's data use is what their most recent data
decision in the campaign says (``approve`` with or without ``use_data``, ``reject`` = excluded, or a
data-only ``use_data`` / ``exclude_data`` record from the dashboard); failed decisions do not count.
A worker without such a decision is judged by quality control alone. "Use" never overrides quality
control: only workers who pass it count in the scores (docs/method.md §7).

Everything is computed from the database on each call (no cache across requests).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from analysis.lapses import HitCheck, hit_checks
from analysis.qc_policy import QCOverrides, QCPolicy, resolve_policy
from analysis.qc_states import ExcludedBy
from analysis.quality import WorkerQC
from analysis.report import AnalysisResult, Exclusion, GroupAnalysis, analyze
from analysis.scores import ScoreSettings
from analysis.table import RatingsTable
from analysis.verdict import WorkerVerdict
from da_core.errors import InputError
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Campaign, ReviewDecision, Worker
from da_platform.db.states import DecisionAction, DecisionStatus
from da_platform.rating.campaign_ratings import abandoned_ratings, load_ratings, unconfirmed_ratings, worker_label

DATA_ACTIONS = (DecisionAction.approve, DecisionAction.reject, DecisionAction.use_data, DecisionAction.exclude_data)
"""Decisions that say whether a worker's data is used (bonus, block and exclude do not)."""


class NotRankedError(LookupError):
    """A campaign's ranking was asked for where there is none (callers check ``CampaignAnalysis.ranked``)."""


@dataclass(frozen=True)
class DataUse:
    """The latest data decision about one worker in one campaign."""

    worker_id: int
    worker: str  # analysis label, ``source:external_id``
    use: bool
    action: str
    reason: str
    decided_at: datetime


def data_use(session: Session, campaign: Campaign) -> dict[str, DataUse]:
    """Each decided worker's latest data decision, by analysis label."""
    rows = session.execute(
        select(ReviewDecision, Worker.id, Worker.source, Worker.external_id)
        .join(Worker, Worker.id == ReviewDecision.worker_id)
        .where(ReviewDecision.campaign_id == campaign.id, ReviewDecision.action.in_(DATA_ACTIONS),
               ReviewDecision.status != DecisionStatus.failed)
        .order_by(ReviewDecision.id)
    ).all()
    latest: dict[str, DataUse] = {}
    for decision, worker_id, source, external in rows:
        label = worker_label(source, external)
        use = bool(decision.use_data) and decision.action != DecisionAction.reject
        latest[label] = DataUse(worker_id, label, use, decision.action, decision.reason,
                                decision.created_at)
    return latest


def without_workers(table: RatingsTable, workers: set[str]) -> RatingsTable:
    """The table without the rows of ``workers`` (analysis labels)."""
    if not workers or len(table) == 0:
        return table
    drop = np.array([label in workers for label in table.worker.labels], dtype=bool)
    return table.select(~drop[table.worker.codes])


@dataclass(frozen=True)
class AnalysisOptions:
    """What one run asks of an analysis: quality control over the stored policy (``qc``: nothing asked keeps the
    campaign's or the file's policy), the ranking's significance level and the numeric path of the scores."""

    qc: QCOverrides = field(default_factory=QCOverrides)
    alpha: float = 0.05
    scores: ScoreSettings | None = None


class CampaignAnalysis:
    """Ratings, data decisions and the analysis of one campaign (computed lazily, once)."""

    def __init__(self, session: Session, campaign: Campaign, options: AnalysisOptions | None = None) -> None:
        self.campaign_name = campaign.name
        self.load_error: str | None = None
        try:
            self.table = load_ratings(session, campaign)
        except InputError as error:  # the ratings cannot be tabled: say why instead of failing the page
            self.load_error = str(error)
            self.table = RatingsTable.from_records([])
        self.decisions = data_use(session, campaign)
        self.abandoned = abandoned_ratings(session, campaign)  # label -> ratings left out with their HIT
        self.unconfirmed = unconfirmed_ratings(session, campaign)  # label -> ratings awaiting the provider
        options = options or AnalysisOptions()
        # what this analysis applies
        self.qc: QCPolicy = resolve_policy(CampaignSettings.of(campaign).stored_qc, options.qc)
        self.alpha, self.scores = options.alpha, options.scores  # the ranking's level; the numeric path

    @property
    def excluded(self) -> dict[str, str]:
        """Workers excluded by a decision: label -> reason."""
        return {w: d.reason for w, d in self.decisions.items() if not d.use}

    @cached_property
    def used(self) -> RatingsTable:
        """The ratings analysed: all of them minus the workers excluded by a decision."""
        return without_workers(self.table, set(self.excluded))

    @cached_property
    def _analysed(self) -> AnalysisResult | None:
        """``analysis.analyze`` of every rating with the decisions' exclusions (None without ratings)."""
        if len(self.table) == 0:
            return None
        return analyze(self.table, qc=self.qc, alpha=self.alpha, scores=self.scores, excluded=self.excluded)

    @property
    def result(self) -> AnalysisResult | None:
        """QC → z → scores → ranking of the ratings minus decision exclusions; None when none are left."""
        return None if len(self.used) == 0 else self._analysed

    @property
    def exclusions(self) -> tuple[Exclusion, ...]:
        """Every worker left out, by a decision or by quality control (or sd 0), with the reason."""
        if self.result is not None:
            return self.result.exclusions
        return tuple(Exclusion(self.campaign_name, w, ExcludedBy.decision, r) for w, r in sorted(self.excluded.items()))

    @property
    def group(self) -> GroupAnalysis | None:
        """This campaign's group of the result (None without ratings)."""
        return None if self.result is None else self.result.groups.get(self.campaign_name)

    @property
    def ranked(self) -> bool:
        """Whether there is a ranking to show: at least one system kept after quality control."""
        return self.group is not None and len(self.group.ranking.systems) > 0

    @property
    def ranked_result(self) -> AnalysisResult:
        """:attr:`result` of a campaign that is :attr:`ranked` (check that first); else :class:`NotRankedError`."""
        if self.result is None or not self.ranked:
            raise NotRankedError(f"campaign {self.campaign_name!r} has no ranking")
        return self.result

    @property
    def ranked_group(self) -> GroupAnalysis:
        """:attr:`group` of a campaign that is :attr:`ranked` (check that first); else :class:`NotRankedError`."""
        if self.group is None or not self.ranked:
            raise NotRankedError(f"campaign {self.campaign_name!r} has no ranking")
        return self.group

    @cached_property
    def worker_qc(self) -> dict[str, WorkerQC]:
        """Quality control of every worker, excluded ones too: label -> ``analysis.quality.WorkerQC``
        (as the analysis judged them: ``analysis.report.DecidedWorkers`` for the excluded)."""
        result = self._analysed
        if result is None:
            return {}
        group = result.groups.get(self.campaign_name)
        decided = result.decided.get(self.campaign_name)
        return {w.worker: w for w in (*(group.qc.workers if group else ()), *(decided.qc if decided else ()))}

    @cached_property
    def worker_verdicts(self) -> dict[str, WorkerVerdict]:
        """Combined verdict of every worker, excluded ones too: label -> ``analysis.verdict.WorkerVerdict``
        (none when quality control is off)."""
        result = self._analysed
        if result is None:
            return {}
        group = result.groups.get(self.campaign_name)
        decided = result.decided.get(self.campaign_name)
        return {**(group.verdicts if group else {}), **(decided.verdicts if decided else {})}

    @cached_property
    def hit_checks(self) -> dict[str, dict[str, HitCheck]]:
        """Every worker-HIT's checks judged alone (``analysis.lapses``): label -> HIT public id -> ``HitCheck``,
        which says whether the HIT is a lapse (it carried no signal; its worker's checks over all HITs pass).
        Empty when quality control is off or the campaign has no ratings."""
        if len(self.table) == 0 or self.qc.off:
            return {}
        return hit_checks(self.table, self.qc, {self.campaign_name: self.worker_qc}).get(self.campaign_name, {})
