"""The payment policy with the combined verdict: behaviour alone never rejects anyone; such work is held
for the researcher's review. On SQLite and PostgreSQL, with ratings given over HTTP."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from analysis.behaviour_signals import SIGNALS, Signal
from analysis.quality import quality_control
from analysis.table import MEANING
from analysis.verdict import VerdictStatus, combine
from da_platform.config.review_policy import ReviewPolicy
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Slot, SlotType
from da_platform.db.states import DecisionAction
from da_platform.review.decisions import PolicyAction, held_for_review, judge, plan, quality_by_worker
from da_platform.simulation.crowd import SimulatedClock
from tests.crowd_tables import crowd_table
from tests.web_factories import WebEnv, make_web_env
from tests.worker_flow import accepted, arrive_pool, current

POLICY = ReviewPolicy()


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path, clock=SimulatedClock())  # the server sees the times records claim


@pytest.fixture(scope="module")
def crowd_qc():
    table = crowd_table({"a": "honest", "b": "meaning-blind"})
    return {w.worker: w for w in quality_control(table)["c"].workers}, table


def flag(name: str = "no_interaction") -> Signal:
    return Signal(name, "behaviour", 1.0, "> 0.5", True, "set without any event")


def test_a_flagged_worker_is_held_not_rejected(crowd_qc):
    qc = crowd_qc[0]["a"]
    verdict = combine(qc, None, (flag(), flag("regular_timing")))
    assert verdict.status == VerdictStatus.flagged
    decided = judge(POLICY, qc, 100, verdict)
    assert (decided.action, decided.use_data, decided.block, decided.bonus) == (PolicyAction.hold, False, False, None)
    assert f"{decided.action}" == "hold"  # what the dashboard shows
    assert "no_interaction; regular_timing" in decided.reason and "researcher" in decided.reason


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(Signal, name=st.sampled_from(SIGNALS), kind=st.sampled_from(["behaviour", "content"]),
                          value=st.floats(0, 1), threshold=st.just("t"),
                          flagged=st.sampled_from([None, False, True]), reason=st.just("r")), max_size=6),
       st.booleans())
def test_signals_never_turn_a_passed_check_into_a_rejection(signals, reject_enabled):
    qc = quality_control(crowd_table({"a": "honest"}))["c"].workers[0]
    decided = judge(replace(POLICY, reject_enabled=reject_enabled), qc, 100, combine(qc, None, tuple(signals)))
    assert decided.action in (PolicyAction.approve, PolicyAction.hold) and type(decided.action) is PolicyAction
    assert (decided.action is PolicyAction.hold) == any(s.flagged for s in signals)


def test_a_failed_meaning_check_rejects_only_on_clear_evidence(crowd_qc):
    qc, table = crowd_qc
    meaning = {w.worker: w for w in quality_control(table, check=MEANING)["c"].workers}["b"]
    assert meaning.status == "failed" and meaning.n_nonzero_pairs == 10
    verdict = combine(qc["b"], meaning, ())
    assert verdict.status == VerdictStatus.excluded
    clear = judge(replace(POLICY, reject_min_pairs=8, reject_min_p=0.5), qc["b"], 100, verdict)
    assert meaning.pvalue > 0.5 and clear.action == "reject"
    unclear = judge(replace(POLICY, reject_min_pairs=11), qc["b"], 100, verdict)
    assert (unclear.action, unclear.use_data) == ("approve", False) and type(unclear.action) is PolicyAction


def record(slot: str, scripted: bool, k: int) -> str:
    """A record: a scripted agent's (no event, 6 s every time) or a person's (a drag, varying time)."""
    shown = 6000 if scripted else 3000 + 1700 * (k % 7)
    return json.dumps({"v": 1, "slot": slot, "first_input_ms": None if scripted else shown // 2,
                       "pointer": 0 if scripted else 4, "touch": 0, "key": 0, "hidden_ms": 0, "blur_ms": 0,
                       "paste": 0, "copy": 0, "shown_ms": shown})


@pytest.mark.parametrize("scripted", [True, False])
def test_review_holds_a_scripted_worker_and_approves_a_person(env, scripted):
    campaign = env.campaign(slots=100)
    with env.sessions() as s:  # every BAD_REF (position 10k + 8) is a degraded copy of position 10k + 1
        slots = {x.position: x for x in s.scalars(select(Slot).where(Slot.hit_id == campaign.hit_ids[0]))}
        for position, slot in slots.items():
            if slot.slot_type == SlotType.BAD_REF:
                slot.original_slot_id = slots[position - 7].id
        s.commit()
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    clock = env.app.extensions["da_platform"].clock
    for position in range(100):
        slot, _ = current(client, base)
        score = 15 + position % 5 if position % 10 == 8 else 60 + (position * 7) % 35
        behaviour = record(slot, scripted, position)
        clock.advance(base.split("/")[2], json.loads(behaviour)["shown_ms"])
        response = client.post(base + "rating", data={"slot": slot, "score": str(score), "behaviour": behaviour})
        assert accepted(response)
    with env.sessions() as s:
        s.execute(update(Assignment).values(status=AssignmentStatus.submitted))
        s.commit()
        c = s.get(Campaign, campaign.campaign_id)
        verdicts = quality_by_worker(s, c, POLICY)
        [verdict] = verdicts.values()
        assert verdict.qc.passed
        planned = plan(s, c, "pool", POLICY, verdicts)
        held = held_for_review(s, c, "pool", POLICY, verdicts)
    if scripted:
        assert verdict.status == VerdictStatus.flagged
        assert {x.name for x in verdict.flags} == {"no_interaction", "regular_timing"}
        assert planned == [] and len(held) == 1 and held[0][1].action is PolicyAction.hold
    else:
        assert verdict.status == VerdictStatus.kept
        assert [p.action for p in planned] == ["approve"] and planned[0].use_data and held == []
        assert type(planned[0].action) is DecisionAction  # recorded as a review decision's action
