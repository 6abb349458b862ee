"""Quality-control status as a type, dependency-free (``enum`` only) so that any layer may import it.

``StrState`` is the base of every state enum of the project (``da_platform.db.states`` builds on it): a
``str`` enum whose members equal their stored strings and whose ``str()`` and f-string form is the
value on every supported Python (3.11 changed ``str()`` of mixed-in enums to ``Class.member``).
"""
from __future__ import annotations

from enum import Enum


class StrState(str, Enum):
    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class QCStatus(StrState):
    """A worker's quality-control outcome (``WorkerQC.status``); the value is what is printed and exported."""

    passed = "passed"
    failed = "failed"
    too_few_pairs = "too_few_pairs"
    zero_variance = "zero_variance"
    not_quality_controlled = "not_quality_controlled"


class ExcludedBy(StrState):
    """Why a worker's ratings do not count in a group (``Exclusion.excluded_by``), as printed and exported."""

    decision = "decision"
    quality_control = "quality control"
    standard_deviation_0 = "standard deviation 0"


__all__ = ["ExcludedBy", "QCStatus", "StrState"]
