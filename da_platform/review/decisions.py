"""The review policy's decisions: from quality control to approve / reject / bonus / block, per assignment.

Payment is separate from data filtering (docs/method.md §6): a worker can be paid and still excluded.
Per submitted assignment, using its worker's quality control over the whole campaign:

- no rating recorded at all -> reject (nothing was done);
- a run of at least ``reject_identical_run`` identical scores in this HIT (with no per-HIT evidence: in any of
  the worker's HITs) -> reject this HIT; block when ``block_rejected`` and the worker's checks fail over all
  their HITs (one empty HIT of a worker who reads elsewhere is a lapse, not a bot);
- failed QC with at least ``reject_min_pairs`` non-zero pairs AND ``p > reject_min_p`` -> reject (clear
  evidence only), and block when ``block_rejected``;
- the MEANING check (docs/quality-control.md#meaning-checks) failed with the same clear evidence -> reject; failed
otherwise ->
  approve but exclude;
- checks passed but behaviour or overlap signals flag the worker (``analysis.verdict``: "flagged")
  -> hold: no decision is taken or sent; the work waits for the researcher's review (the dashboard),
  because behaviour alone never rejects anyone;
- QC passed (or the campaign has no checks) -> approve and use, plus ``bonus`` if set; when this HIT's own
  checks fail (``analysis.lapses``: a **lapse**, the HIT carried no signal) the reason says so: it is paid,
  used as the worker's verdict says and never grounds to block (docs/quality-control.md, "A lapse is not a
  bot": 5-10 % of real careful people's HITs are such lapses);
- anything else (failed without clear evidence, too few pairs, ...) -> approve but exclude.

With ``reject_enabled=False`` every "reject" becomes "approve but exclude". The thresholds are
:class:`~da_platform.config.review_policy.ReviewPolicy`, stored with the campaign's settings
(``CampaignSettings.stored_review``). Which test quality control runs is not the payment policy's: it is the
campaign's quality-control policy (``CampaignSettings.stored_qc``), read with the rest of the analysis
(``da_platform.results.campaign_analysis``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from analysis.lapses import HitCheck
from analysis.quality import WorkerQC
from analysis.verdict import VerdictStatus, WorkerVerdict
from da_core.enums import StrState
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.review_policy import ReviewPolicy
from da_platform.db.audit import audit
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit, Rating, ReviewDecision, Worker
from da_platform.db.rows import get_row
from da_platform.db.states import DecisionAction, QCStatus
from da_platform.providers import registry
from da_platform.providers.idempotency import request_token
from da_platform.providers.money import CostEstimate, amount_string
from da_platform.review.apply import DONE, PENDING, apply_decision, carried_out_here


class PolicyAction(StrState):
    """What the policy answers for one assignment: approve and reject are recorded as the ``DecisionAction`` of
    the same value; hold is never recorded (no decision: flagged for the researcher's review)."""

    approve = "approve"
    reject = "reject"
    hold = "hold"


@dataclass(frozen=True)
class PaymentDecision:
    """The policy's answer for one assignment."""

    action: PolicyAction
    use_data: bool
    reason: str
    bonus: Decimal | None = None
    block: bool = False


def judge(policy: ReviewPolicy, qc: Any | None, ratings_given: int, verdict: WorkerVerdict | None = None,
          hit: HitCheck | None = None) -> PaymentDecision:
    """Apply the policy to one assignment; ``qc`` is its worker's ``analysis.quality.WorkerQC`` and
    ``verdict`` (if known) the worker's combined verdict with the MEANING check and behaviour signals; ``hit``
    (if known) the assignment's own HIT's checks judged alone (``analysis.lapses.HitCheck``)."""
    def reject(reason: str, block: bool = True) -> PaymentDecision:
        if not policy.reject_enabled:
            return PaymentDecision(PolicyAction.approve, False,
                                   f"{reason} (rejection disabled: approved, data excluded)")
        return PaymentDecision(PolicyAction.reject, False, reason, block=policy.block_rejected and block)

    if ratings_given == 0:
        return reject("no rating was recorded for this assignment")
    if qc is None:
        return PaymentDecision(PolicyAction.approve, False,
                               "no quality-control result for this worker: approved, data excluded")
    run = int(hit.qc.longest_identical_run if hit is not None else qc.longest_identical_run)
    if policy.reject_identical_run and run >= policy.reject_identical_run:
        where = "in this HIT" if hit is not None else "in one of the worker's HITs"
        if qc.passed:
            return reject(f"{run} identical scores {where} (threshold {policy.reject_identical_run}): nothing was "
                          "rated in this HIT; a lapse, not grounds to block: the worker's checks over all their "
                          "HITs pass", block=False)
        return reject(f"{run} identical scores {where} (threshold {policy.reject_identical_run})")
    evidence = f"QC {qc.status}: p={qc.pvalue:.4g} over {qc.n_nonzero_pairs} non-zero pairs ({qc.method})"
    if (qc.status == QCStatus.failed and qc.n_nonzero_pairs >= policy.reject_min_pairs
            and qc.pvalue > policy.reject_min_p):
        return reject(f"{evidence}; clear evidence: >= {policy.reject_min_pairs} pairs and p > {policy.reject_min_p}")
    meaning = verdict.meaning if verdict is not None else None
    if meaning is not None and meaning.status == "failed":
        found = f"MEANING check failed: p={meaning.pvalue:.4g} over {meaning.n_nonzero_pairs} non-zero pairs"
        if meaning.n_nonzero_pairs >= policy.reject_min_pairs and meaning.pvalue > policy.reject_min_p:
            return reject(f"{found}; clear evidence: >= {policy.reject_min_pairs} pairs and p > {policy.reject_min_p}")
        if qc.passed:
            return PaymentDecision(PolicyAction.approve, False,
                                   f"{evidence}; {found}, not clear enough to reject: approved, data excluded")
    if verdict is not None and verdict.status == VerdictStatus.flagged:
        return PaymentDecision(PolicyAction.hold, False,
                               "flagged for review, no automatic decision (behaviour alone never rejects anyone; the "
                               f"researcher decides): {'; '.join(s.name for s in verdict.flags)}")
    bonus = policy.bonus if policy.bonus > 0 else None
    if qc.status == QCStatus.not_quality_controlled:
        return PaymentDecision(PolicyAction.approve, True, "campaign has no quality checks: approved and used",
                               None if policy.bonus_requires_pass else bonus)
    if qc.passed:
        if hit is not None and hit.lapse:
            return PaymentDecision(PolicyAction.approve, True, f"{evidence}: approved and used; {hit.describe()}",
                                   bonus)
        return PaymentDecision(PolicyAction.approve, True, f"{evidence}: approved and used", bonus)
    return PaymentDecision(PolicyAction.approve, False,
                           f"{evidence}; not clear enough to reject: approved, data excluded",
                           None if policy.bonus_requires_pass else bonus)


@dataclass(frozen=True)
class PlannedDecision:
    """One decision as it will be stored (and shown by ``--dry-run``)."""

    assignment_id: int | None
    worker_id: int
    worker: str  # provider's worker id
    provider_assignment_id: str | None
    action: DecisionAction
    use_data: bool
    amount: Decimal | None
    reason: str
    request_token: str


def awaiting_review(session: Session, campaign: Campaign, provider: str) -> list[tuple[Assignment, int]]:
    """Submitted assignments of the campaign on ``provider`` without an approve/reject decision,
    each with its number of ratings (own pool: every finished one, as nobody reports it submitted)."""
    finished = (AssignmentStatus.submitted,) if registry.source(provider).has_provider else (
        AssignmentStatus.completed, AssignmentStatus.submitted)
    decided = select(ReviewDecision.assignment_id).where(
        ReviewDecision.campaign_id == campaign.id,
        ReviewDecision.action.in_((DecisionAction.approve, DecisionAction.reject)),
        ReviewDecision.assignment_id.is_not(None))
    ratings = (select(func.count(Rating.id)).where(Rating.assignment_id == Assignment.id)
               .correlate(Assignment).scalar_subquery())
    rows = session.execute(
        select(Assignment, ratings).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.source == provider,
               Assignment.status.in_(finished), Assignment.id.not_in(decided))
        .order_by(Assignment.id)
    ).all()
    return [(a, n) for a, n in rows]


