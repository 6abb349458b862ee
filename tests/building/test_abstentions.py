"""Abstentions: a system with no answer to some questions, allowed only when the researcher says so."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from da_platform.db.models import Campaign, Hit, Question, Slot, SlotType, System


@pytest.mark.slow
def test_a_system_may_abstain_only_when_allowed_and_its_missing_items_are_not_rated(run, sessions,
                                                                                      tmp_path: Path) -> None:
    assert run("import", "sample").exit_code == 0
    with sessions() as session:
        ids = list(session.scalars(select(Question.external_id).order_by(Question.external_id)))
    skipped = ids[:3]
    answers = tmp_path / "quiet.jsonl"
    answers.write_text("".join(json.dumps({"id": q, "answer": f"answer to {q}"}) + "\n" for q in ids[3:]),
                       encoding="utf-8")

    refused = run("import", "answers", "--test-set", "sample", str(answers))
    assert refused.exit_code != 0 and "has no answer for 3 questions" in refused.output
    assert "--allow-missing" in refused.output
    with sessions() as session:
        assert session.scalar(select(System).where(System.name == "quiet")) is None  # nothing imported

    allowed = run("import", "answers", "--test-set", "sample", "--allow-missing", str(answers))
    assert allowed.exit_code == 0, allowed.output
    assert "'quiet' abstains on 3 questions" in allowed.output and skipped[0] in allowed.output

    refused = run("build", "--test-set", "sample", "--name", "strict", "--seed", "1")
    assert refused.exit_code != 0 and "'quiet' has no answer to question" in refused.output

    built = run("build", "--test-set", "sample", "--name", "lenient", "--seed", "1", "--allow-missing",
                "--crowd", "pool")
    assert built.exit_code == 0, built.output
    assert "quiet abstains on 3 question(s)" in built.output
    with sessions() as session:
        campaign = session.scalar(select(Campaign).where(Campaign.name == "lenient"))
        assert campaign.settings["abstentions"] == {"quiet": skipped}
        rated = set(session.execute(
            select(Question.external_id).join(Slot, Slot.question_id == Question.id).join(Hit)
            .join(System, Slot.system_id == System.id)
            .where(Hit.campaign_id == campaign.id, System.name == "quiet", Slot.slot_type == SlotType.SYSTEM)
        ).scalars())
    assert rated and not rated & set(skipped)
