"""The command line's parameter types: a campaign, a test set, a system or a worker as a person names it
(shared by all command modules).

A command takes a campaign as ``type=CAMPAIGN`` (a test set as ``TEST_SET``, a system as ``SYSTEM``, a worker
as ``WORKER``) and receives a ``Named…`` value whose ``find`` looks it up in the command's own session through
the database's one lookup (:func:`da_platform.db.rows.find_named`): the row with that name, else, for a whole
number, the row with that id. A name that exists wins: a campaign named "7" is what 7 finds. What is not there
is the same error in every command, listing the names there are and naming the database.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

import click

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from da_platform.db.models import Campaign, System, TestSet, Worker


@dataclass(frozen=True)
class Given:
    """What the user typed to name a row."""

    given: str

    def __str__(self) -> str:
        return self.given


class NamedCampaign(Given):
    """A campaign by name or id."""

    def find(self, session: Session) -> Campaign:
        from da_platform.db.models import Campaign
        from da_platform.db.rows import find_named

        return _found(lambda: find_named(session, Campaign, self.given, kind="campaign"))


class NamedTestSet(Given):
    """A test set by name or id."""

    def find(self, session: Session) -> TestSet:
        from da_platform.db.models import TestSet
        from da_platform.db.rows import find_named

        return _found(lambda: find_named(session, TestSet, self.given, kind="test set"))


class NamedSystem(Given):
    """A system of a test set, by name or id."""

    def find(self, session: Session, test_set: TestSet) -> System:
        from da_platform.db.models import System
        from da_platform.db.rows import find_named

        return _found(lambda: find_named(session, System, self.given, kind="system",
                                         within=System.test_set_id == test_set.id,
                                         scope=f" in test set {test_set.name!r}"))


class NamedWorker(Given):
    """A worker of a campaign: ``source:id`` as the exports print it, or the id alone if unique."""

    def find(self, session: Session, campaign: Campaign) -> Worker:
        from da_platform.campaigns.assignments import find_worker

        return _found(lambda: find_worker(session, campaign, self.given))


R = TypeVar("R")


def _found(lookup: Callable[[], R]) -> R:
    """The row ``lookup`` finds; a row that is not there ends the command with the lookup's message."""
    from da_platform.campaigns.assignments import UnknownWorker
    from da_platform.db.rows import UnknownName

    try:
        return lookup()
    except (UnknownName, UnknownWorker) as error:
        raise click.ClickException(str(error)) from None


G = TypeVar("G", bound=Given)


class NameType(click.ParamType, Generic[G]):
    """A parameter naming a row: parsing only keeps the text; the command finds the row in its session."""

    def __init__(self, name: str, named: type[G]) -> None:
        self.name = name
        self.named = named

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> G:
        return value if isinstance(value, self.named) else self.named(str(value))


CAMPAIGN = NameType("campaign", NamedCampaign)
TEST_SET = NameType("test_set", NamedTestSet)
SYSTEM = NameType("system", NamedSystem)
WORKER = NameType("worker", NamedWorker)
