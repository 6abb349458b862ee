"""States as types keep the strings already stored in databases and printed in reports."""
from __future__ import annotations

import json

from analysis.qc_states import QCStatus as AnalysisQCStatus
from da_platform.db.models import FINISHED, AssignmentStatus
from da_platform.db.states import DecisionAction, DecisionStatus, QCStatus, WorkerSource

# The strings written by 0.1.0 into review_decision.action / .status and into QC reports.
STORED = {
    DecisionAction: {"approve", "reject", "bonus", "block", "exclude", "use_data", "exclude_data"},
    DecisionStatus: {"pending", "sent", "done", "failed"},
    QCStatus: {"passed", "failed", "too_few_pairs", "zero_variance", "not_quality_controlled"},
    WorkerSource: {"pool", "mturk", "prolific"},  # worker.source, assignment.source, hit.provider
}


def test_values_are_the_stored_strings_so_no_data_migration_is_needed():
    for state, values in STORED.items():
        assert {member.value for member in state} == values
        for value in values:
            assert state(value) == value  # a string read back from the database is a member


def test_a_state_prints_and_serialises_as_its_value():
    for state in STORED:
        for member in state:
            assert str(member) == f"{member}" == "%s" % member == member.value  # noqa: UP031 (logging formats so)
            assert f"{member:>25}" == f"{member.value:>25}"
            assert json.loads(json.dumps({"s": member})) == {"s": member.value}


def test_one_qc_status_for_analysis_and_platform():
    assert QCStatus is AnalysisQCStatus


def test_finished_means_the_worker_rated_every_slot_whatever_the_provider_did_since():
    assert set(FINISHED) == {AssignmentStatus.completed, AssignmentStatus.submitted, AssignmentStatus.approved,
                             AssignmentStatus.rejected}
