"""Attack suite: a script that rates without ever fetching an item's pictures, caught by the server's own record.

The page's behaviour record says ``images_loaded`` (its script's word); a script posting ratings straight to the
endpoint can claim it without having looked. The server knows what it served: each rating is stored with
whether every image its slot shows had been served to the assignment before it (``Rating.images_served``),
and quality control reads that beside the record (``RatingEvidence.images_served``). On SQLite and PostgreSQL,
both ways of posting a rating.
"""
from __future__ import annotations

import json

import numpy as np
from sqlalchemy import select

from analysis.evidence import RatingEvidence
from da_platform.db.models import Campaign, Rating
from da_platform.rating.campaign_ratings import load_ratings
from tests.worker_flow import accepted, arrive_pool, current, rate, via

# What the page's script sends with a rating whose pictures loaded (da_platform/static/behaviour.js).
CLAIM = {"v": 1, "first_input_ms": 300, "pointer": 2, "touch": 0, "key": 0, "paste": 0, "copy": 0,
         "hidden_ms": 0, "blur_ms": 0, "shown_ms": 500, "images_loaded": True}


def _rate_claiming_images(client, base: str, slot: str, score: int, via: str) -> None:
    record = json.dumps({**CLAIM, "slot": slot})
    response = client.post(base + via, data={"slot": slot, "score": str(score), "behaviour": record})
    assert accepted(response), response.text  # evidence, never a gate: every rating is taken


def _fetch(client, base: str, slot: str, *roles: str) -> None:
    for role in roles:
        assert client.get(f"{base}image/{slot}/{role}").status_code == 200


def _stored(env) -> list[tuple[int, bool | None]]:
    with env.sessions() as session:
        return [tuple(r) for r in session.execute(select(Rating.score, Rating.images_served).order_by(Rating.id))]


@via
def test_a_rating_whose_pictures_were_never_fetched_is_marked_so_by_the_server(env, via):
    made = env.campaign(slots=5, show_reference=True)  # every slot shows the reference (Answer A) and the answer
    client = env.app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    fetched = [("candidate", "reference"), (), ("candidate",), ("candidate", "reference", "candidate", "reference"),
               ("reference",)]
    for score, roles in enumerate(fetched, start=10):
        slot, _ = current(client, base)  # the slot page, as a script reads it for the slot's id
        _fetch(client, base, slot, *roles)
        _rate_claiming_images(client, base, slot, score, via)
    # Served before the rating: both images (1st, 4th, the 4th twice each); neither (2nd: the note of the
    # 1st was cleared with its rating); the answer without the reference (3rd), the reference alone (5th).
    assert _stored(env) == [(10, True), (11, False), (12, False), (13, True), (14, False)]
    with env.sessions() as session:
        evidence = load_ratings(session, session.get(Campaign, made.campaign_id)).evidence
    np.testing.assert_array_equal(evidence.images_served, [1.0, 0.0, 0.0, 1.0, 0.0])
    assert evidence.valid.all()  # the page's word alone would have passed every one of them


@via
def test_without_a_reference_the_answer_image_is_all_a_rating_needs(env, via):
    made = env.campaign(slots=3, show_reference=False)
    client = env.app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    for score, roles in enumerate([("candidate",), (), ("candidate",)], start=20):
        slot, _ = current(client, base)
        _fetch(client, base, slot, *roles)
        if not roles:  # no reference is shown: asking for it is a 404, and notes nothing
            assert client.get(f"{base}image/{slot}/reference").status_code == 404
        _rate_claiming_images(client, base, slot, score, via)
    assert _stored(env) == [(20, True), (21, False), (22, True)]


def test_an_image_of_a_slot_already_rated_notes_nothing(env):
    """Only the current slot's images answer, and only they are noted: asking for an earlier slot's image
    again does not count for the current one."""
    made = env.campaign(slots=3, show_reference=False)
    client = env.app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    first, _ = current(client, base)
    assert accepted(rate(client, base, first, 50, "rating"))
    second, _ = current(client, base)
    assert accepted(rate(client, base, second, 51, "rating"))
    third, _ = current(client, base)
    assert client.get(f"{base}image/{first}/candidate").status_code == 404  # a slot already rated
    assert accepted(rate(client, base, third, 52, "rating"))
    assert [served for _, served in _stored(env)] == [False, False, False]


def test_ratings_stored_before_the_record_are_unknown_not_unserved() -> None:
    evidence = RatingEvidence.from_rows(["valid", "valid"], [{**CLAIM, "slot": "s"}] * 2, ["a b"] * 2, [None] * 2,
                                        False, images_served=[None, False])
    assert np.isnan(evidence.images_served[0]) and evidence.images_served[1] == 0.0