def plan(session: Session, campaign: Campaign, provider: str, policy: ReviewPolicy,
         qc_by_worker: Mapping[int, Any]) -> list[PlannedDecision]:
    """Every decision the policy takes now (nothing is written); ``qc_by_worker``: ``quality_by_worker``'s
    (with each HIT's own checks when it has them)."""
    planned: list[PlannedDecision] = []
    blocked: set[int] = set(session.scalars(
        select(ReviewDecision.worker_id).where(ReviewDecision.campaign_id == campaign.id,
                                               ReviewDecision.action == DecisionAction.block)))
    for assignment, n_ratings in awaiting_review(session, campaign, provider):
        worker = assignment.worker
        verdict = _judge_assignment(policy, qc_by_worker.get(worker.id), n_ratings, _hit_check(qc_by_worker,
                                                                                                 assignment))
        if verdict.action is PolicyAction.hold:
            continue  # left awaiting review: see held_for_review
        common: dict[str, Any] = dict(assignment_id=assignment.id, worker_id=worker.id, worker=worker.external_id,
                      provider_assignment_id=assignment.provider_assignment_id)
        planned.append(PlannedDecision(
            **common, action=DecisionAction(verdict.action), use_data=verdict.use_data, amount=None,
            reason=verdict.reason,
            request_token=request_token(f"{provider}-{verdict.action}", campaign.id, assignment.public_id)))
        if verdict.bonus is not None:
            planned.append(PlannedDecision(
                **common, action=DecisionAction.bonus, use_data=verdict.use_data, amount=verdict.bonus,
                reason=f"bonus: {verdict.reason}",
                request_token=request_token(f"{provider}-bonus", campaign.id, assignment.public_id)))
        if verdict.block and worker.id not in blocked:
            blocked.add(worker.id)
            planned.append(PlannedDecision(
                **common, action=DecisionAction.block, use_data=False, amount=None, reason=f"block: {verdict.reason}",
                request_token=request_token(f"{provider}-block", campaign.id, worker.id)))
    return planned


