"""The platform's data model (SQLAlchemy 2.0, typed).

Flow of the data: a TestSet holds Questions (with References); Systems hold one Answer per
Question; a Campaign rates some Systems of a TestSet under one criterion and is cut into HITs of
100 Slots; Workers take HITs as Assignments and give one Rating per Slot. Every decision taken
about a worker or an assignment goes to the AuditLog, and every payment-relevant decision to
ReviewDecision, so that a crash between deciding and calling a provider can be reconciled.
"""
from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from da_core.enums import AnswerType, SlotType
from da_platform.db.states import DecisionAction, DecisionStatus, WorkerSource


def utcnow() -> datetime:
    """Timezone-aware current time in UTC (all timestamps are server-side UTC)."""
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base with a naming convention so that migrations name constraints stably."""

    from sqlalchemy import MetaData

    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


class CampaignStatus(str, enum.Enum):
    draft = "draft"          # created, not built
    built = "built"          # HITs assembled and rendered
    running = "running"      # open to workers
    paused = "paused"        # no new HIT handed out for now; work under way may finish
    closed = "closed"        # no more assignments handed out


class AssignmentStatus(str, enum.Enum):
    in_progress = "in_progress"
    completed = "completed"  # all 100 slots rated on our side
    submitted = "submitted"  # the provider reports it submitted
    approved = "approved"
    rejected = "rejected"
    abandoned = "abandoned"  # expired or returned without completing


FINISHED = (AssignmentStatus.completed, AssignmentStatus.submitted, AssignmentStatus.approved,
            AssignmentStatus.rejected)
"""The worker rated every slot: completed on our side, whatever the provider has made of it since."""
CONFIRMED = (AssignmentStatus.submitted, AssignmentStatus.approved, AssignmentStatus.rejected)
"""States only the provider's word gives an assignment (``sync``, or a decision the provider carried out): an
MTurk or Prolific assignment in one of them is confirmed as its worker's (docs/security.md, "Arrival rules")."""


class AssignmentTransition(str, enum.Enum):
    """A change of an assignment's status the platform makes (docs/campaign-lifecycle.md, "Assignment states")."""

    rate = "rate"  # a rating that is not the HIT's last: the assignment stays in progress, one slot further
    finish = "finish"  # the HIT's last rating
    time_out = "time_out"  # past its source's time limit, released when the next worker arrives
    release = "release"  # ``campaign release`` (the dashboard's button)
    release_unlisted = "release_unlisted"  # sync: past its time limit and not listed by the provider
    forged = "forged"  # sync: the provider has the assignment id for another worker or HIT
    sync_submitted = "sync_submitted"  # sync: the provider's word, whatever the assignment's status here
    sync_approved = "sync_approved"
    sync_rejected = "sync_rejected"
    sync_abandoned = "sync_abandoned"
    approve = "approve"  # a review decision carried out
    reject = "reject"


def _all_but(status: AssignmentStatus) -> tuple[AssignmentStatus, ...]:
    return tuple(other for other in AssignmentStatus if other is not status)


