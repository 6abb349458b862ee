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
