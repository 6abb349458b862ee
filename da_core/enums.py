"""Enumerations shared by the HIT builder and the platform, stored as their string values, and ``StrState``, the
base of every state and kind enum of the project (``analysis.qc_states`` and ``da_platform.db.states`` re-export it)."""
from __future__ import annotations

import enum


class StrState(str, enum.Enum):
    """A ``str`` enum whose members equal their stored strings and whose ``str()`` and f-string form is the value on
    every supported Python (3.11 changed ``str()`` of mixed-in enums to ``Class.member``)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class AnswerType(str, enum.Enum):
    """Answer types of docs/method.md §1."""

    description = "description"
    yes_no = "yes_no"
    entity = "entity"


class SlotType(str, enum.Enum):
    """Slot types of docs/method.md §1."""

    SYSTEM = "SYSTEM"
    REPEAT = "REPEAT"
    BAD_REF = "BAD_REF"
    REF = "REF"
    MEANING = "MEANING"


class Criterion(StrState):
    """What workers judge (docs/method.md §1; ``Campaign.criterion``, stored as the value): adequacy and fluency
    bring their standard statement, a custom criterion its own."""

    adequacy = "adequacy"
    fluency = "fluency"
    custom = "custom"
