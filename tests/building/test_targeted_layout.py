"""The targeted layout: every check made where a person's judgement is certain (method §2.9), recorded."""
from __future__ import annotations

import random

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from da_core.enums import SlotType
from da_platform.building.build import ORIGINAL_SCORE, BuildSpec, build_campaign, original_score
from da_platform.building.crowds import CrowdChoice
from da_platform.building.inspection import verify_campaign
from da_platform.db.models import Hit, Slot
from hit_builder.assembly import AssemblyError, assemble, partner_set, targeted_picks, verify_hit
from hit_builder.layouts import HARDENED, TARGETED
from hit_builder.storage import LocalImageStorage
from tests.factories import make_test_set


def test_picks_follow_the_scores_highest_for_damaged_copies_lowest_for_the_reference():
    scores = [0.30, 0.90, 0.10, 0.55, 0.90, 0.00]
    picks = targeted_picks(scores, TARGETED, random.Random(1))
    kinds = dict(zip(TARGETED.check_types, picks))
    assert {kinds[SlotType.BAD_REF], kinds[SlotType.MEANING]} == {1, 4}  # the two best (a tie: either order)
    assert kinds[SlotType.REF] == 5  # the worst
    assert kinds[SlotType.REPEAT] in {0, 2, 3}  # any of the rest
    assert len(set(picks)) == 4


@pytest.mark.parametrize("seed", [0, 7])
def test_every_hit_of_a_targeted_plan_has_its_checks_on_the_best_and_worst_items(seed):
    items = [("s", i) for i in range(150)]
    score = {item: random.Random(item[1]).random() for item in items}
    plan = assemble(items, seed=seed, layout=TARGETED, scores=score)
    for hit in plan.hits:
        verify_hit(hit, TARGETED)
        for set_index in range(10):
            partner = [s.item for s in hit.slots if s.set_index == partner_set(set_index)
                       and s.slot_type is SlotType.SYSTEM]
            checks = {s.slot_type: s.item for s in hit.slots if s.set_index == set_index
                      and s.slot_type is not SlotType.SYSTEM}
            ranked = sorted(partner, key=score.__getitem__)
            assert {checks[SlotType.BAD_REF], checks[SlotType.MEANING]} == set(ranked[-2:])
            assert checks[SlotType.REF] == ranked[0]
    again = assemble(items, seed=seed, layout=TARGETED, scores=score)
    assert again == plan  # deterministic


def test_a_targeted_plan_needs_a_score_for_every_item_and_other_layouts_ignore_scores():
    items = [("s", i) for i in range(70)]
    with pytest.raises(AssemblyError, match=r"the targeted layout chooses check originals by automatic score, "
                                            r"but item \('s', 0\) has none \(70 without a score\)"):
        assemble(items, seed=1, layout=TARGETED)
    scores = {item: 0.5 for item in items}
    assert assemble(items, seed=1, layout=HARDENED, scores=scores) == assemble(items, seed=1, layout=HARDENED)


def test_targeted_campaign_is_built_verified_and_records_its_choice(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=30, chinese=8)
    campaign = build_campaign(session, BuildSpec(name="t", test_set=test_set, seed=3, crowd=CrowdChoice("targeted")),
                              storage=LocalImageStorage(tmp_path / "images"))
    session.commit()
    settings = campaign.settings
    assert settings["layout"] == "targeted"
    assert settings["check_originals"] == {"score": ORIGINAL_SCORE, "rule": {
        "BAD_REF": "highest", "MEANING": "highest", "REF": "lowest", "REPEAT": "random"}}
    assert settings["layout_description"]["originals_by_score"]["REF"] == "lowest"
    assert verify_campaign(session, campaign) == 2
    slots = list(session.scalars(select(Slot).join(Hit).where(Hit.campaign_id == campaign.id)))
    by_id = {s.id: s for s in slots}
    for slot in slots:
        if slot.slot_type in (SlotType.BAD_REF, SlotType.MEANING):
            original = by_id[slot.original_slot_id]
            partner = [s for s in slots if s.hit_id == slot.hit_id and s.set_index == original.set_index
                       and s.slot_type is SlotType.SYSTEM]
            best = max(_score(s) for s in partner)
            assert _score(original) >= sorted(_score(s) for s in partner)[-2] and best >= _score(original)


def _score(slot: Slot) -> float:
    class Item:  # what original_score reads
        answer = slot.candidate_text
        reference = slot.reference_text
    return original_score(Item())  # type: ignore[arg-type]
