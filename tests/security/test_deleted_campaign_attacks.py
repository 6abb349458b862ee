"""Attack suite, deleting a campaign: nothing of it outlives it, on disk or in the database.

On SQLite a campaign made after a deletion reuses the deleted one's id; its dashboard offered, and
downloaded, the deleted campaign's prepared export (its ratings), which ``campaign delete --force``
left in ``<instance>/exports/campaign-<id>/`` (on PostgreSQL the deleted ratings also stayed on disk).
Prepared files are now deleted with the campaign and kept in a folder named by the campaign's id and
creation time, never reused. The deletion also removes the campaign's worker rows (a worker id is a
person's provider id), except those that worked elsewhere or are blocked. On SQLite and PostgreSQL.
"""
from __future__ import annotations

import pytest
from sqlalchemy import select

from da_platform.models import Campaign, Worker
from da_platform.prepared_exports import ExportRequest, JobState, app_exports
from da_platform.web.admin.accounts import create_user
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD, login
from tests.web_factories import make_web_env

RATINGS = ExportRequest("ratings", partial=True)


@pytest.mark.slow
def test_a_deleted_campaigns_export_is_never_served_under_the_next_one(database_url, tmp_path, run):
    exports = tmp_path / "instance" / "exports"  # where `run`'s CLI (DA_INSTANCE_PATH) keeps them too
    env = make_web_env(database_url, tmp_path, EXPORT_BACKGROUND_FROM=0, EXPORT_FOLDER=str(exports))
    prepared = app_exports(env.app)
    with env.sessions() as session:
        create_user(session, "ana", PASSWORD)
        old = factories.build(session, env.storage, name="old", hostile=False)
        factories.rate_hit(session, old, 0, "first", seed=1)
        old_id = old.id
        assert prepared.ensure(session, old, RATINGS).current is not None
    prepared.wait(old_id)
    with env.sessions() as session:
        assert prepared.status(session, session.get(Campaign, old_id), RATINGS).current.state is JobState.READY
    assert list(exports.rglob("*.data"))

    result = run("campaign", "delete", "old", "--force")
    assert result.exit_code == 0, result.output
    assert not list(exports.rglob("*")), "the deleted campaign's prepared files are still on disk"

    with env.sessions() as session:
        new_id = factories.build(session, env.storage, name="new", hostile=False).id
    if database_url.startswith("sqlite"):
        assert new_id == old_id  # SQLite gives the next campaign the deleted one's id
    client = env.app.test_client()
    login(client)
    page = client.get(f"/admin/campaigns/{new_id}/prepared/ratings?partial=1")
    assert page.status_code == 200 and "export-older" not in page.text and "100 ratings" not in page.text
    assert client.get(f"/admin/campaigns/{new_id}/export/ratings?partial=1").status_code == 303  # no file to serve


@pytest.mark.slow
def test_a_deleted_campaigns_prepared_files_stay_with_it_even_if_left_on_disk(database_url, tmp_path):
    """A folder left behind (the CLI ran on another machine) is still never the next campaign's."""
    env = make_web_env(database_url, tmp_path, EXPORT_BACKGROUND_FROM=0, EXPORT_FOLDER=str(tmp_path / "exports"))
    prepared = app_exports(env.app)
    with env.sessions() as session:
        old = factories.build(session, env.storage, name="old", hostile=False)
        factories.rate_hit(session, old, 0, "first", seed=1)
        old_id = old.id
        prepared.ensure(session, old, RATINGS)
    prepared.wait(old_id)
    from da_platform.lifecycle import delete_campaign

    with env.sessions.begin() as session:
        delete_campaign(session, session.get(Campaign, old_id), force=True, actor="test")
    with env.sessions() as session:
        new = factories.build(session, env.storage, name="new", hostile=False)
        status = prepared.status(session, new, RATINGS)
        assert status.current is None and status.older is None and status.running is None


@pytest.mark.slow
def test_campaign_delete_removes_its_workers_but_not_shared_or_blocked_ones(database_url, tmp_path, run):
    env = make_web_env(database_url, tmp_path)
    with env.sessions() as session:
        old = factories.build(session, env.storage, name="old", hostile=False, passes=2)
        other = factories.build(session, env.storage, name="other", hostile=False)
        factories.rate_hit(session, old, 0, "only-here", seed=1)
        factories.rate_hit(session, old, 1, "shared", seed=2)
        factories.rate_hit(session, other, 0, "shared", seed=3)
        factories.rate_hit(session, old, 2, "blocked", seed=4, slots=10)
        session.scalar(select(Worker).where(Worker.external_id == "blocked")).blocked = True
        session.commit()
    result = run("campaign", "delete", "old", "--force")
    assert result.exit_code == 0, result.output
    with env.sessions() as session:
        left = set(session.scalars(select(Worker.external_id)))
    assert left == {"shared", "blocked"}
