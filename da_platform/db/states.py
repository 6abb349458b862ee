"""The states of review decisions and quality control, and the names of the worker sources, as types
(dependency-free: ``analysis.qc_states`` only).

``DecisionAction`` and ``DecisionStatus`` are stored in ``review_decision.action`` / ``.status`` as
their string values (non-native enum columns since migration 0008, which kept the values); ``QCStatus`` is defined in
``analysis.qc_states`` (``analysis`` does not import ``da_platform``) and re-exported here so that the
platform reads every state from one module. Each is a ``StrState``: a member equals its stored string,
and ``str()`` / f-strings give the value on every supported Python.
"""
from __future__ import annotations

from analysis.qc_states import QCStatus, StrState


class WorkerSource(StrState):
    """Where a worker comes from (``Worker.source``, ``Assignment.source``, ``Hit.provider``; stored as the value).

    Each member is registered with everything the platform knows of that source (its arrival, client, settings,
    time limit, costs and launch plan) in :mod:`da_platform.providers.registry`.
    """

    pool = "pool"  # the lab's own pool: signed invitation links
    mturk = "mturk"  # Amazon Mechanical Turk (ExternalQuestion)
    prolific = "prolific"  # Prolific (one study per campaign)


class DecisionAction(StrState):
    """What a review decision does (``ReviewDecision.action``)."""

    approve = "approve"
    reject = "reject"
    bonus = "bonus"
    block = "block"
    exclude = "exclude"  # the provider's exclusion qualification after max_hits_per_worker HITs
    use_data = "use_data"  # data only (the dashboard, once every assignment is paid for): use the ratings
    exclude_data = "exclude_data"  # data only: leave the ratings out of every score


class DecisionStatus(StrState):
    """Where carrying a decision out stands (``ReviewDecision.status``): pending -> sent -> done | failed."""

    pending = "pending"
    sent = "sent"
    done = "done"
    failed = "failed"


__all__ = ["DecisionAction", "DecisionStatus", "QCStatus", "WorkerSource"]
