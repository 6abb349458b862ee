"""A researcher's decision on one worker, from the dashboard's buttons or ``da-platform decide``.

The actions map onto the review policy's (``da_platform.review.decisions``): approve and use,
approve but exclude the data, reject (excludes the data), bonus, block. :func:`plan` says what one
would record (the dashboard's confirmation page, the command's summary); :func:`record` stores each
``ReviewDecision`` with its reason through ``policy.store`` (which writes the audit row and applies
what takes effect at once, ``apply.apply_decision``), plus an audit row naming the researcher.
Tokens are the policy's own for approve / reject / block, so neither the policy nor a second click
can decide an assignment twice.

MTurk and Prolific decisions are stored ``pending`` and sent by the next ``da-platform mturk review``
(or ``prolific review``), which sends every pending decision. Own-pool workers have no provider to
call: their decisions are carried out at once (assignment status, blocked flag) and marked done.
When every finished assignment has a decision already, "approve and use" / "approve but exclude"
record a data-only decision (``use_data`` / ``exclude_data``, nothing to send).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.audit import audit
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit, Rating, ReviewDecision, Worker
from da_platform.db.states import DecisionAction
from da_platform.providers.idempotency import request_token
from da_platform.providers.money import amount_string, parse_amount
from da_platform.rating.campaign_ratings import CONFIRMED, worker_label
from da_platform.review.actions import ACTIONS, Action
from da_platform.review.apply import FAILED, NO_PROVIDER
from da_platform.review.decisions import PaymentDecision, PlannedDecision, judge, store


class DecisionError(ValueError):
    """The decision cannot be taken (the message says why)."""


@dataclass(frozen=True)
class Plan:
    """What a decision will record: the planned rows and what the confirmation page says."""

    action: Action
    worker: Worker
    planned: tuple[PlannedDecision, ...]
    data_only: bool  # no assignment to decide: a data decision is recorded alone
    notes: tuple[str, ...]

    def fingerprint(self) -> str:
        """Names exactly the decisions planned (their request tokens): the confirmation page sends it
        back, and a plan that changed since (the same form sent twice, another tab) is not recorded."""
        return hashlib.sha256("\n".join(p.request_token for p in self.planned).encode()).hexdigest()[:32]


def rejection_notice(source: str) -> str:
    """What the worker is told of a rejection: providers show the policy's message, the own pool nothing."""
    if source in NO_PROVIDER:
        return ("The worker is not told: the platform shows own-pool workers no rejection message "
                "(tell them yourself if you need to).")
    return (f"{source} shows the worker the review policy's rejection message when the next "
            f"`da-platform {source} review` sends the decision.")


def recommendation(session: Session, campaign: Campaign, worker: Worker, qc, evidence=None) -> PaymentDecision:
    """What the campaign's review policy would decide for this worker's work (``evidence``: the
    worker's ``analysis.verdict.WorkerVerdict``, if known)."""
    given = session.scalar(
        select(Rating.id).join(Assignment, Assignment.id == Rating.assignment_id)
        .join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == worker.id).limit(1))
    return judge(CampaignSettings.of(campaign).review_policy, qc, 0 if given is None else 1, evidence)


def _assignments(session: Session, campaign: Campaign, worker: Worker) -> list[Assignment]:
    return list(session.scalars(
        select(Assignment).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == worker.id).order_by(Assignment.id)))


def _decided(session: Session, campaign: Campaign, actions: tuple[str, ...]) -> set[int]:
    return set(session.scalars(
        select(ReviewDecision.assignment_id).where(
            ReviewDecision.campaign_id == campaign.id, ReviewDecision.action.in_(actions),
            ReviewDecision.status != FAILED, ReviewDecision.assignment_id.is_not(None))))


def _awaiting(assignment: Assignment) -> bool:
    """Finished work a decision can be taken on (providers must have reported it submitted)."""
    if assignment.source in NO_PROVIDER:
        return assignment.status in (AssignmentStatus.completed, AssignmentStatus.submitted)
    return assignment.status is AssignmentStatus.submitted


def _bonus_payable(assignment: Assignment) -> bool:
    """Finished work a bonus can be paid on: an MTurk or Prolific assignment only once the provider confirmed
    it (a made-up assignment id under the worker's id never is, and the provider would refuse the bonus)."""
    if assignment.source in NO_PROVIDER:
        return assignment.status not in (AssignmentStatus.in_progress, AssignmentStatus.abandoned)
    return assignment.status in CONFIRMED


