"""Automation traces in the behaviour record: optional fields the server validates, and the signal that flags a
worker whose browser says it is automated (for review, never rejection on its own)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.behaviour_signals import MAX_AUTOMATED_SHARE, MIN_RATINGS, automation_traces
from analysis.evidence import AUTOMATION_TRACES, RatingEvidence
from analysis.quality import quality_control
from analysis.verdict import VerdictStatus, worker_verdicts
from da_platform.db.models import BehaviourStatus
from da_platform.rating.behaviour_record import TRACES, parse_behaviour
from tests.crowd_tables import crowd_table, human_record

SLOT = "s-1"
BASE = {"v": 1, "slot": SLOT, "first_input_ms": 900, "pointer": 3, "touch": 0, "key": 0, "hidden_ms": 0,
        "blur_ms": 0, "paste": 0, "copy": 0, "shown_ms": 9000}


def test_the_page_and_the_analysis_name_the_same_traces():
    assert TRACES == AUTOMATION_TRACES == ("webdriver", "headless_ua", "software_gl")


def test_a_record_without_traces_is_valid_as_before():
    status, kept = parse_behaviour(json.dumps(BASE), SLOT)
    assert status == BehaviourStatus.valid and not set(TRACES) & set(kept)


@pytest.mark.parametrize("traces", [{"webdriver": 1, "headless_ua": 1, "software_gl": 1},
                                    {"webdriver": 0, "headless_ua": 0, "software_gl": 0},
                                    {"webdriver": 1}, {"software_gl": 0, "headless_ua": 1}])
def test_traces_are_stored_as_sent(traces):
    status, kept = parse_behaviour(json.dumps(BASE | traces), SLOT)
    assert status == BehaviourStatus.valid
    assert {name: kept[name] for name in TRACES if name in kept} == traces


@pytest.mark.parametrize("bad", [{"webdriver": 2}, {"webdriver": True}, {"headless_ua": "1"},
                                 {"software_gl": -1}, {"software_gl": None}, {"webdriver": 1.0},
                                 {"user_agent": "HeadlessChrome"}])
def test_a_trace_that_is_not_0_or_1_or_an_unknown_field_makes_the_record_invalid(bad):
    assert parse_behaviour(json.dumps(BASE | bad), SLOT) == (BehaviourStatus.invalid, None)


def records(n: int, **traces) -> list[dict]:
    """``n`` records of a person's pace and input, with these traces (none: a page older than the traces)."""
    rng = np.random.default_rng(5)
    rows = [human_record(rng, 8.0 + k % 5) for k in range(n)]
    for row in rows:
        for name in TRACES:
            row.pop(name)
        row.update(traces)
    return rows


def evidence(rows: list[dict]) -> RatingEvidence:
    n = len(rows)
    return RatingEvidence.from_rows(["valid"] * n, rows, ["a b"] * n, [None] * n, False)


def test_the_signal_flags_a_driven_or_headless_browser():
    driven = automation_traces(evidence(records(12, webdriver=1, headless_ua=0, software_gl=1)), np.arange(12))
    assert driven.flagged is True and driven.value == 1.0 and driven.kind == "behaviour"
    assert driven.reason == ("12 of 12 ratings came from a browser that says it is automated (records with "
                             "each trace: webdriver 12, headless_ua 0, software_gl 12): a driven or headless browser")
    headless = automation_traces(evidence(records(12, webdriver=0, headless_ua=1, software_gl=0)), np.arange(12))
    assert headless.flagged is True


def test_software_graphics_alone_flags_nobody():
    signal = automation_traces(evidence(records(12, webdriver=0, headless_ua=0, software_gl=1)), np.arange(12))
    assert signal.flagged is False and signal.value == 0.0
    assert "software_gl 12" in signal.reason


def test_the_signal_needs_enough_records_that_report_traces():
    few = evidence(records(MIN_RATINGS - 1, webdriver=1, headless_ua=1, software_gl=1))
    assert automation_traces(few, np.arange(MIN_RATINGS - 1)).flagged is None
    assert automation_traces(evidence(records(20)), np.arange(20)).flagged is None  # an older page: none reported


def test_the_threshold_is_a_share_of_records():
    mixed = evidence(records(10, webdriver=1, headless_ua=0, software_gl=0)
                     + records(10, webdriver=0, headless_ua=0, software_gl=0))
    signal = automation_traces(mixed, np.arange(20))
    assert signal.value == 0.5 == MAX_AUTOMATED_SHARE and signal.flagged is False  # at the threshold: not flagged
    assert automation_traces(mixed, np.arange(19)).flagged is True  # 10 of 19


def test_a_worker_whose_browser_is_automated_is_flagged_for_review_not_excluded():
    table = crowd_table({f"honest-{k}": "honest" for k in range(4)} | {"driven": "driven-honest"})
    verdicts = worker_verdicts(table, quality_control(table))["c"]
    driven = verdicts["driven"]
    assert driven.status == VerdictStatus.flagged
    assert [s.name for s in driven.flags] == ["automation_traces"]
    assert all(verdicts[f"honest-{k}"].status == VerdictStatus.kept for k in range(4))
