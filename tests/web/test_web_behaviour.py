"""The behaviour record sent with each rating (docs/quality-control.md#behaviour-record), over HTTP, on SQLite and
PostgreSQL.

The rating is always accepted; the record is stored when valid, else the reason there is none.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import select

from da_platform.db.models import BehaviourStatus, Rating, Slot
from da_platform.rating.behaviour_record import MAX_BYTES, parse_behaviour
from da_platform.simulation.crowd import SimulatedClock
from tests.web_factories import WebEnv, make_web_env
from tests.worker_flow import accepted, arrive_at_new_hit, arrive_pool, assignment_of, current, via


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path)


def record(slot: str, /, **changes) -> dict:
    """A record as the page's script sends it: 2 pointer presses, first 1.2 s after showing."""
    return {"v": 1, "slot": slot, "first_input_ms": 1200, "pointer": 2, "touch": 0, "key": 0, "hidden_ms": 0,
            "blur_ms": 300, "paste": 0, "copy": 0, "shown_ms": 4500} | changes


def post(client, base: str, via: str, slot: str, score: int, behaviour: str | None):
    data = {"slot": slot, "score": str(score)}
    if behaviour is not None:
        data["behaviour"] = behaviour
    return client.post(base + via, data=data)


def stored(env, slot_public_id: str) -> tuple:
    with env.sessions() as s:
        row = s.execute(select(Rating.score, Rating.behaviour_status, Rating.behaviour)
                        .join(Slot, Rating.slot_id == Slot.id).where(Slot.public_id == slot_public_id)).one()
        return tuple(row)


@via
def test_a_valid_record_is_stored_with_the_rating(env, via):
    client, base = arrive_at_new_hit(env, slots=10)
    slot, _ = current(client, base)
    response = post(client, base, via, slot, 61, json.dumps(record(slot)))
    assert accepted(response)
    score, status, kept = stored(env, slot)
    assert (score, status) == (61, BehaviourStatus.valid)
    assert kept == {"v": 1, "first_input_ms": 1200, "pointer": 2, "touch": 0, "key": 0, "hidden_ms": 0,
                    "blur_ms": 300, "paste": 0, "copy": 0, "shown_ms": 4500}


@via
def test_a_record_replayed_from_another_slot_is_stored_as_no_valid_record(env, via):
    client, base = arrive_at_new_hit(env, slots=10)
    first, _ = current(client, base)
    genuine = json.dumps(record(first))
    assert accepted(post(client, base, via, first, 40, genuine))
    second, _ = current(client, base)
    assert second != first
    assert accepted(post(client, base, via, second, 70, genuine))  # the rating itself is kept
    assert stored(env, first)[1] == BehaviourStatus.valid
    assert stored(env, second) == (70, BehaviourStatus.mismatched, None)


@via
@pytest.mark.parametrize("behaviour, status", [
    (None, BehaviourStatus.missing),
    ("", BehaviourStatus.missing),
    ("{not json", BehaviourStatus.invalid),
    ("[1, 2]", BehaviourStatus.invalid),
    ("NaN", BehaviourStatus.invalid),
])
def test_a_missing_or_malformed_record_is_stored_as_no_valid_record(env, via, behaviour, status):
    client, base = arrive_at_new_hit(env, slots=10)
    slot, _ = current(client, base)
    assert accepted(post(client, base, via, slot, 33, behaviour))
    assert stored(env, slot) == (33, status, None)


@via
def test_an_oversized_record_is_refused_and_the_rating_kept(env, via):
    client, base = arrive_at_new_hit(env, slots=10)
    slot, _ = current(client, base)
    padded = record(slot)
    text = json.dumps(padded)
    text = text[:-1] + " " * (MAX_BYTES + 1 - len(text)) + "}"  # valid JSON, one byte over the limit
    assert len(text.encode()) == MAX_BYTES + 1 and json.loads(text) == padded
    assert accepted(post(client, base, via, slot, 90, text))
    assert stored(env, slot) == (90, BehaviourStatus.oversized, None)


def test_a_repeated_rating_keeps_the_first_record(env):
    client, base = arrive_at_new_hit(env, slots=10)
    slot, _ = current(client, base)
    assert accepted(post(client, base, "rating", slot, 50, json.dumps(record(slot))))
    assert accepted(post(client, base, "rating", slot, 50, None))  # the same rating sent again
    assert stored(env, slot)[1] == BehaviourStatus.valid


SLOT = "s-1"


