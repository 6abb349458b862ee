"""Simulated crowd workers for the provider end-to-end tests.

``quality_campaign`` makes a campaign whose checks are linked as docs/method.md §2 says (each BAD_REF and
REF points at an ordinary slot of the partner set), so that quality control has pairs to test.
``Behaviour`` decides a score from the slot (good, adversarial, constant, indifferent), and
``rate_hit`` drives H-web's worker pages over the Flask test client slot by slot, sending the
behaviour record a person's page sends with each rating.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable

from sqlalchemy import select

from da_platform.db.models import Assignment, CampaignStatus, Slot, SlotType
from da_platform.simulation.crowd import SimulatedClock
from tests.web_factories import WebEnv

Behaviour = Callable[[Slot], int]


def sqlite_database(tmp_path) -> str:
    """A freshly migrated SQLite file (for checks where one database engine is enough)."""
    from da_platform.db.engine import upgrade

    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    upgrade(url)
    return url


def good(slot: Slot) -> int:
    """Rates originals high (varied), degraded copies low, repeats consistently."""
    base = slot.original_slot if slot.slot_type is SlotType.REPEAT else slot
    if slot.slot_type is SlotType.BAD_REF:
        return 10 + base.position % 7
    if slot.slot_type is SlotType.REF:
        return 95
    return 60 + base.position % 31


def adversarial(slot: Slot) -> int:
    """Scores degraded copies above their originals: clear evidence of not reading."""
    if slot.slot_type is SlotType.BAD_REF:
        return 90 - slot.position % 5
    return 20 + slot.position % 13


def constant(slot: Slot) -> int:
    return 50


def indifferent(slot: Slot) -> int:
    """Varied scores, but a degraded copy gets exactly its original's score (no evidence either way)."""
    source = slot.original_slot if slot.slot_type in (SlotType.BAD_REF, SlotType.REPEAT) else slot
    return 30 + source.position % 41


def quality_campaign(env: WebEnv, *, hits: int, name: str, completion_code: str = "C0MPL3TE",
                     max_assignments: int = 1, slots: int = 50) -> int:
    """A built campaign of ``hits`` HITs with properly linked checks; its id.

    Sets of 10 as in docs/method.md §2 (7 ordinary slots, a REPEAT, a BAD_REF, a REF), each check pointing
    at the partner set; 50 slots (5 BAD_REF pairs per HIT) by default to keep the tests fast.
    """
    made = env.campaign(hits=hits, slots=slots, status=CampaignStatus.built, name=name,
                        completion_code=completion_code, max_assignments=max_assignments)
    sets = slots // 10
    with env.sessions.begin() as session:
        for hit_id in made.hit_ids:
            slots = {s.position: s for s in session.scalars(select(Slot).where(Slot.hit_id == hit_id))}
            for position, slot in slots.items():
                partner = (position // 10 + sets // 2) % sets
                if slot.slot_type is SlotType.BAD_REF:
                    slot.original_slot = slots[partner * 10 + 1]
                elif slot.slot_type is SlotType.REF:
                    slot.original_slot = slots[partner * 10 + 2]
    return made.campaign_id


def rate_hit(env: WebEnv, client, base: str, behaviour: Behaviour) -> None:
    """Rate every slot of the assignment at ``base`` (/a/<token>/) through the worker pages.

    The first slot page is fetched like a browser would; the slot order is then read from the
    database once (the server serves slots strictly in position order) and every score is POSTed.
    """
    # The server sees the times the records claim: each item takes the simulated worker that long.
    clock = env.app.extensions["da_platform"].clock
    assert isinstance(clock, SimulatedClock), "rate_hit needs the app made with clock=SimulatedClock()"
    token = base.split("/")[2]
    first = client.get(base + "slot")
    assert first.status_code == 200, first.text
    public_id = env.app.extensions["da_platform"].tokens.read_assignment(base.split("/")[2])
    with env.sessions() as session:
        assignment = session.scalars(select(Assignment).where(Assignment.public_id == public_id)).one()
        slots = session.scalars(select(Slot).where(Slot.hit_id == assignment.hit_id).order_by(Slot.position)).all()
        scores = [(slot.public_id, behaviour(slot)) for slot in slots[assignment.next_position:]]
    assert re.search(r'name="slot" value="([^"]+)"', first.text).group(1) == scores[0][0]
    for k, (slot_id, score) in enumerate(scores):
        record = browser_record(slot_id, k)
        clock.advance(token, json.loads(record)["shown_ms"])
        response = client.post(base + "slot", data={"slot": slot_id, "score": str(score), "behaviour": record})
        assert response.status_code == 303, response.text


def browser_record(slot_id: str, k: int) -> str:
    """The behaviour record (docs/quality-control.md#behaviour-record) a person's page sends: a drag of the slider,
    8-20 s per item."""
    shown = 8000 + 1000 * (k * 7 % 13)
    return json.dumps({"v": 1, "slot": slot_id, "first_input_ms": shown // 2, "pointer": 3, "touch": 0, "key": 0,
                       "hidden_ms": 0, "blur_ms": 0, "paste": 0, "copy": 0, "shown_ms": shown})


def submit_form(html: str) -> tuple[str, dict[str, str]]:
    """The auto-submitted form on the done page (MTurk's externalSubmit): its action and fields."""
    action = re.search(r'<form[^>]*action="([^"]+)"', html).group(1)
    fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', html))
    return action.replace("&amp;", "&"), fields
