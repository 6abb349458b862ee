"""Campaigns in waves on both databases: the first wave at build time, the next one added from the campaign's own
analysis, the looks recorded, a fixed campaign and an unfinished wave refused (docs/method.md §12)."""
from __future__ import annotations

import io
import json
import random
import re
import zipfile
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from analysis.sequential import PairState
from analysis.sequential_plan import WaveDesign
from da_core.errors import BuildError
from da_platform.building.build import BuildSpec, build_campaign
from da_platform.building.inspection import verify_campaign
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Hit,
    Slot,
    SlotType,
    System,
    Worker,
    WorkerSource,
)
from da_platform.exports.files import bundle
from da_platform.operations.waves import next_wave, provider_steps
from da_platform.providers.arrival import Arrival, ArrivalRefused
from da_platform.results.waves import wave_status
from da_platform.sources.arrival import take_assignment_id
from hit_builder.storage import LocalImageStorage
from tests.dashboard_factories import START, rate_hit
from tests.factories import make_test_set

# alpha and beta are of equal quality (their pair stays open), gamma and delta far below.
QUALITY = {"alpha": 70, "beta": 70, "gamma": 40, "delta": 15}
DESIGN = WaveDesign(first_wave=0.5, wave=0.34, futility=0.0)


def scores(slot: Slot, rng: random.Random) -> int:
    if slot.slot_type is SlotType.REF:
        return rng.randint(85, 100)
    base = QUALITY[slot.system.name] + rng.randint(-10, 10) - (35 if slot.slot_type is SlotType.BAD_REF else 0)
    return max(0, min(100, base))


def built(session, tmp_path, design: WaveDesign | None = DESIGN) -> Campaign:
    # 105 questions × 4 systems = 420 items: 6 HITs in the fixed design, 3 in the first wave.
    test_set = make_test_set(session, name="waves set", questions=105, systems=tuple(QUALITY))
    campaign = build_campaign(session, BuildSpec(name="waves", test_set=test_set, seed=3, waves=design),
                              storage=LocalImageStorage(tmp_path / "images"), processes=1)
    session.commit()
    return campaign


def rate_wave(session, campaign: Campaign, first: int, hits: int) -> None:
    for h in range(first, first + hits):
        rate_hit(session, campaign, h, f"worker-{h}", scores, seed=h, start=START + timedelta(hours=h))