@pytest.mark.parametrize("changes", [
    {"v": 2}, {"v": True}, {"pointer": -1}, {"pointer": 1.0}, {"key": "3"}, {"touch": True},
    {"shown_ms": 8 * 24 * 3600 * 1000}, {"first_input_ms": None},  # pointer events but no first input
    {"pointer": 0, "first_input_ms": 5},  # a first input but no events
    {"first_input_ms": 5000},  # after the rating was sent
    {"hidden_ms": 4501}, {"blur_ms": 9999}, {"slot": 7}, {"user_agent": "Mozilla"},
])
def test_records_the_page_cannot_produce_are_invalid(changes):
    assert parse_behaviour(json.dumps(record(SLOT, **changes)), SLOT) == (BehaviourStatus.invalid, None)


def test_a_record_without_events_is_valid_and_says_so():
    quiet = record(SLOT, first_input_ms=None, pointer=0)
    status, kept = parse_behaviour(json.dumps(quiet), SLOT)
    assert status == BehaviourStatus.valid
    assert kept["first_input_ms"] is None and kept["pointer"] + kept["touch"] + kept["key"] == 0


def test_missing_key_is_invalid():
    partial = record(SLOT)
    del partial["copy"]
    assert parse_behaviour(json.dumps(partial), SLOT)[0] == BehaviourStatus.invalid


def test_the_ratings_loader_carries_records_texts_and_meaning_checks(database_url, tmp_path):
    """Ratings given over HTTP, with and without records, reach the analysis table with their evidence;
    a MEANING check is linked to its original like BAD_REF."""
    env = make_web_env(database_url, tmp_path, clock=SimulatedClock())  # the server sees the 4.5 s each record claims
    from analysis.evidence import RECORD_STATUSES, character_overlap
    from analysis.table import MEANING, SLOT_TYPES
    from da_platform.db.models import Campaign, SlotType
    from da_platform.rating.campaign_ratings import load_ratings

    campaign = env.campaign(slots=10)
    with env.sessions() as s:
        slots = {slot.position: slot for slot in s.scalars(select(Slot).where(Slot.hit_id == campaign.hit_ids[0]))}
        slots[8].slot_type, slots[8].original_slot_id = SlotType.MEANING, slots[1].id
        slots[8].candidate_text = "answer 1001 is not right"
        s.commit()
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    clock = env.app.extensions["da_platform"].clock
    sent = {}
    for position in range(10):
        slot, _ = current(client, base)
        behaviour = None if position == 3 else json.dumps(record(slot if position != 5 else "elsewhere"))
        clock.advance(base.split("/")[2], 4500)
        assert accepted(post(client, base, "rating", slot, 10 * position, behaviour))
        sent[position] = slot
    with env.sessions() as s:
        table = load_ratings(s, s.get(Campaign, campaign.campaign_id))
    evidence = table.evidence
    assert len(table) == 10 and evidence is not None and len(evidence) == 10
    statuses = [RECORD_STATUSES[c] for c in evidence.record.tolist()]
    assert statuses == ["valid"] * 3 + ["missing", "valid", "mismatched"] + ["valid"] * 4
    assert evidence.interactions.tolist()[:3] == [2.0, 2.0, 2.0] and np.isnan(evidence.interactions[3])
    assert evidence.shown_ms[0] == 4500 and np.isnan(evidence.shown_ms[5])
    meaning_row = [SLOT_TYPES[t] for t in table.slot_type.tolist()].index("MEANING")
    assert table.slot_type[meaning_row] == MEANING and table.original[meaning_row] == 1
    assert table.score[table.original[meaning_row]] == 10
    assert evidence.overlap[meaning_row, 0] == character_overlap("answer 1001 is not right", "reference 8")
    assert evidence.words[0] == 4  # "answer 0" and "reference 0": the reference is shown


def test_the_rating_and_its_record_are_one_statement_on_postgresql(env, database_url):
    """The hot path stays one round trip on PostgreSQL with the record added (SQLite: one transaction)."""
    from sqlalchemy import event

    from da_platform.db.engine import make_engine
    from da_platform.rating.flow import RatingOutcome, record_rating

    client, base = arrive_at_new_hit(env, slots=10)
    slot, _ = current(client, base)
    engine = make_engine(database_url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    try:
        rated = record_rating(engine, assignment_of(env, base), slot, "64", behaviour=json.dumps(record(slot)))
    finally:
        engine.dispose()
    assert rated.outcome == RatingOutcome.STORED
    writes = [s for s in statements if s.lstrip().upper().startswith(("WITH", "INSERT", "UPDATE", "SELECT"))]
    if engine.dialect.name == "postgresql":
        assert len(statements) == 1 and statements[0].lstrip().upper().startswith("WITH")
    else:
        assert len(writes) == 3  # the joined SELECT, the claim UPDATE and the INSERT, in one transaction
    assert stored(env, slot)[:2] == (64, BehaviourStatus.valid)
