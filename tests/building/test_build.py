"""Building a campaign end to end on SQLite and PostgreSQL, and the build/inspect commands."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from da_core.enums import Criterion
from da_core.errors import BuildError
from da_platform.building.build import ADEQUACY_STATEMENT, FLUENCY_STATEMENT, BuildSpec, build_campaign
from da_platform.building.inspection import verify_campaign
from da_platform.db.engine import make_engine, session_factory, upgrade
from da_platform.db.models import Answer, Campaign, CampaignStatus, Hit, Slot, SlotType, System
from hit_builder.storage import LocalImageStorage
from tests.factories import cli_database, make_test_set

UGARITIC_A = "\U00010380"


def slots_of(session: Session, campaign: Campaign) -> list[Slot]:
    return list(session.scalars(select(Slot).join(Hit).where(Hit.campaign_id == campaign.id)
                                .order_by(Hit.index, Slot.position)))


def snapshot(session: Session, campaign: Campaign) -> list[tuple]:
    """Everything a build decides, without database ids."""
    rows = []
    for slot in slots_of(session, campaign):
        record = dict(slot.degradation or {})
        record.pop("donor_question", None)  # a database id; the external id stays
        rows.append((slot.hit.index, slot.hit.public_id, slot.position, slot.set_index, slot.slot_type,
                     slot.public_id, slot.system.name, slot.question.external_id,
                     slot.original_slot.position if slot.original_slot else None, slot.candidate_text,
                     slot.reference_text, slot.candidate_image, slot.reference_image, sorted(record.items())))
    return rows


def test_adequacy_campaign_is_built_verified_and_stored(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=30, chinese=6)
    storage = LocalImageStorage(tmp_path / "images")
    progress = []
    campaign = build_campaign(session, BuildSpec(name="adequacy run", test_set=test_set, seed=7), storage=storage,
                              progress=lambda *args: progress.append(args))
    session.commit()

    assert campaign.status is CampaignStatus.built
    assert (campaign.criterion, campaign.statement, campaign.show_reference) == ("adequacy", ADEQUACY_STATEMENT, True)
    assert verify_campaign(session, campaign) == 2  # 120 items: two HITs, the second filled by wrapping
    assert [s.name for s in campaign.systems] == ["alpha", "beta", "delta", "gamma"]
    slots = slots_of(session, campaign)
    assert len(slots) == 200
    by_id = {slot.id: slot for slot in slots}
    for slot in slots:
        reference = slot.question.references[0].text
        assert slot.reference_text == reference
        assert re.fullmatch(r"[0-9a-f]{32}", slot.public_id)
        assert storage.exists(slot.candidate_image) and storage.exists(slot.reference_image)
        if slot.slot_type in (SlotType.SYSTEM, SlotType.REPEAT):
            assert slot.candidate_text == slot.answer.text and slot.degradation is None
        elif slot.slot_type is SlotType.REF:
            assert slot.candidate_text == reference
        else:
            assert slot.candidate_text != slot.answer.text
            assert slot.degradation["method"] == "span-replacement"
            assert slot.degradation["donor_question"] != slot.question_id
        if slot.slot_type is SlotType.REPEAT:  # indistinguishable from its original
            original = by_id[slot.original_slot_id]
            assert (slot.candidate_image, slot.reference_image) == (original.candidate_image, original.reference_image)
    assert len({slot.public_id for slot in slots}) == 200
    # Each distinct (text, role) is rendered once and stored once.
    keys = {slot.candidate_image for slot in slots} | {slot.reference_image for slot in slots}
    example = set(campaign.settings["worker"]["example"]["images"].values())  # the instructions' example
    assert len(example) == 3 and not example & keys
    assert len(list((tmp_path / "images").rglob("*.png"))) == len(keys) + len(example)
    assert campaign.settings["render"]["images"] >= len(keys)
    assert progress[-1] == ("render", campaign.settings["render"]["images"], campaign.settings["render"]["images"])
    settings = campaign.settings
    assert settings["degradation"]["method"] == "span-replacement"
    assert settings["assembly"]["version"] == 1 and settings["assembly"]["fill_per_pass"] == 20
    assert settings["render"]["fonts"][0]["name"] == "Noto Sans CJK SC"
    assert re.fullmatch(r"[0-9a-f]{64}", settings["id_salt"])


def test_fluency_and_custom_criteria(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=20)
    storage = LocalImageStorage(tmp_path)
    fluency = build_campaign(session, BuildSpec(name="fluency", test_set=test_set, criterion="fluency"),
                             storage=storage)
    assert (fluency.statement, fluency.show_reference) == (FLUENCY_STATEMENT, False)
    assert all(s.reference_text is None and s.reference_image is None for s in slots_of(session, fluency))
    custom = build_campaign(session,
                            BuildSpec(name="custom", test_set=test_set, criterion="custom",
                                      statement="Answer B is polite.", show_reference=True), storage=storage)
    assert custom.statement == "Answer B is polite." and custom.show_reference
    assert all(s.reference_image for s in slots_of(session, custom))
    with pytest.raises(BuildError, match="needs a statement"):
        build_campaign(session, BuildSpec(name="x", test_set=test_set, criterion="custom"), storage=storage)
    with pytest.raises(BuildError, match="whether to show the reference"):
        build_campaign(session, BuildSpec(name="x", test_set=test_set, criterion="custom", statement="s"),
                       storage=storage)
    with pytest.raises(BuildError, match="use the custom criterion"):
        build_campaign(session, BuildSpec(name="x", test_set=test_set, statement="Other words."), storage=storage)
    with pytest.raises(BuildError) as refused:
        build_campaign(session, BuildSpec(name="x", test_set=test_set, criterion="beauty"), storage=storage)
    assert str(refused.value) == "unknown criterion 'beauty'; choose one of adequacy, fluency, custom"


def test_a_criterion_given_as_a_member_is_stored_as_its_plain_value(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=20)
    build_campaign(session, BuildSpec(name="typed", test_set=test_set, criterion=Criterion.fluency),
                   storage=LocalImageStorage(tmp_path))
    session.expire_all()
    stored = session.scalars(select(Campaign.criterion).where(Campaign.name == "typed")).one()
    assert (type(stored), stored) == (str, "fluency")


def test_same_inputs_seed_and_salt_give_identical_hits(session: Session, tmp_path) -> None:
    """The build is a function of the inputs: identical on a second, fresh SQLite database."""
    url = f"sqlite:///{tmp_path / 'second.sqlite'}"
    upgrade(url)
    engine = make_engine(url)
    results = []
    try:
        with session_factory(engine)() as other:
            for target, folder in ((session, "one"), (other, "two")):
                test_set = make_test_set(target, questions=25, chinese=5)
                campaign = build_campaign(target,
                                          BuildSpec(name="repro", test_set=test_set, seed=11, passes=2,
                                                    id_salt="fixed salt"), storage=LocalImageStorage(tmp_path / folder))
                target.commit()
                results.append(snapshot(target, campaign))
            different = build_campaign(other,
                                       BuildSpec(name="other seed", test_set=test_set, seed=12, passes=2,
                                                 id_salt="fixed salt"), storage=LocalImageStorage(tmp_path / "three"))
            changed = snapshot(other, different)
    finally:
        engine.dispose()
    assert results[0] == results[1]
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.png"))
    assert files == sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*.png"))
    assert all((tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes() for f in files)
    assert [row[4:8] for row in changed] != [row[4:8] for row in results[1]]
    assert {row[5] for row in changed}.isdisjoint(row[5] for row in results[1])  # names differ: new ids


def test_missing_glyph_fails_before_rendering_and_names_the_item(session: Session, tmp_path) -> None:
    test_set = make_test_set(session, questions=20)
    answer = session.scalar(select(Answer).join(System).where(System.name == "beta").order_by(Answer.id).offset(3))
    answer.text = f"It is written {UGARITIC_A} like this."
    session.commit()
    with pytest.raises(BuildError) as error:
        build_campaign(session, BuildSpec(name="boxes", test_set=test_set),
                       storage=LocalImageStorage(tmp_path / "images"))
    session.rollback()
    message = str(error.value)
    assert f"system 'beta', question '{answer.question.external_id}'" in message
    assert "U+10380 UGARITIC LETTER ALPA" in message and "It is written" in message
    assert session.scalar(select(func.count()).select_from(Campaign)) == 0
    assert not (tmp_path / "images").exists()  # nothing was rendered


def test_bad_requests_are_clear_errors(session: Session, tmp_path) -> None:
    storage = LocalImageStorage(tmp_path)
    small = make_test_set(session, name="small", questions=10, systems=("a", "b"))
    with pytest.raises(BuildError, match="only 20 .systems × questions."):
        build_campaign(session, BuildSpec(name="tiny", test_set=small), storage=storage)
    test_set = make_test_set(session, questions=40)
    with pytest.raises(BuildError, match="system 'omega' is not in test set"):
        build_campaign(session, BuildSpec(name="c", test_set=test_set, systems=["alpha", "omega"]), storage=storage)
    with pytest.raises(BuildError, match="no test set named 'nope'"):
        build_campaign(session, BuildSpec(name="c", test_set="nope"), storage=storage)
    two = build_campaign(session, BuildSpec(name="two systems", test_set="test set", systems=["gamma", "alpha"]),
                         storage=storage)
    assert [s.name for s in two.systems] == ["alpha", "gamma"]
    assert {s.system.name for s in slots_of(session, two)} == {"alpha", "gamma"}
    with pytest.raises(BuildError, match="exists already"):
        build_campaign(session, BuildSpec(name="two systems", test_set=test_set), storage=storage)


def test_build_and_inspect_commands(tmp_path, monkeypatch) -> None:
    from da_platform.cli import main

    cli_database(tmp_path, monkeypatch, questions=30)
    runner = CliRunner()

    built = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "pilot", "--seed", "3",
                                 "--systems", "alpha,beta,gamma", "--crowd", "pool"])
    assert built.exit_code == 0, built.output
    assert "built campaign 'pilot': 2 HITs of 100 slots over 90 items" in built.output
    assert "layout classic (the published method" in built.output
    assert "quality control: weighted test, alpha 0.05" in built.output
    assert any((tmp_path / "instance" / "images").rglob("*.png"))

    shown = runner.invoke(main, ["inspect", "pilot", "--hit", "1"])
    assert shown.exit_code == 0, shown.output
    out = shown.output
    assert "systems (3): alpha, beta, gamma" in out
    assert "seed 3, 1 pass(es): 2 HITs, 90 items; ordinary ratings per item: 1×40, 2×50" in out
    assert "slots: 140 SYSTEM, 20 REPEAT, 20 BAD_REF, 20 REF" in out
    assert "verified: all 2 HITs" in out
    table = out.split("HIT 1:\n")[1].splitlines()
    assert table[0].split() == ["position", "set", "type", "system", "question", "original"]
    rows = [line.split() for line in table[2:]]
    assert [int(r[0]) for r in rows] == list(range(100))
    types = {r[2] for r in rows}
    assert types == {"SYSTEM", "REPEAT", "BAD_REF", "REF"}
    for row in rows:
        assert (len(row) == 6) == (row[2] != "SYSTEM")
        if len(row) == 6:
            original = rows[int(row[5])]
            assert original[2] == "SYSTEM" and original[3:5] == row[3:5]
            assert int(original[1]) == (int(row[1]) + 5) % 10

    missing = runner.invoke(main, ["inspect", "nothing"])
    assert missing.exit_code == 1 and "no campaign named 'nothing' (campaigns: pilot)" in missing.output
    no_hit = runner.invoke(main, ["inspect", "pilot", "--hit", "9"])
    assert no_hit.exit_code == 1 and "has no HIT 9" in no_hit.output
    failed = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "pilot"])
    assert failed.exit_code == 1 and "exists already" in failed.output and "nothing was built" in failed.output
    assert "Traceback" not in failed.output


def test_no_degraded_answer_of_a_mixed_test_set_mixes_scripts(session: Session, tmp_path) -> None:
    """English and Chinese questions in one test set: every BAD_REF keeps its answer's script(s)."""
    from hit_builder.degrade import scripts

    test_set = make_test_set(session, questions=40, chinese=12, seed=5)
    for question in test_set.questions[:28]:  # English references too short to give the long answers a span
        question.references[0].text = "Yes."
    for system in test_set.systems:
        for answer in system.answers[:28]:
            answer.text = " ".join(["plants make sugar from light"] * 6)
    session.flush()
    campaign = build_campaign(session, BuildSpec(name="mixed", test_set=test_set, passes=3, seed=11),
                              storage=LocalImageStorage(tmp_path / "i"))
    checks = session.scalars(select(Slot).join(Hit).where(Hit.campaign_id == campaign.id,
                                                         Slot.slot_type == SlotType.BAD_REF)).all()
    kinds = {frozenset(scripts(slot.answer.text)) for slot in checks}
    assert frozenset({"LATIN"}) in kinds and frozenset({"CJK"}) in kinds  # both kinds were degraded
    # the English answers' spans came from other English answers (no English reference is long enough)
    assert {s.degradation["donor_source"] for s in checks if scripts(s.answer.text) == {"LATIN"}} == {"answer"}
    for slot in checks:
        assert scripts(slot.candidate_text) <= scripts(slot.answer.text), (slot.answer.text, slot.candidate_text)
