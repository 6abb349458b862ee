"""Carrying out review decisions safely: pending -> sent -> done | failed, every step committed.

:func:`apply_decision` is the one place where a decision takes effect, whoever took it (the
dashboard, ``da-platform decide``, the review policy of ``mturk|prolific|pool review``) and whoever
carries it out (a provider's answer here, or the platform itself for own-pool workers and data-only
decisions, see ``policy.store``).

A decision is committed as ``pending`` before anything is sent, marked ``sent`` (and committed)
just before its provider call, and ``done`` or ``failed`` right after. A crash therefore leaves at
worst a ``sent`` decision whose effect is unknown; :func:`reconcile` asks the provider (assignment
status, bonuses paid) and finishes it without paying twice: a bonus is re-sent only when the
provider has no record of it AND a repeat cannot pay twice (MTurk's UniqueRequestToken); otherwise
it stays ``sent`` as *unverified* and is listed until it is seen paid or resent by hand.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from da_platform.config.review_policy import WorkerMessages
from da_platform.db.audit import audit
from da_platform.db.models import Assignment, AssignmentTransition, Hit, ReviewDecision, Worker, make, utcnow
from da_platform.db.rows import get_row
from da_platform.db.states import DecisionAction, DecisionStatus
from da_platform.providers.base import OutcomeUnknown, Provider, ProviderError, ProviderStatus
from da_platform.providers.money import parse_amount
from da_platform.providers.registry import without_provider
from da_platform.providers.retry import RetriesExhausted

PENDING, SENT, DONE, FAILED = DecisionStatus.pending, DecisionStatus.sent, DecisionStatus.done, DecisionStatus.failed
ORDER: dict[str, int] = {DecisionAction.approve: 0, DecisionAction.reject: 0, DecisionAction.bonus: 1,
                         DecisionAction.block: 2, DecisionAction.exclude: 2}
UNVERIFIED = "unverified: "
NO_PROVIDER = without_provider()  # sources paid outside the platform: their decisions are carried out when recorded
DATA_ONLY = (DecisionAction.use_data, DecisionAction.exclude_data)  # nothing to send, for any source
OWN_POOL_OUTCOME = "own pool: no provider to call; recorded (pay outside the platform)"
DATA_ONLY_OUTCOME = "data decision: nothing to send"


def carried_out_here(source: str, action: str) -> str | None:
    """The outcome of a decision nobody has to be asked about (own pool, data only), else None: a
    provider carries it out (``execute_pending``)."""
    if action in DATA_ONLY:
        return DATA_ONLY_OUTCOME
    return OWN_POOL_OUTCOME if source in NO_PROVIDER else None


def apply_decision(session: Session, decision: ReviewDecision, status: DecisionStatus, outcome: str) -> None:
    """Record where ``decision`` stands and, once it is done, apply its effect (caller commits):

    - data: ``use_data`` is what the campaign analysis uses for the worker's ratings while the
      decision has not failed (``da_platform.results.campaign_analysis``); ``reject`` always excludes;
    - payment: ``approve`` / ``reject`` approve / reject the assignment; a ``bonus`` is the amount
      stored with the decision (paid by the provider, or outside the platform for the own pool);
    - ``block``: the worker gets no further work.
    """
    decision.status, decision.outcome, decision.updated_at = status, outcome, utcnow()
    if status != DONE:
        return
    if decision.action in (DecisionAction.approve, DecisionAction.reject) and decision.assignment_id is not None:
        assignment = get_row(session, Assignment, decision.assignment_id)
        approved = decision.action == DecisionAction.approve
        make(assignment, AssignmentTransition.approve if approved else AssignmentTransition.reject)
    if decision.action == DecisionAction.block and decision.worker_id is not None:
        get_row(session, Worker, decision.worker_id).blocked = True


@dataclass
class ExecutionReport:
    """Counts of decisions by final state in this run, and the messages worth showing."""

    done: int = 0
    failed: int = 0
    unverified: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: ExecutionReport) -> None:
        self.done += other.done
        self.failed += other.failed
        self.unverified += other.unverified
        self.notes += other.notes


@dataclass(frozen=True)
class _Target:
    decision_id: int
    action: str
    amount: Decimal | None
    token: str
    reason: str
    assignment_id: str | None  # provider's
    work_id: str | None
    worker_id: str  # provider's

    def needs(self, field_name: str) -> Any:
        """The field's value, or a clear error when the decision lacks it (e.g. an approval with no assignment)."""
        value = getattr(self, field_name)
        if value is None:
            raise ValueError(f"decision {self.decision_id} ({self.action}) has no {field_name}")
        return value