ASSIGNMENT_TRANSITIONS: dict[AssignmentTransition, tuple[tuple[AssignmentStatus, ...], AssignmentStatus]] = {
    AssignmentTransition.rate: ((AssignmentStatus.in_progress,), AssignmentStatus.in_progress),
    AssignmentTransition.finish: ((AssignmentStatus.in_progress,), AssignmentStatus.completed),
    AssignmentTransition.time_out: ((AssignmentStatus.in_progress,), AssignmentStatus.abandoned),
    AssignmentTransition.release: ((AssignmentStatus.in_progress,), AssignmentStatus.abandoned),
    AssignmentTransition.release_unlisted: ((AssignmentStatus.in_progress, AssignmentStatus.completed),
                                            AssignmentStatus.abandoned),
    AssignmentTransition.forged: (_all_but(AssignmentStatus.abandoned), AssignmentStatus.abandoned),
    AssignmentTransition.sync_submitted: (_all_but(AssignmentStatus.submitted), AssignmentStatus.submitted),
    AssignmentTransition.sync_approved: (_all_but(AssignmentStatus.approved), AssignmentStatus.approved),
    AssignmentTransition.sync_rejected: (_all_but(AssignmentStatus.rejected), AssignmentStatus.rejected),
    AssignmentTransition.sync_abandoned: (_all_but(AssignmentStatus.abandoned), AssignmentStatus.abandoned),
    AssignmentTransition.approve: (tuple(AssignmentStatus), AssignmentStatus.approved),
    AssignmentTransition.reject: (tuple(AssignmentStatus), AssignmentStatus.rejected),
}
"""Every change of an assignment's status: transition -> (the statuses it starts from, the status it gives). Each
conditional ``UPDATE`` and each change of a row takes its statuses from here, by naming its transition
(:func:`may_make`, :func:`make`); a new one is a new row here and in the documented table."""


def may_make(transition: AssignmentTransition, status: Any) -> Any:
    """The SQL condition that ``status`` (a column) is one the transition starts from: ``status = 'x'`` for one
    status (the statement the rating path has always sent), else ``status IN (...)``."""
    sources = ASSIGNMENT_TRANSITIONS[transition][0]
    return status == sources[0] if len(sources) == 1 else status.in_(sources)


def status_after(transition: AssignmentTransition) -> AssignmentStatus:
    """The status the transition gives."""
    return ASSIGNMENT_TRANSITIONS[transition][1]


def make(assignment: Assignment, transition: AssignmentTransition) -> bool:
    """Give ``assignment`` the transition's status if its status is one the transition starts from (caller commits);
    whether it did."""
    sources, target = ASSIGNMENT_TRANSITIONS[transition]
    if assignment.status not in sources:
        return False
    assignment.status = target
    return True


class BehaviourStatus(str, enum.Enum):
    """The behaviour record that came with a rating (docs/quality-control.md#behaviour-record): valid, or why there
    is none."""

    valid = "valid"
    missing = "missing"  # no record sent (no script, or posted straight to the endpoint)
    invalid = "invalid"  # not a well-formed record
    oversized = "oversized"  # larger than the limit: not read
    mismatched = "mismatched"  # names another slot (e.g. replayed from another rating)


def _enum(cls: type[enum.Enum], name: str) -> Enum:
    return Enum(cls, name=name, native_enum=False, length=32, validate_strings=True)


class SourceName(TypeDecorator[WorkerSource]):
    """A :class:`WorkerSource` in the VARCHAR(20) column that always held its name (the values never changed, so
    no migration): written as the name, read back as the member; a name that is not a member is refused."""

    impl = String(20)
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else WorkerSource(value).value

    def process_result_value(self, value: str | None, dialect: Dialect) -> WorkerSource | None:
        return None if value is None else WorkerSource(value)


