"""What `campaign list`, `test-set list` and `system list` show, read as a library, and the assignment that
`campaign release` names, on SQLite and PostgreSQL."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from da_platform.campaigns.assignments import assignment_to_release
from da_platform.campaigns.listing import ImportedTestSet, SystemEntry, list_campaigns, list_systems, list_test_sets
from da_platform.db.models import AssignmentStatus, Campaign, Worker
from da_platform.providers.pool.arrival import mint_invites
from da_platform.providers.tokens import Tokens
from tests.factories import make_test_set
from tests.web_factories import make_web_env


def test_test_sets_and_systems_are_listed_with_what_they_hold(session):
    make_test_set(session, name="qa", questions=3, systems=("beta", "alpha"))
    other = make_test_set(session, name="other", questions=2, systems=("people",))
    other.systems[0].is_human = True
    session.flush()

    assert list_test_sets(session) == [ImportedTestSet("qa", 3, ["beta", "alpha"], []),
                                       ImportedTestSet("other", 2, ["people"], [])]
    assert list_systems(session) == [SystemEntry("qa", "beta", False, 3), SystemEntry("qa", "alpha", False, 3),
                                     SystemEntry("other", "people", True, 2)]
    assert list_systems(session, other) == [SystemEntry("other", "people", True, 2)]


@pytest.fixture
def env(database_url, tmp_path):
    return make_web_env(database_url, tmp_path)


def test_campaigns_are_listed_with_their_progress_and_their_test_set_names_them(env):
    first = env.campaign(hits=2, slots=10, name="first")
    env.campaign(hits=1, slots=10, name="second")
    with env.sessions() as session:
        listed = list_campaigns(session)
        assert [(c.name, p.hits_done, p.hits_total) for c, p in listed] == [("first", 0, 2), ("second", 0, 1)]
        assert [t.campaigns for t in list_test_sets(session)] == [["first"], ["second"]]
        assert session.get(Campaign, first.campaign_id).name == "first"


def test_the_assignment_to_release_is_named_by_its_id_or_by_its_worker_in_progress(env):
    web = env.campaign(hits=2, slots=10, name="stuck")
    client = env.app.test_client()
    link = urlsplit(mint_invites(Tokens("test-secret-key"), "http://127.0.0.1", web.campaign_id, 1, 1)[0]).path
    assert client.get(link).status_code == 303  # the person now holds a HIT
    with env.sessions.begin() as session:
        campaign = session.get(Campaign, web.campaign_id)
        (worker,) = session.query(Worker).all()
        held = assignment_to_release(session, campaign, worker=worker)
        assert held is not None and held.worker_id == worker.id and held.status is AssignmentStatus.in_progress
        assert assignment_to_release(session, campaign, public_id=held.public_id) is held
        assert assignment_to_release(session, campaign, public_id="no-such-id") is None
        held.status = AssignmentStatus.abandoned
        session.flush()
        assert assignment_to_release(session, campaign, worker=worker) is None  # none in progress any more
        assert assignment_to_release(session, campaign, public_id=held.public_id) is held  # (release refuses it)
