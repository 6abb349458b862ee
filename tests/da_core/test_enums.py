"""The shared enums of da_core: one ``StrState`` base, whose members print as their stored values."""
from __future__ import annotations

import json

import analysis.qc_states
from da_core.enums import Criterion, StrState


def test_every_state_enum_has_one_base_whose_members_print_as_their_values() -> None:
    assert analysis.qc_states.StrState is StrState
    assert issubclass(Criterion, StrState) and issubclass(analysis.qc_states.QCStatus, StrState)
    assert (str(Criterion.fluency), f"{Criterion.custom:>8}", json.dumps([Criterion.adequacy])) == (
        "fluency", "  custom", '["adequacy"]')