class TestSet(Base):
    __tablename__ = "test_set"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    source_file: Mapped[str | None] = mapped_column(Text)
    # Ids of the questions its file had but the import left out (no reference answers: SQuAD v2.0's
    # unanswerable ones, DuReader's with empty answers): predictions for them are skipped, not refused.
    left_out_ids: Mapped[list[str] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    questions: Mapped[list[Question]] = relationship(
        back_populates="test_set", cascade="all, delete-orphan", order_by="Question.id"
    )
    systems: Mapped[list[System]] = relationship(
        back_populates="test_set", cascade="all, delete-orphan", order_by="System.id"
    )


class Question(Base):
    __tablename__ = "question"
    __table_args__ = (UniqueConstraint("test_set_id", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    test_set_id: Mapped[int] = mapped_column(ForeignKey("test_set.id", ondelete="CASCADE"), index=True)
    external_id: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    context: Mapped[str | None] = mapped_column(Text)
    answer_type: Mapped[AnswerType | None] = mapped_column(_enum(AnswerType, "answer_type"))
    yes_no_label: Mapped[str | None] = mapped_column(String(20))
    gold_entities: Mapped[list[str] | None] = mapped_column(JSON)

    test_set: Mapped[TestSet] = relationship(back_populates="questions")
    references: Mapped[list[Reference]] = relationship(
        back_populates="question", cascade="all, delete-orphan", order_by="Reference.position"
    )


class Reference(Base):
    """A human reference answer; position 0 is the one shown to workers as "Answer A"."""

    __tablename__ = "reference"
    __table_args__ = (UniqueConstraint("question_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    yes_no_label: Mapped[str | None] = mapped_column(String(20))  # this reference's own opinion label
    entities: Mapped[list[str] | None] = mapped_column(JSON)  # this reference's gold entities

    question: Mapped[Question] = relationship(back_populates="references")


class System(Base):
    __tablename__ = "system"
    __table_args__ = (UniqueConstraint("test_set_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    test_set_id: Mapped[int] = mapped_column(ForeignKey("test_set.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    is_human: Mapped[bool] = mapped_column(Boolean, default=False)
    source_file: Mapped[str | None] = mapped_column(Text)

    test_set: Mapped[TestSet] = relationship(back_populates="systems")
    answers: Mapped[list[Answer]] = relationship(back_populates="system", cascade="all, delete-orphan")


class Answer(Base):
    __tablename__ = "answer"
    __table_args__ = (UniqueConstraint("system_id", "question_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id", ondelete="CASCADE"), index=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"), index=True)
    text: Mapped[str] = mapped_column(Text)
    yes_no_label: Mapped[str | None] = mapped_column(String(20))  # the system's own yes/no label

    system: Mapped[System] = relationship(back_populates="answers")
    question: Mapped[Question] = relationship()


class JudgeScore(Base):
    """An automatic judge's score of one answer (for example an LLM judge the researcher ran), imported with
    ``da-platform import judge-scores``; quality control asks whether a worker's ratings carry information
    beyond such scores (``analysis.behaviour_signals``, ``beyond_automatic``). Any scale: only its relation to the
    ratings is used."""

    __tablename__ = "judge_score"
    __table_args__ = (UniqueConstraint("answer_id", "judge"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    answer_id: Mapped[int] = mapped_column(ForeignKey("answer.id", ondelete="CASCADE"), index=True)
    judge: Mapped[str] = mapped_column(String(200))
    score: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CampaignSystem(Base):
    """Which systems of the test set a campaign rates."""

    __tablename__ = "campaign_system"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id", ondelete="CASCADE"), primary_key=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id", ondelete="CASCADE"), primary_key=True)


class Campaign(Base):
    """One criterion over one test set and a set of systems (docs/method.md §1).

    ``settings`` records everything needed to reproduce the build and the analysis: degradation
    method and parameters, passes, quality-control method and thresholds, payment settings. It is
    read and written only through ``da_platform.config.campaign_settings.CampaignSettings``.
    """

    __tablename__ = "campaign"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    test_set_id: Mapped[int] = mapped_column(ForeignKey("test_set.id"), index=True)
    criterion: Mapped[str] = mapped_column(String(50))  # adequacy | fluency | custom
    statement: Mapped[str] = mapped_column(Text)
    show_reference: Mapped[bool] = mapped_column(Boolean, default=True)
    seed: Mapped[int] = mapped_column(Integer)
    passes: Mapped[int] = mapped_column(Integer, default=1)
    max_hits_per_worker: Mapped[int] = mapped_column(Integer, default=1)
    completion_code: Mapped[str | None] = mapped_column(String(100))
    status: Mapped[CampaignStatus] = mapped_column(
        _enum(CampaignStatus, "campaign_status"), default=CampaignStatus.draft
    )
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    test_set: Mapped[TestSet] = relationship()
    systems: Mapped[list[System]] = relationship(secondary="campaign_system", order_by="System.id")
    hits: Mapped[list[Hit]] = relationship(
        back_populates="campaign", cascade="all, delete-orphan", order_by="Hit.index"
    )


class Hit(Base):
    """One unit of paid work: exactly 100 slots."""

    __tablename__ = "hit"
    __table_args__ = (UniqueConstraint("campaign_id", "index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id", ondelete="CASCADE"), index=True)
    index: Mapped[int] = mapped_column(Integer)
    public_id: Mapped[str] = mapped_column(String(64), unique=True)
    # How many workers may take this HIT (1 unless the campaign asks for more assignments per HIT).
    max_assignments: Mapped[int] = mapped_column(Integer, default=1)
    # How many slots it has (100 per docs/method.md §2; fixed at build time). Stored so that the worker pages,
    # which show "k / total" and close the assignment after the last slot, need not count per request.
    slot_count: Mapped[int] = mapped_column(Integer)
    # Provider-side identifiers once launched (MTurk HITId, Prolific study id).
    provider: Mapped[WorkerSource | None] = mapped_column(SourceName())
    provider_hit_id: Mapped[str | None] = mapped_column(String(200), index=True)

    campaign: Mapped[Campaign] = relationship(back_populates="hits")
    slots: Mapped[list[Slot]] = relationship(
        back_populates="hit",
        cascade="all, delete-orphan",
        order_by="Slot.position",
        foreign_keys="Slot.hit_id",
    )
    assignments: Mapped[list[Assignment]] = relationship(back_populates="hit")


class Slot(Base):
    """One screen of a HIT.

    ``question_id``/``system_id``/``answer_id`` identify the item; for checks ``original_slot_id``
    points at the ordinary slot they were made from. ``candidate_text`` is what the worker sees as
    the candidate (the degraded answer for BAD_REF, the reference for REF); images are storage keys.
    """

    __tablename__ = "slot"
    __table_args__ = (UniqueConstraint("hit_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hit.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)  # 0..99, the order served
    set_index: Mapped[int] = mapped_column(Integer)  # 0..9
    slot_type: Mapped[SlotType] = mapped_column(_enum(SlotType, "slot_type"))
    public_id: Mapped[str] = mapped_column(String(64), unique=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id"), index=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id"), index=True)
    answer_id: Mapped[int] = mapped_column(ForeignKey("answer.id"))
    original_slot_id: Mapped[int | None] = mapped_column(ForeignKey("slot.id"))
    candidate_text: Mapped[str] = mapped_column(Text)
    reference_text: Mapped[str | None] = mapped_column(Text)
    candidate_image: Mapped[str | None] = mapped_column(String(128))
    reference_image: Mapped[str | None] = mapped_column(String(128))
    degradation: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    hit: Mapped[Hit] = relationship(back_populates="slots", foreign_keys=[hit_id])
    question: Mapped[Question] = relationship()
    system: Mapped[System] = relationship()
    answer: Mapped[Answer] = relationship()
    original_slot: Mapped[Slot | None] = relationship(remote_side=[id])


class Worker(Base):
    """A person rating, identified by the source that sent them (:class:`WorkerSource`) and its id there."""

    __tablename__ = "worker"
    __table_args__ = (UniqueConstraint("source", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    source: Mapped[WorkerSource] = mapped_column(SourceName())
    external_id: Mapped[str] = mapped_column(String(200))
    blocked: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The researcher's name for an invited own-pool worker (``invite --label``); never shown to workers.
    label: Mapped[str | None] = mapped_column(String(200))

    assignments: Mapped[list[Assignment]] = relationship(back_populates="worker")


class Assignment(Base):
    """One worker's go at one HIT under one provider assignment id: a worker id may have several on a HIT (a
    HIT accepted again on MTurk gets a new assignment id; an arrival under a made-up one is its own row), and
    an arrival resumes only its own (docs/security.md, "Arrival rules")."""

    __tablename__ = "assignment"
    __table_args__ = (UniqueConstraint("hit_id", "worker_id", "provider_assignment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hit.id", ondelete="CASCADE"), index=True)
    worker_id: Mapped[int] = mapped_column(ForeignKey("worker.id"), index=True)
    public_id: Mapped[str] = mapped_column(String(64), unique=True)
    source: Mapped[WorkerSource] = mapped_column(SourceName())
    # MTurk assignmentId, Prolific SESSION_ID, or None for the own pool.
    provider_assignment_id: Mapped[str | None] = mapped_column(String(200), index=True)
    provider_data: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    status: Mapped[AssignmentStatus] = mapped_column(
        _enum(AssignmentStatus, "assignment_status"), default=AssignmentStatus.in_progress
    )
    next_position: Mapped[int] = mapped_column(Integer, default=0)  # first unrated slot
    current_shown_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The current slot's images this assignment was served (IMAGE_SERVED bits), cleared when the slot is rated.
    current_images_served: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    hit: Mapped[Hit] = relationship(back_populates="assignments")
    worker: Mapped[Worker] = relationship(back_populates="assignments")
    ratings: Mapped[list[Rating]] = relationship(back_populates="assignment", order_by="Rating.id")


class Rating(Base):
    """One score for one slot by one assignment, stored the moment it is given."""

    __tablename__ = "rating"
    __table_args__ = (UniqueConstraint("assignment_id", "slot_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id", ondelete="CASCADE"), index=True)
    slot_id: Mapped[int] = mapped_column(ForeignKey("slot.id"), index=True)
    score: Mapped[int] = mapped_column(Integer)
    shown_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    rated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # What the page recorded while the item was shown (da_platform.rating.behaviour_record); NULL status: before 0003.
    behaviour_status: Mapped[BehaviourStatus | None] = mapped_column(_enum(BehaviourStatus, "behaviour_status"))
    behaviour: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    # The server's own record: every image the slot shows was served to the assignment before this rating
    # (da_platform.rating.flow); NULL: rated before 0012.
    images_served: Mapped[bool | None] = mapped_column(Boolean)

    assignment: Mapped[Assignment] = relationship(back_populates="ratings")
    slot: Mapped[Slot] = relationship()


class ReviewDecision(Base):
    """A payment-relevant decision (approve, reject, bonus, block) and the state of carrying it out.

    ``request_token`` is sent to the provider as its idempotency key, so a retry after a crash never
    pays twice; ``status`` moves pending -> sent -> done | failed.
    """

    __tablename__ = "review_decision"

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignment.id"), index=True)
    worker_id: Mapped[int | None] = mapped_column(ForeignKey("worker.id"), index=True)
    action: Mapped[DecisionAction] = mapped_column(_enum(DecisionAction, "decision_action"))
    use_data: Mapped[bool] = mapped_column(Boolean, default=True)
    amount: Mapped[str | None] = mapped_column(String(20))  # exact decimal string, e.g. "1.50"
    reason: Mapped[str] = mapped_column(Text)
    request_token: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[DecisionStatus] = mapped_column(_enum(DecisionStatus, "decision_status"),
                                                   default=DecisionStatus.pending)
    outcome: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class AuditLog(Base):
    """Append-only record of every decision and every provider call, with its reason and outcome."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_campaign_at", "campaign_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    actor: Mapped[str] = mapped_column(String(200))
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaign.id", ondelete="SET NULL"))
    action: Mapped[str] = mapped_column(String(100))
    target: Mapped[str | None] = mapped_column(String(200))
    reason: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    outcome: Mapped[str | None] = mapped_column(Text)


class AdminUser(Base):
    """A researcher who may log in to the dashboard (created from the CLI)."""

    __tablename__ = "admin_user"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Stored in each dashboard session at login; logout and a new password increase it, which ends
    # every session opened before (a copied cookie stops working).
    session_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class ImageBlob(Base):
    """A rendered answer image kept in the database (``DA_IMAGE_STORE=database``); ``key`` is the
    SHA-256 of ``data`` in hex, as with every image store (hit_builder/storage.py)."""

    __tablename__ = "image_blob"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
