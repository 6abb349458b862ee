"""The MTurk steps after a launch, called as a library (the commands only print what they return): expiring,
deleting and extending a campaign's HITs, messaging its workers, where it stands, and which marketplace its
client may use. The fake MTurk is served on 127.0.0.1 and reached through boto3, as the commands reach it."""
from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from da_platform.config.campaign_settings import CampaignSettings, MTurkLaunch
from da_platform.db.models import AuditLog, Campaign, CampaignStatus
from da_platform.db.states import WorkerSource
from da_platform.operations.clients import WrongMarketplace, mturk_client
from da_platform.operations.mturk_hits import expire_hits, notify_workers
from da_platform.operations.provider_status import provider_progress
from tests.fakes.crowd import good
from tests.mturk_world import launched, mturk_world


@pytest.fixture
def world(database_url, tmp_path, monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}.items():
        monkeypatch.setenv(name, value)  # (what boto3 signs the fake's requests with, as the commands' environment)
    yield from mturk_world(database_url, tmp_path)


def _client(world):
    return mturk_client(None, live=False, endpoint=world.url)


def _audit(world, campaign_id):
    with world.env.sessions() as s:
        return [(a.action, a.target, a.outcome) for a in s.scalars(
            select(AuditLog).where(AuditLog.campaign_id == campaign_id,
                                   AuditLog.action.in_(("mturk.expire", "mturk.extend", "mturk.notify")))
            .order_by(AuditLog.id))]


def test_expire_deletes_what_mturk_lets_go_records_it_and_closes_the_campaign(world):
    campaign_id = launched(world, hits=2, name="expiring")
    first, second = world.hit_ids(campaign_id)
    world.work(first, "W1", good)  # submitted, not reviewed: MTurk keeps the HIT

    done = list(expire_hits(world.env.sessions, campaign_id, _client(world), delete=True))

    outcomes = dict(done)
    assert len(done) == 2 and set(outcomes) == {first, second}
    assert outcomes[second] == "expired, deleted"
    assert outcomes[first].startswith("expired, not deleted (")
    assert world.fake.hits[second].deleted and not world.fake.hits[first].deleted
    assert all(world.fake.hits[h].expiration <= time.time() for h in (first, second))
    with world.env.sessions() as s:
        campaign = s.get(Campaign, campaign_id)
        assert campaign.status is CampaignStatus.closed
        assert CampaignSettings.of(campaign).mturk_launch.deleted_hits == (second,)
    assert sorted((action, target, outcome) for action, target, outcome in _audit(world, campaign_id)) == sorted(
        ("mturk.expire", hit, outcome) for hit, outcome in done)

    again = list(expire_hits(world.env.sessions, campaign_id, _client(world), delete=True))
    assert [hit for hit, _ in again] == [first]  # the deleted HIT is left alone


def test_extend_moves_the_expiry_and_leaves_the_campaign_open(world):
    campaign_id = launched(world, hits=1, name="extending")
    (hit,) = world.hit_ids(campaign_id)
    before = time.time()

    ((extended, outcome),) = expire_hits(world.env.sessions, campaign_id, _client(world), extend_hours=5,
                                         delete=True)

    assert extended == hit and outcome.startswith("until ")
    assert before + 5 * 3600 - 60 < world.fake.hits[hit].expiration < time.time() + 5 * 3600 + 60
    assert not world.fake.hits[hit].deleted  # --delete applies to expiring only
    with world.env.sessions() as s:
        assert s.get(Campaign, campaign_id).status is CampaignStatus.running
    assert [action for action, _, _ in _audit(world, campaign_id)] == ["mturk.extend"]


def test_notify_messages_each_worker_who_took_part_once(world):
    campaign_id = launched(world, hits=2, name="notifying")
    first, second = world.hit_ids(campaign_id)
    world.work(first, "W2", good)
    world.work(second, "W1", good)

    notified = notify_workers(world.env.sessions, campaign_id, _client(world), subject="Thanks", message="Bonus soon")

    assert (notified.notified, notified.workers) == (2, 2)
    assert world.fake.notifications == [{"Subject": "Thanks", "MessageText": "Bonus soon", "WorkerIds": ["W1", "W2"]}]
    assert _audit(world, campaign_id)[-1] == ("mturk.notify", "2 worker(s)", "0 failure(s)")


def test_progress_counts_the_hits_launched_and_the_assignments_by_status(world):
    campaign_id = launched(world, hits=2, name="progress")
    first, _ = world.hit_ids(campaign_id)
    world.work(first, "W1", good)

    with world.env.sessions() as s:
        progress = provider_progress(s, campaign_id, WorkerSource.mturk)
        elsewhere = provider_progress(s, campaign_id, WorkerSource.prolific)

    assert (progress.launched, progress.hits) == (2, 2)
    assert [(status.value, n) for status, n in progress.assignments] == [("completed", 1)]
    assert progress.decisions == [] and progress.attention == []
    assert (elsewhere.launched, elsewhere.hits, elsewhere.assignments) == (0, 2, [])


@pytest.mark.parametrize("launched_live, live, word", [(True, False, "add"), (False, True, "remove")])
def test_a_campaign_is_reached_only_on_the_marketplace_it_was_launched_on(launched_live, live, word):
    settings = CampaignSettings(mturk_launch=MTurkLaunch(hit_type_id="T", live=launched_live))
    with pytest.raises(WrongMarketplace, match=f": {word} --live$"):
        mturk_client(settings, live=live, endpoint="http://127.0.0.1:9")
    assert mturk_client(settings, live=launched_live, endpoint="http://127.0.0.1:9").live is launched_live