@pytest.mark.slow
def test_a_campaign_in_waves_builds_its_first_wave_and_adds_the_next_from_its_analysis(sessions, tmp_path):
    with sessions() as session:
        campaign = built(session, tmp_path)
        record = CampaignSettings.of(campaign).waves
        assert record is not None and record.reference_hits == 6
        assert session.scalar(select(func.count()).select_from(Hit).where(Hit.campaign_id == campaign.id)) == 3
        # Each system's 105 SYSTEM slots in the fixed design's 6 HITs, and the REPEATs of its items (60 in all).
        assert set(record.planned) == set(QUALITY) and sum(record.planned.values()) == 420 + 60
        assert all(105 < n < 105 + 30 for n in record.planned.values())
        first = record.waves[0]
        assert (first.wave, first.first_hit, first.hits, first.look) == (1, 0, 3, None)
        assert first.shares == pytest.approx({s: 0.25 for s in QUALITY})

        rate_wave(session, campaign, 0, 3)
        status = wave_status(session, campaign)
        assert status is not None and status.provisional
        pair = status.decisions.decision("alpha", "beta")
        assert pair.state is PairState.open
        assert status.decisions.decision("alpha", "delta").state is PairState.decided
        assert status.plan is not None and set(status.plan.contention) >= {"alpha", "beta"}

        step = next_wave(session, campaign, storage=LocalImageStorage(tmp_path / "images"), processes=1)
        session.commit()
        assert step.added is not None and (step.added.wave, step.added.first_hit, step.added.hits) == (2, 3, 2)
        assert verify_campaign(session, campaign) == 5
        record = CampaignSettings.of(campaign).waves
        assert record.waves[0].look is not None and record.waves[0].look.ratings == dict(status.look.ratings)
        # The new wave over-samples the open pair: alpha and beta together hold more than half its ordinary slots.
        new = Counter(session.scalars(
            select(System.name).join(Slot, Slot.system_id == System.id).join(Hit, Slot.hit_id == Hit.id)
            .where(Hit.campaign_id == campaign.id, Hit.index >= 3, Slot.slot_type == SlotType.SYSTEM)))
        assert new["alpha"] + new["beta"] > 70
        assert provider_steps(session, campaign, step.added)[0].startswith("own pool")
        first_hit = session.scalar(select(Hit).where(Hit.campaign_id == campaign.id, Hit.index == 0))
        first_hit.provider = "mturk"
        assert provider_steps(session, campaign, step.added)[0].startswith(
            "MTurk: run `da-platform mturk launch waves` to create the 2 new HIT(s)")
        first_hit.provider = None
        # The recorded look is the one the decisions are recomputed from.
        again = wave_status(session, campaign)
        assert again.decisions.decision("alpha", "delta").wave == 1
        assert again.decisions.waves == (1,) and not again.provisional  # wave 2 has no ratings yet
        with pytest.raises(BuildError, match="no new rating since the last look"):
            next_wave(session, campaign, storage=LocalImageStorage(tmp_path / "images"))
        # The bundle records the design and the decisions, the analysis is the fixed campaign's.
        made = bundle(session, campaign, partial=True)
        with zipfile.ZipFile(io.BytesIO(made.content)) as archive:
            manifest = json.loads(archive.read("manifest.json"))
            waves = json.loads(archive.read("waves.json"))
            settings = json.loads(archive.read("settings.json"))
        assert manifest["design"] == "waves" and "waves.json" in manifest["files"]
        assert [w["wave"] for w in settings["waves"]["waves"]] == [1, 2]
        decided = {(p["first"], p["second"]): p for p in waves["pairs"]}
        assert decided["alpha", "delta"]["state"] == "decided" and decided["alpha", "delta"]["wave"] == 1
        assert decided["alpha", "delta"]["adjusted_p"] < 0.05 and decided["alpha", "beta"]["state"] == "open"


@pytest.mark.slow
def test_an_unfinished_wave_and_a_fixed_campaign_are_refused_and_nothing_changes(sessions, tmp_path):
    with sessions() as session:
        campaign = built(session, tmp_path)
        rate_wave(session, campaign, 0, 2)  # HIT 2 is not rated
        before = campaign.settings
        with pytest.raises(BuildError, match="has 1 of its 3 HITs not finished"):
            next_wave(session, campaign, storage=LocalImageStorage(tmp_path / "images"))
        session.rollback()
        assert session.get(Campaign, campaign.id).settings == before
        assert session.scalar(select(func.count()).select_from(Hit).where(Hit.campaign_id == campaign.id)) == 3

    with sessions() as session:
        fixed = build_campaign(session, BuildSpec(
            name="fixed", test_set=make_test_set(session, name="fixed set", questions=20), seed=1),
            storage=LocalImageStorage(tmp_path / "images"), processes=1)
        session.commit()
        assert wave_status(session, fixed) is None
        with pytest.raises(BuildError, match="has the fixed design"):
            next_wave(session, fixed, storage=LocalImageStorage(tmp_path / "images"))