def _judge_assignment(policy: ReviewPolicy, evidence: Any | None, n_ratings: int,
                      hit: HitCheck | None = None) -> PaymentDecision:
    """``judge`` for a worker known by a ``WorkerVerdict`` (checks and behaviour) or a bare ``WorkerQC``."""
    if isinstance(evidence, WorkerVerdict):
        return judge(policy, evidence.qc, n_ratings, evidence, hit)
    return judge(policy, evidence, n_ratings, hit=hit)


def _hit_check(qc_by_worker: Mapping[int, Any], assignment: Assignment) -> HitCheck | None:
    """The assignment's own HIT's checks, when ``qc_by_worker`` carries them (``WorkerEvidence``)."""
    hits = getattr(qc_by_worker, "hits", None)
    if not hits:
        return None
    return hits.get(assignment.worker_id, {}).get(assignment.hit.public_id)


class WorkerEvidence(dict):
    """``quality_by_worker``'s answer: Worker.id -> verdict, and ``hits``: Worker.id -> HIT public id -> that
    HIT's own checks (``analysis.lapses.HitCheck``)."""

    def __init__(self, verdicts: Mapping[int, Any], hits: Mapping[int, Mapping[str, HitCheck]]) -> None:
        super().__init__(verdicts)
        self.hits = hits


