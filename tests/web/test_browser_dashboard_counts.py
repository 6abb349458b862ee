"""What the dashboard shows, in Chromium: the "Computing…" page reloads itself into the campaign page
(the analysis is never computed in the request); ratings of an abandoned HIT are named the same way on
the campaign list, the campaign page and the workers table; a worker excluded by the meaning-change
check has the reason among their flags although the QC column (the BAD_REF check) says passed.

Campaigns are built by the real builder; ratings are stored as the worker flow stores them
(tests/dashboard_factories.py); the app is served on 127.0.0.1 (SQLite; both databases are covered by
tests/results/test_abandoned_ratings.py, tests/web/test_admin_behaviour.py and tests/results/test_analysis_cache.py).
"""
from __future__ import annotations

import pytest
from sqlalchemy import select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.building.crowds import CrowdChoice
from da_platform.campaigns.lifecycle import release_assignment
from da_platform.config.accounts import create_user
from da_platform.db.models import Assignment, SlotType
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD
from tests.browser_steps import served_site
from tests.factories import make_test_set

pytestmark = pytest.mark.browser


def log_in(page, site) -> None:
    page.goto(f"{site.url}/admin/login")
    page.fill("#username", "ana")
    page.fill("#password", PASSWORD)
    page.click("#login")
    page.wait_for_url(f"{site.url}/admin/")


def test_the_first_view_says_computing_then_shows_the_analysis_by_itself(tmp_path, admin_page):
    with served_site(tmp_path, "computing", ANALYSIS_WAIT_SECONDS=0) as site:
        with site.sessions() as session:
            create_user(session, "ana", PASSWORD)
            campaign = factories.build(session, site.storage, hostile=False)
            factories.rate_hit(session, campaign, 0, "first", seed=1)
            factories.rate_hit(session, campaign, 1, "second", seed=2)
            campaign_id = campaign.id
        log_in(admin_page, site)
        admin_page.goto(f"{site.url}/admin/campaigns/{campaign_id}")
        assert admin_page.inner_text("#computing") == "Computing…"
        assert "reloads itself every 2 seconds" in admin_page.inner_text("#message")
        admin_page.wait_for_selector("#ranking-table", timeout=120_000)  # no click: the page reloaded itself
        assert "from 200 ratings; up to date" in admin_page.inner_text("#analysis-state")
        assert admin_page.locator("#ranking-table tbody tr").count() == len(factories.QUALITY)
        assert admin_page.problems == []


def blind_to_meaning(slot, rng) -> int:
    """Degraded answers marked down, meaning-changed ones scored top."""
    return 100 if slot.slot_type is SlotType.MEANING else factories.good(slot, rng)


def test_abandoned_ratings_and_a_failed_meaning_check_are_named(tmp_path, admin_page):
    with served_site(tmp_path, "counts") as site:
        with site.sessions() as session:
            create_user(session, "ana", PASSWORD)
            test_set = make_test_set(session, name="counts set", questions=35, systems=tuple(factories.QUALITY))
            spec = BuildSpec(name="counts", test_set=test_set, seed=1, crowd=CrowdChoice("hardened"))
            campaign = build_campaign(session, spec,
                                      storage=site.storage)
            session.commit()
            factories.rate_hit(session, campaign, 0, "blind", blind_to_meaning, seed=1)
            factories.rate_hit(session, campaign, 1, "leaver", slots=14, seed=2)
            release_assignment(session, session.scalar(select(Assignment).where(Assignment.next_position == 14)),
                               actor="test")
            session.commit()
            campaign_id = campaign.id
        log_in(admin_page, site)
        assert admin_page.inner_text("#campaigns tbody tr td:last-child") == "114 (14 ratings, abandoned, not analysed)"

        admin_page.goto(f"{site.url}/admin/campaigns/{campaign_id}")
        assert admin_page.inner_text("#ratings-abandoned") == "14 ratings, abandoned, not analysed"
        assert "leave out 14 ratings, abandoned, not analysed" in admin_page.inner_text("#exports-abandoned")

        admin_page.click("#workers-link")
        admin_page.wait_for_url(f"{site.url}/admin/campaigns/{campaign_id}/workers")
        leaver = admin_page.locator("#workers-table tbody tr", has_text="leaver")
        assert "14 ratings, abandoned, not analysed" in leaver.inner_text()
        blind = admin_page.locator("#workers-table tbody tr", has_text="blind").locator("td")
        assert blind.nth(2).inner_text() == "passed"  # the BAD_REF check
        assert blind.nth(11).inner_text() == "excluded"
        assert "MEANING check failed" in blind.nth(11).locator("span").get_attribute("title")
        assert blind.nth(12).inner_text().strip() == "MEANING check failed"
        assert admin_page.problems == [] and admin_page.dialogs == []
