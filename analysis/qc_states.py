"""Quality-control states as types (status, method, scope), dependency-free (``enum`` only) so that any
layer may import them.

``StrState`` is the base of every state enum of the project (``da_platform.db.states`` builds on it): a
``str`` enum whose members equal their stored strings and whose ``str()`` and f-string form is the
value on every supported Python. It lives in ``da_core.enums`` (so that the HIT builder's kinds share it) and is
re-exported here.
"""
from __future__ import annotations

from da_core.enums import StrState


class QCStatus(StrState):
    """A worker's quality-control outcome (``WorkerQC.status``); the value is what is printed and exported."""

    passed = "passed"
    failed = "failed"
    too_few_pairs = "too_few_pairs"
    zero_variance = "zero_variance"
    not_quality_controlled = "not_quality_controlled"


class ExcludedBy(StrState):
    """Why a worker's ratings do not count in a group (``Exclusion.excluded_by``), as exported; ``describe`` is how
    every report says it (the verdict's words: a worker a signal flags is *flagged for review*, not excluded)."""

    decision = "decision"
    quality_control = "quality control"  # the verdict ``excluded``: a quality check failed
    flagged = "flagged for review"  # the verdict ``flagged``: the checks pass, a behaviour or content signal flags
    standard_deviation_0 = "standard deviation 0"

    @property
    def describe(self) -> str:
        """E.g. ``excluded by quality control``, ``flagged for review`` (the CLI, the dashboard)."""
        return {ExcludedBy.decision: "excluded by a review decision",
                ExcludedBy.quality_control: "excluded by quality control",
                ExcludedBy.flagged: "flagged for review (not scored)",
                ExcludedBy.standard_deviation_0: "excluded for standard deviation 0"}[self]


class QCMethod(StrState):
    """The test that decides whether a worker's check pairs show they read (``analysis.quality``)."""

    wilcoxon = "wilcoxon"  # the published method: one-sided signed-rank test on the BAD_REF pairs
    ttest = "ttest"  # WMT up to 2021: paired t-test
    mannwhitney = "mannwhitney"  # later tools: unpaired rank-sum test
    pooled = "pooled"  # every check family of the HIT in one test (analysis.checks): for one HIT per worker
    weighted = "weighted"  # the pooled test's pairs weighed by what real people do (analysis.checks, people_checks)
    none = "none"  # the ratings are already filtered: no test, everyone counts


class QCScope(StrState):
    """Over which HITs a worker's pairs are pooled: one group (campaign), or every group of the table (WMT)."""

    group = "group"
    worker = "worker"


__all__ = ["ExcludedBy", "QCMethod", "QCScope", "QCStatus", "StrState"]