def held_for_review(session: Session, campaign: Campaign, provider: str, policy: ReviewPolicy,
                    qc_by_worker: Mapping[int, Any]) -> list[tuple[Assignment, PaymentDecision]]:
    """Submitted assignments the policy does not decide (flagged for the researcher's review)."""
    held = []
    for assignment, n_ratings in awaiting_review(session, campaign, provider):
        verdict = _judge_assignment(policy, qc_by_worker.get(assignment.worker_id), n_ratings,
                                    _hit_check(qc_by_worker, assignment))
        if verdict.action is PolicyAction.hold:
            held.append((assignment, verdict))
    return held


def store(session: Session, campaign: Campaign, planned: Iterable[PlannedDecision], *, provider: str) -> int:
    """Record planned decisions with an audit row each (caller commits): every decision of every
    path (dashboard, ``decide``, the review policy) is recorded here.

    A decision a provider carries out stays ``pending`` (``apply.execute_pending`` sends it);
    one nobody has to be asked about (own-pool workers, data-only decisions) takes effect at once
    (``apply.apply_decision``).
    """
    count = 0
    for p in planned:
        decision = ReviewDecision(
            campaign_id=campaign.id, assignment_id=p.assignment_id, worker_id=p.worker_id, action=p.action,
            use_data=p.use_data, amount=amount_string(p.amount) if p.amount is not None else None,
            reason=p.reason, request_token=p.request_token, status=PENDING)
        session.add(decision)
        here = carried_out_here(provider, p.action)
        if here is not None:
            apply_decision(session, decision, DONE, here)
        audit(session, f"{provider}.decide.{p.action}", campaign_id=campaign.id,
              target=p.provider_assignment_id or p.worker, reason=p.reason,
              details={"use_data": p.use_data, "amount": amount_string(p.amount) if p.amount else None,
                       "request_token": p.request_token})
        count += 1
    return count


def planned_cost(planned: list[PlannedDecision], pricing: Callable[[int, list[Decimal]], CostEstimate]
                 ) -> CostEstimate:
    """What the planned approvals and bonuses cost, priced by the provider's ``pricing``."""
    approvals = sum(p.action == DecisionAction.approve for p in planned)
    return pricing(approvals, [p.amount for p in planned if p.action == DecisionAction.bonus and p.amount is not None])


def record_decisions(sessions: sessionmaker[Session], campaign_id: int, provider: str, policy: ReviewPolicy,
                     planned: list[PlannedDecision]) -> None:
    """Commit the planned decisions (``store``) with the policy, before anything is sent."""
    with sessions.begin() as session:
        campaign = get_row(session, Campaign, campaign_id)
        store(session, campaign, planned, provider=provider)
        CampaignSettings.update(campaign, review=policy)


def quality_by_worker(session: Session, campaign: Campaign, policy: ReviewPolicy) -> WorkerEvidence:
    """Each worker's combined verdict over the whole campaign (``analysis.verdict.WorkerVerdict``:
    BAD_REF and MEANING checks, behaviour signals), by Worker.id: the campaign's analysis's own
    (``CampaignAnalysis``), so that payment and data use rest on the same verdict. With quality control
    off there are no verdicts: each worker's ``WorkerQC`` (not quality-controlled) stands in. Each HIT's own
    checks ride along (``WorkerEvidence.hits``), so that a lapse is told from a worker who does not read."""
    from da_platform.rating.campaign_ratings import worker_label
    from da_platform.results.campaign_analysis import CampaignAnalysis

    analysis = CampaignAnalysis(session, campaign)
    verdicts: dict[str, WorkerVerdict | WorkerQC] = {**analysis.worker_qc, **analysis.worker_verdicts}
    if not verdicts:
        return WorkerEvidence({}, {})
    rows = session.execute(
        select(Worker.id, Worker.source, Worker.external_id).join(Assignment, Assignment.worker_id == Worker.id)
        .join(Hit, Hit.id == Assignment.hit_id).where(Hit.campaign_id == campaign.id).distinct()
    ).all()
    ids = {worker_label(source, external): worker_id for worker_id, source, external in rows}
    hits = analysis.hit_checks
    return WorkerEvidence({ids[label]: v for label, v in verdicts.items() if label in ids},
                          {ids[label]: checks for label, checks in hits.items() if label in ids})
