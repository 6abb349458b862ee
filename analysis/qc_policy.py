"""The quality-control policy: which test decides whether a worker's ratings are used, at what level.

The defaults of quality control are decided here: ``DEFAULT_QC`` (the published test: ratings files and
campaigns that stored no policy) and the WMT reproduction's ``WMT_QC``; the analysis, the command line, the
dashboard and the payment policy read them here. What ``build`` stores with a new campaign depends on the crowd
it builds for (``da_platform.building.crowds``: the pooled test for paid crowds and a lab's own pool).
A campaign stores its policy in ``Campaign.settings["qc"]`` (:meth:`QCPolicy.to_dict`); the payment
policy (``da_platform.review.policy.ReviewPolicy``) is separate and never changes which ratings count.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from analysis.states import QCMethod, QCScope

QC_METHODS: tuple[str, ...] = tuple(m.value for m in QCMethod)
QC_SCOPES: tuple[str, ...] = tuple(s.value for s in QCScope)


@dataclass(frozen=True)
class QCPolicy:
    """Quality control of one analysis: the test (``method``), its level (``alpha``) and the pooling ``scope``.

    Strings are accepted for the enums (``QCPolicy("ttest")``); an unknown one is a ``ValueError`` that
    lists the known ones."""

    method: QCMethod = QCMethod.wilcoxon
    alpha: float = 0.05
    scope: QCScope = QCScope.group

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", _member(QCMethod, self.method, "quality-control method"))
        object.__setattr__(self, "scope", _member(QCScope, self.scope, "quality-control scope"))
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, (int, float)) or not 0 < self.alpha < 1:
            raise ValueError(f"quality-control alpha must be a number between 0 and 1, not {self.alpha!r}")
        object.__setattr__(self, "alpha", float(self.alpha))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> QCPolicy:
        """The policy stored as ``to_dict`` wrote it (missing keys: the defaults)."""
        data = dict(data or {})
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"unknown quality-control setting(s): {', '.join(unknown)}")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method.value, "alpha": self.alpha, "scope": self.scope.value}

    def with_changes(self, **changes: Any) -> QCPolicy:
        """This policy with the given fields changed (None: unchanged)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _member(enum: type[QCMethod] | type[QCScope], value: object, what: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        known = ", ".join(m.value for m in enum)
        raise ValueError(f"unknown {what} {value!r}; expected one of {known}") from None


DEFAULT_QC = QCPolicy()
"""The platform's quality control: the published one-sided Wilcoxon signed-rank test on the BAD_REF pairs,
p < 0.05, per campaign."""
WMT_QC = QCPolicy(QCMethod.ttest, 0.05, QCScope.worker)
"""WMT's up to 2021 (``analyze --wmt-compat``): the paired t-test, pairs pooled per worker over language pairs."""

__all__ = ["DEFAULT_QC", "QC_METHODS", "QC_SCOPES", "WMT_QC", "QCMethod", "QCPolicy", "QCScope"]