@pytest.mark.slow
def test_build_and_inspect_say_the_design_and_waves_shows_the_decisions(run, sessions):
    with sessions() as session:
        make_test_set(session, name="small", questions=70, systems=("alpha", "beta", "gamma", "delta"))
        session.commit()
    made = run("build", "--test-set", "small", "--name", "w", "--design", "waves", "--first-wave", "0.5",
               "--processes", "1", "--crowd", "pool")
    assert made.exit_code == 0, made.output
    assert "built campaign 'w': 2 HITs" in made.output
    assert "design: waves (docs/method.md §12): first wave 50% of the fixed design's 4 HITs" in made.output
    assert "design: waves" in run("inspect", "w").output
    shown = run("waves", "w")
    assert shown.exit_code == 0, shown.output
    assert "no ranking yet" in shown.output
    refused = run("waves", "w", "--next")
    assert refused.exit_code == 1 and "has no ranking yet" in refused.output and "Traceback" not in refused.output
    with sessions() as session:
        campaign = session.scalar(select(Campaign).where(Campaign.name == "w"))
        for h in range(2):
            rate_hit(session, campaign, h, f"worker-{h}", scores, seed=h, start=START + timedelta(hours=h))
    status = run("waves", "w")
    assert status.exit_code == 0, status.output
    assert "decisions so far (the latest look is provisional):" in status.output
    assert re.search(r"alpha / delta +decided +1 +alpha ", status.output), status.output
    assert re.search(r"alpha / beta +open ", status.output) and "next: wave 2, 1 HITs" in status.output
    bad = run("build", "--test-set", "small", "--name", "x", "--design", "waves", "--first-wave", "0.5",
              "--budget", "0.4")
    assert bad.exit_code == 2 and "larger than the budget" in bad.output


@pytest.mark.slow
def test_the_dashboard_shows_the_waves_the_decisions_and_the_next_wave(admin_env, tmp_path):
    from tests.admin_client import login

    with admin_env.sessions() as session:
        test_set = make_test_set(session, name="web set", questions=105, systems=tuple(QUALITY))
        campaign = build_campaign(session, BuildSpec(name="<b>waves</b>", test_set=test_set, seed=3, waves=DESIGN),
                                  storage=admin_env.storage, processes=1)
        session.commit()
        rate_wave(session, campaign, 0, 3)
        campaign_id = campaign.id
    client = admin_env.app.test_client()
    login(client)
    html = client.get(f"/admin/campaigns/{campaign_id}").text
    assert 'id="waves-table"' in html and 'id="waves-pairs"' in html
    assert "now (provisional)" in html and "alpha / beta" in html and "alpha › delta" in html
    assert 'id="waves-next"' in html and "da-platform waves &lt;b&gt;waves&lt;/b&gt; --next" in html
    assert "<b>waves</b>" not in html


@pytest.fixture
def mturk(database_url, tmp_path):
    from tests.mturk_world import mturk_world

    yield from mturk_world(database_url, tmp_path)


@pytest.mark.slow
def test_a_wave_of_a_running_mturk_campaign_is_launched_by_mturk_launch(mturk, tmp_path):
    """Both databases, the fake MTurk: the first wave launched, rated (and approved), the next wave added to the
    running campaign, and ``mturk launch`` creates exactly its HITs on MTurk."""
    from da_platform.db.models import Assignment, AssignmentStatus, CampaignStatus

    with mturk.env.sessions() as session:
        campaign = built(session, tmp_path)
    images = str(tmp_path / "images")
    first = mturk.cli("mturk", "launch", "waves", "--reward", "2.00", "--locale", "US").output
    assert "created 3 HIT(s)" in first
    with mturk.env.sessions() as session:
        campaign = session.get(Campaign, campaign.id)
        assert campaign.status is CampaignStatus.running
        for h in range(3):
            rate_hit(session, campaign, h, f"W{h}", scores, seed=h, source="mturk", start=START + timedelta(hours=h))
        for assignment in session.scalars(select(Assignment)):
            assignment.status = AssignmentStatus.approved  # confirmed by the provider (as sync records it)
        session.commit()
    added = mturk.cli("waves", "waves", "--next", "--images", images).output
    assert "added wave 2: 2 HITs (3-4)" in added
    assert "MTurk: run `da-platform mturk launch waves` to create the 2 new HIT(s)" in added
    second = mturk.cli("mturk", "launch", "waves", "--reward", "2.00", "--locale", "US").output
    assert "created 2 HIT(s)" in second
    ids = mturk.hit_ids(campaign.id)
    assert len(ids) == 5 and all(ids) and len(set(ids)) == 5