def _targets(session: Session, campaign_id: int, statuses: tuple[str, ...]) -> list[_Target]:
    rows = session.execute(
        select(ReviewDecision, Assignment.provider_assignment_id, Hit.provider_hit_id, Worker.external_id)
        .outerjoin(Assignment, Assignment.id == ReviewDecision.assignment_id)
        .outerjoin(Hit, Hit.id == Assignment.hit_id)
        .join(Worker, Worker.id == ReviewDecision.worker_id)
        .where(ReviewDecision.campaign_id == campaign_id, ReviewDecision.status.in_(statuses))
    ).all()
    targets = [
        _Target(d.id, d.action, parse_amount(d.amount) if d.amount else None, d.request_token, d.reason,
                assignment_id, work_id, worker_id)
        for d, assignment_id, work_id, worker_id in rows
    ]
    return sorted(targets, key=lambda t: (ORDER.get(t.action, 9), t.decision_id))


def _finish(session: Session, target: _Target, status: DecisionStatus, outcome: str, campaign_id: int,
            provider: Provider) -> None:
    decision = get_row(session, ReviewDecision, target.decision_id)
    apply_decision(session, decision, status, outcome)
    audit(session, f"{provider.name}.{target.action}", campaign_id=campaign_id,
          target=target.assignment_id or target.worker_id, reason=target.reason, outcome=f"{status}: {outcome}",
          details={"decision": target.decision_id, "request_token": target.token,
                   "amount": decision.amount, "live": provider.live})


def _call(provider: Provider, target: _Target, messages: WorkerMessages) -> str:
    if target.action == DecisionAction.approve:
        return provider.approve(target.needs("assignment_id"), feedback=messages.approval_feedback)
    if target.action == DecisionAction.reject:
        return provider.reject(target.needs("assignment_id"), feedback=messages.rejection_feedback,
                               category=messages.rejection_category)
    if target.action == DecisionAction.bonus:
        return provider.send_bonus(work_id=target.needs("work_id"), worker_id=target.worker_id,
                                   assignment_id=target.needs("assignment_id"), amount=target.needs("amount"),
                                   reason=messages.bonus_reason, token=target.token)
    if target.action in (DecisionAction.block, DecisionAction.exclude):
        return provider.block(target.worker_id, reason=target.reason)
    raise ValueError(f"unknown decision action {target.action!r}")


def _send(sessions: sessionmaker[Session], campaign_id: int, provider: Provider, target: _Target,
          messages: WorkerMessages, report: ExecutionReport) -> None:
    with sessions.begin() as session:
        decision = get_row(session, ReviewDecision, target.decision_id)
        decision.status, decision.updated_at = SENT, utcnow()
        audit(session, f"{provider.name}.{target.action}.send", campaign_id=campaign_id,
              target=target.assignment_id or target.worker_id, reason=target.reason,
              details={"decision": target.decision_id, "request_token": target.token, "amount": decision.amount})
    try:
        outcome = _call(provider, target, messages)
    except (RetriesExhausted, OutcomeUnknown) as error:
        with sessions.begin() as session:  # may or may not have reached the provider: reconcile later
            _finish(session, target, SENT, f"{UNVERIFIED}{error}", campaign_id, provider)
        report.unverified += 1
        report.notes.append(str(error))
        return
    except (ProviderError, ValueError) as error:
        with sessions.begin() as session:
            _finish(session, target, FAILED, str(error), campaign_id, provider)
        report.failed += 1
        report.notes.append(f"decision {target.decision_id} ({target.action}) failed: {error}")
        return
    with sessions.begin() as session:
        _finish(session, target, DONE, outcome, campaign_id, provider)
    report.done += 1


