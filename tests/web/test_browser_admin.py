"""The dashboard in a real browser (Debian's Chromium, headless, Playwright): log in, read the
campaign and worker pages, take a decision through its confirmation page. HTML payloads in questions,
answers, system names and worker ids must show as text: no dialog opens, no injected element exists,
and the strict CSP reports nothing (no inline script or style is needed)."""
from __future__ import annotations

import os

import pytest
from sqlalchemy import select

from da_platform.config.accounts import create_user
from da_platform.db.models import ReviewDecision
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD
from tests.browser_steps import served_site

pytestmark = pytest.mark.browser

SCREENSHOTS = os.environ.get("DA_ADMIN_SCREENSHOTS")  # a folder: keep screenshots of the pages for a look


@pytest.fixture
def site(tmp_path):
    with served_site(tmp_path, "admin") as env:
        factories.three_worker_campaign(env)
        with env.sessions.begin() as session:
            create_user(session, "ana", PASSWORD)
        yield env


def no_injection(page) -> None:
    """Nothing injected ran or exists; the payloads are shown as text."""
    assert page.dialogs == []
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script:not([src='/static/dashboard.js'])").count() == 0  # our one static script only
    assert page.problems == []


def image_loaded(page, selector: str) -> bool:
    """Waits for the image to load; False if it failed (a broken image is complete with width 0)."""
    page.wait_for_function("sel => document.querySelector(sel)?.complete", arg=selector)
    return page.eval_on_selector(selector, "img => img.naturalWidth > 0")


def test_log_in_read_the_pages_and_decide(site, admin_page):
    campaign_url = f"{site.url}/admin/campaigns/{site.campaign_id}"
    admin_page.goto(campaign_url)
    assert admin_page.url.startswith(f"{site.url}/admin/login?next=")
    admin_page.fill("#username", "ana")
    admin_page.fill("#password", "wrong password!")
    admin_page.click("#login")
    assert admin_page.inner_text("#error") == "Wrong user name or password."
    admin_page.fill("#username", "ana")
    admin_page.fill("#password", PASSWORD)
    admin_page.click("#login")
    admin_page.wait_for_url(campaign_url)

    systems = admin_page.locator("#ranking-table tbody tr td:nth-child(2)").all_inner_texts()
    assert systems == list(factories.QUALITY)  # "<script>alert(1)</script>" shown as text
    assert "unfinished: 3 of 4 HITs done" in admin_page.inner_text("#progress")
    assert admin_page.locator("#planning-table tbody tr").count() == 3
    assert admin_page.inner_text("#rehearsal code") == "da-platform simulate dash"  # rehearse before paying
    assert image_loaded(admin_page, "#heatmap")
    no_injection(admin_page)
    if SCREENSHOTS:
        admin_page.screenshot(path=os.path.join(SCREENSHOTS, "campaign.png"), full_page=True)

    admin_page.click("#workers-link")
    admin_page.wait_for_url(f"{campaign_url}/workers")  # loaded: count() below does not wait
    assert admin_page.locator(f"text={factories.IMG}").count() == 1
    no_injection(admin_page)
    admin_page.click(f"a[href$='/workers/{site.workers[factories.IMG]}']")
    admin_page.wait_for_url(f"{campaign_url}/workers/{site.workers[factories.IMG]}")
    assert admin_page.inner_text("#worker-id") == factories.IMG
    assert image_loaded(admin_page, "#scatter") and image_loaded(admin_page, "#timeline")
    pairs = admin_page.locator("#pairs-table tbody tr td").all_inner_texts()
    assert pairs[0] == f"Why {factories.SCRIPT} and {factories.IMG}?" and pairs[2].endswith(factories.IMG)
    no_injection(admin_page)
    if SCREENSHOTS:
        admin_page.screenshot(path=os.path.join(SCREENSHOTS, "worker.png"), full_page=True)

    admin_page.click("#action-approve_exclude")
    assert "Confirm: Approve but exclude" in admin_page.inner_text("h1")
    admin_page.fill("#reason", "scores drift after item 50")
    admin_page.click("#confirm-decision")  # the required checkbox is not ticked: the browser refuses to send
    assert "Confirm:" in admin_page.inner_text("h1")
    admin_page.check("#confirm")
    admin_page.click("#confirm-decision")
    admin_page.wait_for_selector(".flash")
    assert "Recorded: Approve but exclude (1 decision(s))." in admin_page.inner_text(".flash")
    assert "scores drift after item 50" in admin_page.inner_text("#decisions-table")
    with site.sessions() as session:
        decision = session.scalars(select(ReviewDecision)).one()
        assert (decision.action, decision.use_data, decision.reason) == ("approve", False, "scores drift after item 50")
    no_injection(admin_page)

    admin_page.click("#logout")
    admin_page.goto(campaign_url)
    assert admin_page.url.startswith(f"{site.url}/admin/login")
