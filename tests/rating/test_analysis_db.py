"""load_ratings: a campaign in the database becomes the analysis table (SQLite and PostgreSQL)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
from click.testing import CliRunner

from analysis.report import analyze
from da_platform.db.models import Assignment, Campaign, Hit, Rating, Slot, SlotType, Worker
from da_platform.rating.campaign_ratings import load_ratings
from da_platform.simulation.profiles import WorkerProfile, slot_quality
from tests.factories import make_test_set

QUALITY = {"alpha": 85.0, "beta": 60.0, "gamma": 40.0, "delta": 20.0}


def build_campaign(session, n_workers: int = 3) -> Campaign:
    """One HIT per worker: 10 sets of 7 SYSTEM slots + BAD_REF, REPEAT, REF of partner-set items."""
    test_set = make_test_set(session, questions=20)
    campaign = Campaign(name="adequacy run", test_set=test_set, criterion="adequacy", statement="s", seed=1)
    session.add(campaign)
    answers = [(s, a) for s in test_set.systems for a in s.answers]
    rng = np.random.default_rng(0)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for h in range(n_workers):
        hit = Hit(campaign=campaign, index=h, public_id=f"HIT{h}", slot_count=100)
        chosen = [answers[i] for i in rng.permutation(len(answers))[:70]]
        ordinary = [Slot(position=0, set_index=i // 7, slot_type=SlotType.SYSTEM, public_id=f"p{h}-{i}",
                         question=a.question, system=s, answer=a, candidate_text=a.text)
                    for i, (s, a) in enumerate(chosen)]
        slots = []
        for k in range(10):
            partner = ordinary[((k + 5) % 10) * 7:((k + 5) % 10) * 7 + 3]
            checks = [Slot(position=0, set_index=k, slot_type=t, public_id=f"c{h}-{k}-{j}", question=o.question,
                           system=o.system, answer=o.answer, candidate_text="x", original_slot=o)
                      for j, (t, o) in enumerate(zip((SlotType.BAD_REF, SlotType.REPEAT, SlotType.REF), partner))]
            slots += ordinary[k * 7:(k + 1) * 7] + checks
        for position, slot in enumerate(slots):
            slot.position = position
            hit.slots.append(slot)
        worker = Worker(source="pool", external_id=f"w{h}")
        assignment = Assignment(hit=hit, worker=worker, public_id=f"a{h}", source="pool")
        session.add(assignment)
        profile = WorkerProfile("honest", noise=5) if h < n_workers - 1 else WorkerProfile("constant")
        for position, slot in enumerate(slots):
            shown = start + timedelta(seconds=10 * position)
            quality = slot_quality(slot.slot_type.value, QUALITY[slot.system.name])
            session.add(Rating(assignment=assignment, slot=slot, score=profile.rate(quality, rng), shown_at=shown,
                               rated_at=shown + timedelta(seconds=4)))
    session.flush()
    return campaign


def test_load_ratings_and_analyze(session):
    campaign = build_campaign(session)
    session.commit()
    table = load_ratings(session, campaign)
    assert len(table) == 300
    assert table.groups() == ("adequacy run",)
    assert set(table.worker.labels) == {"pool:w0", "pool:w1", "pool:w2"}
    assert table.describe()["BAD_REF"] == 30
    checks = table.original >= 0
    assert checks.sum() == 90
    assert (table.slot_type[table.original[checks]] == 0).all()
    assert (table.item.codes[table.original[checks]] == table.item.codes[checks]).all()
    assert np.allclose(table.seconds, 4.0)
    result = analyze(table)
    qc = {w.worker: w for w in result.qc["adequacy run"].workers}
    assert qc["pool:w0"].passed and qc["pool:w1"].passed
    assert qc["pool:w2"].status == "zero_variance"
    assert qc["pool:w0"].hit_seconds == (400.0,)
    assert result.groups["adequacy run"].ranking.systems[0] == "alpha"


def test_cli_analyze_campaign(database_url, sessions, tmp_path):
    from da_platform.cli import main

    with sessions() as session:
        build_campaign(session)
        session.commit()
    runner = CliRunner()
    env = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path)}
    result = runner.invoke(main, ["analyze", "--campaign", "adequacy run", "--out", str(tmp_path / "r"),
                                  "--no-plots"], env=env)
    assert result.exit_code == 0, result.output
    assert "alpha" in result.output and "2 passed" in result.output
    missing = runner.invoke(main, ["analyze", "--campaign", "nope"], env=env)
    assert missing.exit_code != 0 and "no campaign named 'nope'" in missing.output


def test_half_rated_hit_loads_with_unpaired_checks_left_out(session):
    """A HIT being rated right now holds checks whose originals come later: they wait, nothing fails."""
    campaign = build_campaign(session)
    session.flush()
    assignment = session.query(Assignment).filter_by(public_id="a0").one()
    kept = {r.slot_id for r in assignment.ratings if r.slot.position < 45}
    for rating in list(assignment.ratings):
        if rating.slot_id not in kept:
            session.delete(rating)
    session.commit()
    table = load_ratings(session, campaign)
    from_a0 = table.select(np.asarray(table.worker.labels)[table.worker.codes] == "pool:w0")
    slots = {int(s) for s in np.asarray(from_a0.slot.labels)[from_a0.slot.codes]}
    first_half = {r.slot for r in assignment.ratings if r.slot_id in kept}
    unpaired = {s.id for s in first_half if s.original_slot_id is not None and s.original_slot_id not in kept}
    assert unpaired, "the first half of a HIT holds checks of originals in the second half"
    assert slots == {s.id for s in first_half} - unpaired
    assert len(table) == 200 + len(slots)  # the two complete HITs and what can be paired of this one
    analyze(table)  # and the analysis runs on it