def plan(session: Session, campaign: Campaign, worker: Worker, key: str, *, amount: str | None = None,
         reason: str = "", nonce: str = "") -> Plan:
    """The decisions ``key`` would record for ``worker`` (nothing is written)."""
    if key not in ACTIONS:
        raise DecisionError(f"unknown decision {key!r}")
    action = ACTIONS[key]
    source = worker.source
    assignments = _assignments(session, campaign, worker)
    notes: list[str] = []

    def planned(a: Assignment | None, kind: DecisionAction, use: bool, money: Decimal | None,
                *token_parts) -> PlannedDecision:
        return PlannedDecision(
            assignment_id=a.id if a else None, worker_id=worker.id, worker=worker.external_id,
            provider_assignment_id=a.provider_assignment_id if a else None, action=kind, use_data=use,
            amount=money, reason=reason, request_token=request_token(f"{source}-{kind}", campaign.id, *token_parts))

    if action.decision in (DecisionAction.approve, DecisionAction.reject):
        decided = _decided(session, campaign, (DecisionAction.approve, DecisionAction.reject))
        open_ = [a for a in assignments if a.id not in decided and _awaiting(a)]
        waiting = [a for a in assignments if a.id not in decided and not _awaiting(a)]
        if waiting:
            notes.append(f"{len(waiting)} assignment(s) not finished (or not yet reported submitted): "
                         "left for a later decision")
        rows = tuple(planned(a, action.decision, bool(action.use_data), None, a.public_id) for a in open_)
        if rows and action.decision == DecisionAction.reject:
            notes.append(rejection_notice(source))
        if rows:
            return Plan(action, worker, rows, False, tuple(notes))
        if action.decision == DecisionAction.reject:
            raise DecisionError("no finished assignment without a decision: nothing to reject (to stop using "
                                "the data, choose 'approve but exclude')")
        kind = DecisionAction.use_data if action.use_data else DecisionAction.exclude_data
        notes.append("every finished assignment has a payment decision already: only the data decision is recorded")
        row = PlannedDecision(None, worker.id, worker.external_id, None, kind, bool(action.use_data), None, reason,
                              request_token(f"dashboard-{kind}", campaign.id, worker.id, nonce))
        return Plan(action, worker, (row,), True, tuple(notes))
    finished = [a for a in assignments if a.status not in (AssignmentStatus.in_progress, AssignmentStatus.abandoned)]
    latest = finished[-1] if finished else (assignments[-1] if assignments else None)
    if action.decision == DecisionAction.bonus:
        try:
            money = parse_amount(amount or "", field="amount")
        except ValueError as error:
            raise DecisionError(str(error)) from None
        if money <= 0:
            raise DecisionError("a bonus needs a positive amount such as '0.50'")
        payable = [a for a in finished if _bonus_payable(a)]
        if not payable:
            raise DecisionError("the worker has no finished assignment to pay a bonus on" if not finished else
                                "the provider has not confirmed the worker's finished assignments yet (run sync): "
                                "nothing to pay a bonus on")
        paid_on = payable[-1]
        bonus = planned(paid_on, DecisionAction.bonus, True, money, paid_on.public_id, nonce)
        return Plan(action, worker, (bonus,), False, (f"paid on assignment {paid_on.public_id}",))
    blocked = session.scalar(select(ReviewDecision.id).where(
        ReviewDecision.campaign_id == campaign.id, ReviewDecision.worker_id == worker.id,
        ReviewDecision.action == DecisionAction.block, ReviewDecision.status != FAILED).limit(1))
    if blocked is not None:
        raise DecisionError("the worker is blocked already")
    return Plan(action, worker, (planned(latest, DecisionAction.block, True, None, worker.id),), False, ())


def record(session: Session, campaign: Campaign, plan_: Plan, *, actor: str) -> list[ReviewDecision]:
    """Store the plan's decisions with their reason (``policy.store``: own-pool and data-only ones
    take effect at once) and an audit row for the actor.

    The caller commits. A reason is required.
    """
    if not any(p.reason.strip() for p in plan_.planned):
        raise DecisionError("give a reason: it is stored with the decision")
    worker = plan_.worker
    # Block rows store use_data=True only because the column is not nullable; campaign_analysis
    # ignores block for data use.
    store(session, campaign, plan_.planned, provider=worker.source)
    session.flush()
    tokens = [p.request_token for p in plan_.planned]
    rows = list(session.scalars(select(ReviewDecision).where(ReviewDecision.request_token.in_(tokens))))
    audit(session, f"decide.{plan_.action.key}", campaign_id=campaign.id,
          target=worker_label(worker.source, worker.external_id), reason=plan_.planned[0].reason,
          details={"decisions": [d.id for d in rows], "request_tokens": tokens,
                   "amount": amount_string(plan_.planned[0].amount) if plan_.planned[0].amount else None},
          actor=actor)
    return rows
