"""Merging identical answers at build (``hit_builder.merging``) and the ratings counted for every
system that gave the answer (``da_platform.rating.merged`` through ``load_ratings``)."""
from __future__ import annotations

import random
from collections import Counter

from sqlalchemy import select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.db.models import Hit, Question, Rating, Slot, SlotType, System
from da_platform.rating.campaign_ratings import load_ratings
from da_platform.results.campaign_analysis import CampaignAnalysis
from hit_builder.merging import merge_identical
from hit_builder.storage import LocalImageStorage
from tests import dashboard_factories
from tests.factories import make_test_set


def test_the_first_system_of_each_identical_group_is_kept():
    items = [("alpha", "q1", "Paris"), ("alpha", "q2", "x"), ("beta", "q1", " Paris "), ("beta", "q2", "y"),
             ("gamma", "q1", "Paris"), ("gamma", "q2", "X")]
    plan = merge_identical(items, question_of=lambda i: i[1], system_of=lambda i: i[0],
                           question_name=lambda i: i[1], system_name=lambda i: i[0], text_of=lambda i: i[2])
    assert plan.kept == [("alpha", "q1", "Paris"), ("alpha", "q2", "x"), ("beta", "q2", "y"), ("gamma", "q2", "X")]
    assert plan.groups == [{"question": "q1", "rated_as": "alpha", "also": ["beta", "gamma"]}]
    assert (plan.items_before, plan.saved) == (6, 2)


def _scores(slot: Slot, rng: random.Random) -> int:
    """A careful worker: degraded copies clearly lower (so quality control passes)."""
    if slot.slot_type is SlotType.BAD_REF:
        return rng.randint(0, 30)
    return rng.randint(50, 100)


def test_a_merged_answer_is_rated_once_and_counted_for_every_system(session, tmp_path):
    test_set = make_test_set(session, name="merge set", questions=35, systems=("alpha", "beta", "gamma", "delta"))
    by_name = {s.name: {a.question.external_id: a for a in s.answers} for s in test_set.systems}
    shared = [f"q{i:04d}" for i in range(7)]
    for q in shared:
        by_name["beta"][q].text = by_name["alpha"][q].text
    for q in shared[:3]:
        by_name["gamma"][q].text = "  " + by_name["alpha"][q].text.replace(" ", "   ") + " "
    session.flush()
    campaign = build_campaign(session, BuildSpec(name="merged", test_set=test_set, seed=2, merge_identical=True),
                              storage=LocalImageStorage(tmp_path))
    record = campaign.settings["identical_answers"]
    assert (record["items_before"], record["items_rated"], record["saved"]) == (140, 130, 10)
    assert {g["question"]: (g["rated_as"], g["also"]) for g in record["groups"]} == {
        **{q: ("alpha", ["beta", "gamma"]) for q in shared[:3]}, **{q: ("alpha", ["beta"]) for q in shared[3:]}}
    slot_items = set(session.execute(select(System.name, Question.external_id).join(Slot, Slot.system_id == System.id)
                                     .join(Question, Question.id == Slot.question_id)
                                     .join(Hit, Hit.id == Slot.hit_id).where(Hit.campaign_id == campaign.id)))
    assert not any((s, q) in slot_items for q in shared for s in ("beta",))
    assert ("alpha", shared[0]) in slot_items and ("gamma", shared[5]) in slot_items
    session.commit()

    for index in range(len(campaign.hits)):
        dashboard_factories.rate_hit(session, campaign, index, f"w{index}", _scores, seed=index)
    table = load_ratings(session, campaign)
    rated = session.execute(select(Rating.score, Slot.slot_type, Question.external_id, System.name)
                            .join(Slot, Slot.id == Rating.slot_id).join(Question, Question.id == Slot.question_id)
                            .join(System, System.id == Slot.system_id)).all()
    counted = [r for r in rated if r.slot_type in (SlotType.SYSTEM, SlotType.REPEAT)]
    copies = sum(len(record["groups"][0]["also"]) if r.external_id in shared[:3] else 1
                 for r in counted if r.name == "alpha" and r.external_id in shared)
    assert len(table) == len(rated) + copies
    rows = list(table.records())
    for q in shared:
        alpha = Counter(r.score for r in rows if r.item == q and r.system == "alpha" and r.slot_type != "BAD_REF"
                        and r.slot_type != "REF")
        beta = Counter(r.score for r in rows if r.item == q and r.system == "beta")
        assert alpha and alpha == beta
    assert not any(r.system == "beta" and r.slot_type in ("BAD_REF", "REF") and r.item in shared for r in rows)

    analysis = CampaignAnalysis(session, campaign)
    assert analysis.result is not None
    items = analysis.result.groups["merged"].scores.items
    raw = {(s, i): r for s, i, r in zip(items.system.tolist(), items.item.tolist(), items.raw.tolist())}
    assert len(analysis.group.qc.passed_workers) == len(campaign.hits)
    for q in shared:
        assert raw["beta", q] == raw["alpha", q]
    for q in shared[:3]:
        assert raw["gamma", q] == raw["alpha", q]
