"""HIT layouts: the hardened layout's composition, its meaning-change checks, build and inspect."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import Session

from da_core.errors import BuildError
from da_platform.building.build import BuildSpec, build_campaign
from da_platform.building.crowds import CrowdChoice
from da_platform.building.inspection import verify_campaign
from da_platform.cli import main
from da_platform.db.engine import make_engine, session_factory
from da_platform.db.models import Campaign, Hit, Slot, SlotType
from da_platform.exports.files import degradations
from hit_builder.assembly import AssemblyError, assemble, partner_set, verify_hit
from hit_builder.layouts import CLASSIC, HARDENED
from hit_builder.storage import LocalImageStorage
from tests.factories import cli_database, make_test_set

HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")


@settings(max_examples=25, deadline=None)
@given(st.integers(60, 400), st.integers(0, 10_000), st.integers(1, 2))
def test_hardened_hits_hold_60_system_and_ten_of_each_check(n: int, seed: int, passes: int) -> None:
    plan = assemble([("s", i) for i in range(n)], seed=seed, passes=passes, layout=HARDENED)
    for hit in plan.hits:
        assert Counter(s.slot_type for s in hit.slots) == {SlotType.SYSTEM: 60, SlotType.REPEAT: 10,
                                                            SlotType.BAD_REF: 10, SlotType.REF: 10,
                                                            SlotType.MEANING: 10}
        ordinary = [s.item for s in hit.slots if s.slot_type is SlotType.SYSTEM]
        assert len(set(ordinary)) == 60
        for set_index in range(10):
            members = hit.slots[set_index * 10:set_index * 10 + 10]
            assert Counter(s.slot_type for s in members)[SlotType.MEANING] == 1
            checks = [s for s in members if s.slot_type is not SlotType.SYSTEM]
            assert len({c.original_position for c in checks}) == 4
            for check in checks:
                original = hit.slots[check.original_position]
                assert original.slot_type is SlotType.SYSTEM and original.item == check.item
                assert original.set_index == partner_set(set_index)


def test_classic_layout_is_unchanged_and_layouts_verify_each_other_strictly() -> None:
    items = [("s", i) for i in range(140)]
    assert assemble(items, seed=5) == assemble(items, seed=5, layout=CLASSIC)
    classic, hardened = assemble(items, seed=5).hits[0], assemble(items, seed=5, layout=HARDENED).hits[0]
    with pytest.raises(AssemblyError, match="instead of 60 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF, 10 MEANING"):
        verify_hit(classic, HARDENED)
    with pytest.raises(AssemblyError, match="10 MEANING instead of 70 SYSTEM"):
        verify_hit(hardened, CLASSIC)
    with pytest.raises(AssemblyError, match="60 distinct ordinary items, but there are only 59"):
        assemble(items[:59], seed=1, layout=HARDENED)


def test_hardened_campaign_is_built_with_meaning_checks(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=30, chinese=8)
    spec = BuildSpec(name="hardened", test_set=test_set, seed=3, crowd=CrowdChoice("hardened"))
    campaign = build_campaign(session, spec,
                              storage=LocalImageStorage(tmp_path / "images"))
    session.commit()
    assert campaign.settings["layout"] == "hardened"
    assert campaign.settings["meaning"]["method"] == "meaning-change"
    assert verify_campaign(session, campaign) == 2  # 120 items, 60 a HIT
    slots = list(session.scalars(select(Slot).join(Hit).where(Hit.campaign_id == campaign.id)))
    meaning = [s for s in slots if s.slot_type is SlotType.MEANING]
    assert len(meaning) == 20
    for slot in meaning:
        original = slot.original_slot
        assert original.slot_type is SlotType.SYSTEM and original.hit_id == slot.hit_id
        assert (original.system_id, original.question_id) == (slot.system_id, slot.question_id)
        assert slot.candidate_text != original.candidate_text
        assert slot.degradation["kind"] == "meaning" and slot.degradation["rule"] in (
            "yes_no", "entity", "number", "negation", "denial")
        assert bool(HAN.search(slot.candidate_text)) == bool(HAN.search(original.candidate_text))
        assert bool(LATIN.search(slot.candidate_text)) == bool(LATIN.search(original.candidate_text))
        assert slot.candidate_image != original.candidate_image
    lines = [json.loads(line) for line in degradations(session, campaign).decode().splitlines()]
    assert sum(line["degradation"].get("kind") == "meaning" for line in lines) == 20
    assert sum(line["degradation"].get("method") == "span-replacement" for line in lines) == 20
    classic = build_campaign(session, BuildSpec(name="classic", test_set=test_set, seed=3),
                             storage=LocalImageStorage(tmp_path / "images"))
    assert classic.settings["layout"] == "classic" and "meaning" not in classic.settings
    assert verify_campaign(session, classic) == 2
    with pytest.raises(BuildError, match="unknown HIT layout 'fancy'; choose one of classic, hardened, targeted"):
        build_campaign(session, BuildSpec(name="x", test_set=test_set, crowd=CrowdChoice("fancy")),
                       storage=LocalImageStorage(tmp_path / "images"))


def test_stored_hardened_campaign_fails_verification_as_classic(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=20)
    campaign = build_campaign(session, BuildSpec(name="h", test_set=test_set, seed=1, crowd=CrowdChoice("hardened")),
                              storage=LocalImageStorage(tmp_path / "images"))
    campaign.settings = {**campaign.settings, "layout": "classic"}
    session.flush()
    with pytest.raises(BuildError, match="HIT 0: composition is 60 SYSTEM"):
        verify_campaign(session, campaign)


@pytest.mark.slow
def test_build_layout_option_and_inspect_show_it(tmp_path, monkeypatch) -> None:
    url = cli_database(tmp_path, monkeypatch, questions=20)
    runner = CliRunner()
    built = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "h", "--layout", "hardened",
                                 "--render", "hardened"])
    assert built.exit_code == 0, built.output
    with session_factory(make_engine(url))() as session:
        settings = session.scalar(select(Campaign.settings).where(Campaign.name == "h"))
        assert settings["layout"] == "hardened" and settings["render"]["ocr_resistant"] is True
        assert settings["render"]["reference_grey"] == 0x55
    shown = runner.invoke(main, ["inspect", "h", "--hit", "0"])
    assert shown.exit_code == 0, shown.output
    assert "layout: hardened" in shown.output
    assert "slots: 120 SYSTEM, 20 REPEAT, 20 BAD_REF, 20 REF, 20 MEANING" in shown.output
    assert "verified: all 2 HITs hold 60 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF, 10 MEANING" in shown.output
    assert shown.output.count(" MEANING ") >= 10
    bad = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "x", "--layout", "wide"])
    assert bad.exit_code == 2 and "'wide' is not one of 'classic', 'hardened', 'targeted'" in bad.output
    with session_factory(make_engine(url))() as session:
        assert session.scalar(select(Campaign.name).where(Campaign.name == "x")) is None