@pytest.fixture
def prolific(database_url, tmp_path):
    from tests.prolific_world import prolific_world

    yield from prolific_world(database_url, tmp_path)


@pytest.mark.slow
def test_a_wave_of_a_running_prolific_campaign_raises_the_study_places(prolific, tmp_path):
    """Both databases, the fake Prolific: the first wave's study published with 3 places (3 HITs × 1), the next
    wave's 2 HITs added; ``prolific launch --live`` raises the study to 5 places on Prolific and joins the new
    HITs. A refusal by Prolific first changes nothing and says what to do by hand."""
    from da_platform.db.models import Assignment, AssignmentStatus, CampaignStatus
    from tests.fakes.mturk_requester import Fault

    with prolific.env.sessions() as session:
        campaign = built(session, tmp_path)
        campaign.completion_code = "C0MPL3TE"
        session.commit()
        campaign_id = campaign.id
    prolific.cli("prolific", "launch", "waves", "--reward", "3.00", "--minutes", "15")
    # 3 places × (3.00 + 33.33 % fee) = 9.00 + 3.00
    prolific.cli("prolific", "launch", "waves", "--live", "--confirm-total", "12.00")
    study = prolific.study()
    assert (study["status"], study["total_available_places"]) == ("ACTIVE", 3)
    with prolific.env.sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        assert campaign.status is CampaignStatus.running
        for h in range(3):
            rate_hit(session, campaign, h, f"P{h}", scores, seed=h, source="prolific",
                     start=START + timedelta(hours=h))
        for assignment in session.scalars(select(Assignment)):
            assignment.status = AssignmentStatus.approved
        session.commit()
    added = prolific.cli("waves", "waves", "--next", "--images", str(tmp_path / "images")).output
    assert "added wave 2: 2 HITs (3-4)" in added
    assert (f"Prolific: run `da-platform prolific launch waves --live`: it raises the places of study {study['id']} "
            "to 5 (5 HIT(s) × 1 place(s) per HIT, 2 more for the 2 new HIT(s))") in added
    assert "by hand" not in added

    def joined() -> list[str | None]:
        with prolific.env.sessions() as session:
            return list(session.scalars(select(Hit.provider_hit_id).where(Hit.campaign_id == campaign_id)
                                        .order_by(Hit.index)))

    no_live = prolific.cli("prolific", "launch", "waves", ok=False)
    assert no_live.exit_code == 1 and "cost real money" in no_live.output and "nothing was changed" in no_live.output
    # Prolific refuses (e.g. the workspace's balance is short): nothing half-done, the way by hand said exactly.
    prolific.fake.inject("update_study", Fault("InsufficientFunds", 400))
    refused = prolific.cli("prolific", "launch", "waves", "--live", "--confirm-total", "8.00", ok=False)
    assert refused.exit_code == 1 and "Traceback" not in refused.output, refused.output
    assert "nothing was changed" in refused.output
    assert "raise the study's places to 5 in all on Prolific by hand" in refused.output
    assert prolific.study()["total_available_places"] == 3 and joined()[3:] == [None, None]
    # 2 new places × (3.00 + 33.33 % fee) = 6.00 + 2.00
    launched = prolific.cli("prolific", "launch", "waves", "--live", "--confirm-total", "8.00").output
    assert f"study {study['id']}: places raised to 5" in launched and "the 2 new HIT(s) joined it" in launched
    study = prolific.study()
    assert (study["status"], study["total_available_places"]) == ("ACTIVE", 5) and len(prolific.fake.studies) == 1
    assert joined() == [study["id"]] * 5
    assert prolific.fake.calls.count("transition_study") == 1  # published once, not again
    again = prolific.cli("prolific", "launch", "waves", "--live").output
    assert "is on study" in again and "nothing was sent" in again and prolific.fake.calls.count("update_study") == 2


