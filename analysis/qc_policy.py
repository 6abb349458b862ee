"""The quality-control policy: which test decides whether a worker's ratings are used, at what level.

The defaults of quality control are decided here: ``DEFAULT_QC`` (the published test: ratings files and
campaigns that stored no policy) and the WMT reproduction's ``WMT_QC``; the analysis, the command line, the
dashboard and the payment policy read them here. What ``build`` stores with a new campaign depends on the crowd
it builds for (``da_platform.building.crowds``: the pooled test for paid crowds and a lab's own pool).
A campaign stores its policy in ``Campaign.settings["qc"]`` (:meth:`QCPolicy.to_dict`); the payment
policy (``da_platform.config.review_policy.ReviewPolicy``) is separate and never changes which ratings count.

One :class:`QCPolicy` travels whole from where it is stored to the test that applies it: a run's choices
(``analyze --qc``, ``--qc-alpha``, ``--qc-scope``: :class:`QCOverrides`) are laid over the stored policy by
:func:`resolve_policy` alone, for a campaign and for a ratings file alike, and the result is what
``analysis.report.analyze``, ``analysis.quality.quality_control`` and ``analysis.verdict.worker_verdicts`` take.
The ranking's significance level is not part of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from analysis.qc_states import QCMethod, QCScope
from da_core.stored_record import StoredRecord

QC_METHODS: tuple[str, ...] = tuple(m.value for m in QCMethod)
QC_SCOPES: tuple[str, ...] = tuple(s.value for s in QCScope)


@dataclass(frozen=True)
class QCPolicy(StoredRecord):
    """Quality control of one analysis: the test (``method``), its level (``alpha``) and the pooling ``scope``.

    Strings are accepted for the enums (``QCPolicy("ttest")``); an unknown one is a ``ValueError`` that
    lists the known ones. Stored as :meth:`to_dict` writes it (``da_core.stored_record``)."""

    what: ClassVar[str] = "quality-control setting"
    method: QCMethod = QCMethod.wilcoxon
    alpha: float = 0.05
    scope: QCScope = QCScope.group

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", _member(QCMethod, self.method, "quality-control method"))
        object.__setattr__(self, "scope", _member(QCScope, self.scope, "quality-control scope"))
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, (int, float)) or not 0 < self.alpha < 1:
            raise ValueError(f"quality-control alpha must be a number between 0 and 1, not {self.alpha!r}")
        object.__setattr__(self, "alpha", float(self.alpha))

    def stored_values(self) -> dict[str, Any]:
        return {"method": self.method.value, "scope": self.scope.value}

    @property
    def pools_every_check(self) -> bool:
        """Whether the test pools every check family in one test, MEANING pairs included (``pooled``, and
        ``weighted``, the same pairs weighed by what real people do)."""
        return self.method in (QCMethod.pooled, QCMethod.weighted)

    @property
    def off(self) -> bool:
        """Whether quality control is off (``none``: the ratings are taken as already filtered)."""
        return self.method is QCMethod.none


@dataclass(frozen=True)
class QCOverrides:
    """What one run asks of quality control over the stored policy (``analyze --qc``, ``--qc-alpha``,
    ``--qc-scope``); None keeps the stored policy's part. Strings are accepted for the enums."""

    method: QCMethod | None = None
    alpha: float | None = None
    scope: QCScope | None = None

    def __post_init__(self) -> None:
        if self.method is not None:
            object.__setattr__(self, "method", _member(QCMethod, self.method, "quality-control method"))
        if self.scope is not None:
            object.__setattr__(self, "scope", _member(QCScope, self.scope, "quality-control scope"))


def resolve_policy(stored: QCPolicy | None, overrides: QCOverrides = QCOverrides()) -> QCPolicy:
    """The policy a run applies: ``stored`` (a campaign's ``CampaignSettings.stored_qc``, or the one a ratings file
    carries; None: ``DEFAULT_QC``) with each part the run asks for in its place. The one place where a policy
    is resolved."""
    return (stored or DEFAULT_QC).with_changes(method=overrides.method, alpha=overrides.alpha, scope=overrides.scope)


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

__all__ = ["DEFAULT_QC", "QC_METHODS", "QC_SCOPES", "WMT_QC", "QCMethod", "QCOverrides", "QCPolicy", "QCScope",
           "resolve_policy"]