def execute_pending(sessions: sessionmaker[Session], campaign_id: int, provider: Provider,
                    messages: WorkerMessages, *, only: tuple[str, ...] | None = None,
                    progress: Callable[[int], None] | None = None) -> ExecutionReport:
    """Send every pending decision of the campaign (approvals and rejections first)."""
    report = ExecutionReport()
    with sessions() as session:
        targets = [t for t in _targets(session, campaign_id, (PENDING,)) if only is None or t.action in only]
    for target in targets:
        _send(sessions, campaign_id, provider, target, messages, report)
        if progress:
            progress(1)
    return report


def reconcile(sessions: sessionmaker[Session], campaign_id: int, provider: Provider,
              messages: WorkerMessages, *, resend_unverified_bonuses: bool = False) -> ExecutionReport:
    """Finish every ``sent`` decision (a crash or an exhausted retry left its effect unknown)."""
    report = ExecutionReport()
    with sessions() as session:
        targets = _targets(session, campaign_id, (SENT,))
    for target in targets:
        verdict = _check(sessions, campaign_id, provider, target, resend_unverified_bonuses)
        if verdict is None:  # not applied, safe to send (again)
            _send(sessions, campaign_id, provider, target, messages, report)
        elif verdict[0] == DONE:
            with sessions.begin() as session:
                _finish(session, target, DONE, f"reconciled: {verdict[1]}", campaign_id, provider)
            report.done += 1
        elif verdict[0] == FAILED:
            with sessions.begin() as session:
                _finish(session, target, FAILED, f"reconciled: {verdict[1]}", campaign_id, provider)
            report.failed += 1
        else:
            with sessions.begin() as session:
                _finish(session, target, SENT, f"{UNVERIFIED}{verdict[1]}", campaign_id, provider)
            report.unverified += 1
            report.notes.append(f"decision {target.decision_id}: {verdict[1]}")
    return report


def _check(sessions: sessionmaker[Session], campaign_id: int, provider: Provider, target: _Target,
           resend_unverified: bool) -> tuple[str, str] | None:
    """What the provider shows for a sent decision: (done|failed|unverified, why), or None to resend."""
    if target.action in (DecisionAction.approve, DecisionAction.reject):
        status = provider.get_assignment(target.needs("assignment_id")).status
        wanted = ProviderStatus.approved if target.action == DecisionAction.approve else ProviderStatus.rejected
        if status is wanted:
            return DONE, f"provider shows the assignment {status.value}"
        if status in (ProviderStatus.approved, ProviderStatus.rejected):
            return FAILED, f"provider shows the assignment {status.value}, not {wanted.value}"
        return None
    if target.action == DecisionAction.bonus:
        paid = provider.bonuses_paid(work_id=target.needs("work_id"), assignment_id=target.needs("assignment_id"),
                                     worker_id=target.worker_id)
        with sessions() as session:
            recorded = session.scalars(
                select(ReviewDecision.amount).where(
                    ReviewDecision.campaign_id == campaign_id, ReviewDecision.assignment_id == get_row(
                        session, ReviewDecision, target.decision_id).assignment_id,
                    ReviewDecision.action == DecisionAction.bonus, ReviewDecision.status == DONE)
            ).all()
        amount = target.needs("amount")
        already = sum(1 for a in recorded if a is not None and parse_amount(a) == amount)
        if paid.count(amount) > already:
            return DONE, f"provider shows a bonus of {target.amount} paid"
        if provider.bonus_retry_safe or resend_unverified:
            return None
        return ("unverified", f"no bonus of {target.amount} visible on {provider.name} yet (payments can lag); "
                "it is not resent automatically because a repeat could pay twice: check the provider, then "
                "run review with --resend-unverified if it was not paid")
    return None  # block / exclude: idempotent, send again
