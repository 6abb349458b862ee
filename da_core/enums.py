"""Enumerations shared by the HIT builder and the platform, stored as their string values."""
from __future__ import annotations

import enum


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


class Criterion(str, enum.Enum):
    """What workers judge (docs/method.md §1; ``Campaign.criterion``, stored as the value): adequacy and fluency
    bring their standard statement, a custom criterion its own.

    ``str()`` and f-strings give the value on every supported Python, as ``analysis.states.StrState`` does (that
    base lives above ``da_core``, which imports nothing of the project)."""

    adequacy = "adequacy"
    fluency = "fluency"
    custom = "custom"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
