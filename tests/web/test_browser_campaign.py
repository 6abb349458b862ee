"""The dashboard's live parts in a real browser (Chromium): the landing page at ``/``, the campaign
page refreshing itself while a campaign runs (a new rating shows without a reload), the workers
table sorted and filtered by clicks, and fitting a 1280 px wide window."""
from __future__ import annotations

import pytest

from da_platform.config.accounts import create_user
from da_platform.db.models import Campaign
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD
from tests.browser_steps import served_site

pytestmark = pytest.mark.browser


@pytest.fixture
def site(tmp_path):
    with served_site(tmp_path, "live", DASHBOARD_REFRESH_SECONDS=1) as env:
        factories.three_worker_campaign(env, running=True)
        with env.sessions.begin() as session:
            create_user(session, "ana", PASSWORD)
        yield env


def log_in(tab, site) -> None:
    tab.goto(f"{site.url}/admin/login")
    tab.fill("#username", "ana")
    tab.fill("#password", PASSWORD)
    tab.click("#login")


def test_the_landing_page_points_to_the_dashboard(site, admin_page):
    admin_page.goto(f"{site.url}/")
    assert "da-platform" in admin_page.inner_text("h1")
    admin_page.click("#dashboard-link")
    admin_page.wait_for_url(f"{site.url}/admin/login**")
    log_in(admin_page, site)
    admin_page.goto(f"{site.url}/")
    admin_page.click("#dashboard-link")
    admin_page.wait_for_url(f"{site.url}/admin/")
    assert admin_page.locator("#campaigns").count() == 1
    assert admin_page.problems == [] and admin_page.dialogs == []


def _ratings_card(tab) -> str:
    return tab.locator("#progress .card", has_text="ratings").inner_text()


def test_the_campaign_page_shows_a_new_rating_without_a_reload(site, admin_page):
    log_in(admin_page, site)
    admin_page.goto(f"{site.url}/admin/campaigns/{site.campaign_id}")
    assert _ratings_card(admin_page).split()[0] == "300"
    admin_page.evaluate("window.notReloaded = true")
    with site.sessions() as session:  # a fourth worker rates 2 items of the open HIT
        factories.rate_hit(session, session.get(Campaign, site.campaign_id), 3, "late", slots=2)
    admin_page.wait_for_function("() => document.querySelector('#progress').innerText.includes('302')")
    assert _ratings_card(admin_page).split()[0] == "302"
    assert admin_page.evaluate("window.notReloaded") is True  # the same page, updated in place
    assert admin_page.locator("#assignments-table").inner_text().count("2/100") == 1  # the new assignment, x/100
    assert admin_page.problems == [] and admin_page.dialogs == []


def test_the_workers_table_sorts_filters_and_fits_1280_px(site, admin_page):
    log_in(admin_page, site)
    admin_page.goto(f"{site.url}/admin/campaigns/{site.campaign_id}/workers")
    column = admin_page.locator("#workers-table thead th").all_inner_texts().index("Worker")

    def names() -> list[str]:
        return [row.split("\t")[column].strip() for row in admin_page.locator("#workers-table tbody tr:visible")
                .all_inner_texts()]

    admin_page.click("#workers-table thead th:nth-child(1) button")
    assert names() == sorted(names()) and admin_page.get_attribute("#workers-table thead th:nth-child(1)",
                                                             "aria-sort") == "ascending"
    admin_page.click("#workers-table thead th:nth-child(1) button")
    assert names() == sorted(names(), reverse=True)
    seconds = admin_page.locator("#workers-table thead th", has_text="s / item")
    seconds.locator("button").click()
    index = admin_page.locator("#workers-table thead th").all_inner_texts().index(seconds.inner_text())
    values = [float(row.split("\t")[index]) for row in admin_page.locator("#workers-table tbody tr").all_inner_texts()]
    assert values == sorted(values) and len(values) == 3
    admin_page.fill("#workers-filter", "careless")
    assert names() == ["careless"]
    admin_page.fill("#workers-filter", "")
    assert len(names()) == 3
    assert admin_page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert admin_page.evaluate("document.querySelector('#workers-table').getBoundingClientRect().right") <= 1280
    assert admin_page.problems == [] and admin_page.dialogs == []