def arrive(sessions, campaign_id: int, worker: str) -> int | None:
    """The index of the HIT an own-pool worker's arrival is handed (None: refused), through the worker pages'
    Core hand-out, committed."""
    with sessions() as session:
        try:
            public_id = take_assignment_id(session.connection(), Arrival(
                source=WorkerSource.pool, campaign_id=campaign_id, worker_external_id=worker))
        except ArrivalRefused as refused:
            assert "no task left for you" in str(refused)
            session.rollback()
            return None
        session.commit()
        return session.scalar(select(Hit.index).join(Assignment, Assignment.hit_id == Hit.id)
                              .where(Assignment.public_id == public_id))


def answers(session, campaign: Campaign, index: int) -> set[int]:
    """The answers a HIT's ordinary slots show."""
    return set(session.scalars(select(Slot.answer_id).join(Hit, Slot.hit_id == Hit.id).where(
        Hit.campaign_id == campaign.id, Hit.index == index, Slot.slot_type == SlotType.SYSTEM)))


@pytest.mark.slow
def test_nobody_meets_an_item_twice_across_waves(sessions, tmp_path):
    """Both databases: a worker allowed 2 HITs who rated one of the first wave is handed, after the next wave
    over-samples the items of the open pair, only a HIT that shows none of the items he rated (finished or
    approved alike), or nothing; a fixed campaign's arrival is unchanged (its second pass repeats the first)."""
    with sessions() as session:
        test_set = make_test_set(session, name="waves set", questions=105, systems=tuple(QUALITY))
        campaign = build_campaign(session, BuildSpec(name="waves", test_set=test_set, seed=3, max_hits_per_worker=2,
                                                     waves=WaveDesign(first_wave=0.67, wave=0.5, futility=0.0)),
                                  storage=LocalImageStorage(tmp_path / "images"), processes=1)
        campaign.status = CampaignStatus.running
        session.commit()
        rate_wave(session, campaign, 0, 4)
        session.scalar(select(Assignment).join(Worker).where(Worker.external_id == "worker-3")).status = \
            AssignmentStatus.approved
        step = next_wave(session, campaign, storage=LocalImageStorage(tmp_path / "images"), processes=1)
        session.commit()
        assert step.added is not None and (step.added.first_hit, step.added.hits) == (4, 2)
        shown = {index: answers(session, campaign, index) for index in range(6)}
        campaign_id = campaign.id
    # The new wave's HIT 5 shows items of HITs 0, 2 and 3 again; HIT 4 none of the first wave's.
    assert [bool(shown[5] & shown[h]) for h in range(4)] == [True, False, True, True]
    assert not any(shown[4] & shown[h] for h in range(4))
    assert arrive(sessions, campaign_id, "worker-0") == 4
    assert arrive(sessions, campaign_id, "worker-3") is None  # approved: his items count
    assert arrive(sessions, campaign_id, "worker-2") is None  # finished: his items count
    assert arrive(sessions, campaign_id, "worker-1") == 5
    assert arrive(sessions, campaign_id, "worker-new") is None  # every HIT taken: the same refusal

    with sessions() as session:
        fixed = build_campaign(session, BuildSpec(
            name="fixed", test_set=make_test_set(session, name="fixed set", questions=20), seed=1, passes=2,
            max_hits_per_worker=2), storage=LocalImageStorage(tmp_path / "images"), processes=1)
        fixed.status = CampaignStatus.running
        session.commit()
        rate_hit(session, fixed, 0, "rater", scores, seed=0)
        hits = session.scalar(select(func.count()).select_from(Hit).where(Hit.campaign_id == fixed.id))
        repeated = [h for h in range(1, hits) if answers(session, fixed, 0) & answers(session, fixed, h)]
        fixed_id = fixed.id
    assert repeated[0] == 1  # HIT 1 shows HIT 0's items again
    assert arrive(sessions, fixed_id, "rater") == 1  # and is handed out all the same: the first HIT with room
