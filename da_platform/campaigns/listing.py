"""What the lists of campaigns, test sets and systems show: each campaign with its progress, each test set's
questions, systems and campaigns, each system's test set and answers."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_platform.campaigns.progress import CampaignProgress, campaign_progress
from da_platform.db.models import Answer, Campaign, Question, System, TestSet


def list_campaigns(session: Session) -> list[tuple[Campaign, CampaignProgress]]:
    """Every campaign, in the order they were built, with its progress."""
    return [(c, campaign_progress(session, c)) for c in session.scalars(select(Campaign).order_by(Campaign.id))]


@dataclass(frozen=True)
class ImportedTestSet:
    """One test set: its name, how many questions it has, its systems' and its campaigns' names."""

    name: str
    questions: int
    systems: list[str]
    campaigns: list[str]


@dataclass(frozen=True)
class SystemEntry:
    """One system: its test set's name, its name, whether it is human, how many answers it has."""

    test_set: str
    name: str
    is_human: bool
    answers: int


def list_test_sets(session: Session) -> list[ImportedTestSet]:
    """Every test set, in the order they were imported."""
    return [ImportedTestSet(t.name, session.scalar(select(func.count(Question.id)).where(Question.test_set_id == t.id))
                         or 0, [s.name for s in t.systems],
                         list(session.scalars(select(Campaign.name).where(Campaign.test_set_id == t.id))))
            for t in session.scalars(select(TestSet).order_by(TestSet.id))]


def list_systems(session: Session, test_set: TestSet | None = None) -> list[SystemEntry]:
    """Every system (of ``test_set`` only, if given), by test set and then in the order they were imported."""
    query = select(System, TestSet.name).join(TestSet, TestSet.id == System.test_set_id)
    if test_set is not None:
        query = query.where(System.test_set_id == test_set.id)
    return [SystemEntry(name, s.name, s.is_human,
                        session.scalar(select(func.count(Answer.id)).where(Answer.system_id == s.id)) or 0)
            for s, name in session.execute(query.order_by(TestSet.id, System.id))]
