"""Every worker-facing page of a zh-Hans campaign in Chromium has no Latin text outside the data: the MTurk
preview, the instructions, practice, items, the done page, every refusal (no task left, the HIT cap,
already finished or submitted, blocked, paused, closed, time up, an expired invite or link, a page that
does not exist, a request too large), and the dashboard's preview of what the worker sees. A link that
names no campaign (forged, garbled) is in the browser's language, and the landing page too.

The browser asks for English (``en-US``) on the campaign's pages: the campaign's language must win.
The campaign is built by the real builder from the Chinese showcase test set (one HIT) and served on
127.0.0.1; data the worker sees that is not ours (question, context, code) is left out of the check.
"""
from __future__ import annotations

import re
import secrets
import time
from datetime import timedelta

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.config.accounts import create_user
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, CampaignStatus, Hit, Worker, utcnow
from da_platform.providers.pool.arrival import mint_invites
from da_platform.rating.flow import BLOCKED, TIMED_OUT
from da_platform.rating.language import SHIPPED, _read_po
from da_platform.simulation.showcase import make_showcase
from hit_builder.worker_settings import WorkerPageOptions
from tests.admin_client import PASSWORD
from tests.browser_steps import served_site

pytestmark = pytest.mark.browser

STATEMENT = "答案B与答案A一样恰当地回答了问题。"
ZH = {message: translation for message, translation, _ in _read_po(SHIPPED["zh-Hans"])}
# Names of the providers' link parameters and product names: identifiers, the same in every language.
IDENTIFIERS = {"JavaScript", "turkSubmitTo", "assignmentId", "workerId", "hitId", "da-platform"}

TEXT = """() => {
  const body = document.body.cloneNode(true);
  for (const data of body.querySelectorAll('#question, #context-text, code, noscript, script')) data.remove();
  const texts = [document.title, body.textContent];
  for (const element of document.querySelectorAll('[alt], [aria-label], [title], [placeholder]'))
    for (const name of ['alt', 'aria-label', 'title', 'placeholder'])
      if (element.getAttribute(name)) texts.push(element.getAttribute(name));
  return texts.join('\\n');
}"""


def latin_words(page) -> list[str]:
    """Words of two or more Latin letters the page shows (text, title, alt / aria-label / title
    attributes), the data and the identifiers left out ("答案A" has one Latin letter, a label)."""
    words = re.findall(r"[A-Za-z][A-Za-z_\-]+", page.evaluate(TEXT))
    return [w for w in words if w not in IDENTIFIERS]


def chinese_page(page) -> str:
    """Check the page: lang zh-Hans, no Latin words; its text."""
    assert page.evaluate("document.documentElement.lang") == "zh-Hans", page.url
    assert latin_words(page) == [], (page.url, latin_words(page))
    return page.inner_text("body")


@pytest.fixture
def site(tmp_path):
    with served_site(tmp_path, "zh") as site:
        with site.sessions() as session:
            test_set = make_showcase(session, name="zh", lang="zh-Hans")
            campaign = build_campaign(session, BuildSpec(name="zh", test_set=test_set, seed=3, worker=WorkerPageOptions(
                lang="zh-Hans", practice=True, show_context=True)), storage=site.storage, processes=1)
            campaign.status = CampaignStatus.running
            hit = session.scalars(select(Hit).where(Hit.campaign_id == campaign.id)).one()
            hit.provider, hit.provider_hit_id = "mturk", "HITZH0001"
            session.commit()
            site.campaign_id, site.hit_id = campaign.id, hit.id
        yield site


@pytest.fixture
def english_browser(browser):
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def invite(site, worker: str | None = None, valid_days: float = 1) -> str:
    """A fresh invite link (for a new anonymous worker, or for ``worker``)."""
    tokens = site.app.extensions["da_platform"].tokens
    if worker is None:
        return mint_invites(tokens, site.url, site.campaign_id, 1, valid_days)[0]
    return f"{site.url}/pool/{tokens.invite(site.campaign_id, worker, int(time.time() + valid_days * 86400))}"


def token_of(url: str) -> str:
    return url.split("/a/")[1].split("/")[0]


def rate_the_rest(site, page, token: str) -> str:
    """Rate every item left through the page's JSON endpoint, as its script does; the done page's URL."""
    slot = page.input_value("input[name=slot]")
    while True:
        answer = page.request.post(f"{site.url}/a/{token}/rating", form={"slot": slot, "score": "60"}).json()
        if "screen" not in answer:
            return answer["done"]
        slot = answer["screen"]["slot"]


def assignment_of(site, worker: str, *, source: str = "pool", status=AssignmentStatus.in_progress,
                  started_hours_ago: float = 0, provider_assignment_id: str | None = None,
                  blocked: bool = False) -> str:
    """An assignment of ``worker`` on the campaign's HIT, stored as the arrival stores one; its token."""
    with site.sessions() as session:
        person = Worker(source=source, external_id=worker, blocked=blocked)
        public_id = secrets.token_urlsafe(16)
        session.add(Assignment(hit_id=site.hit_id, worker=person, public_id=public_id, source=source, status=status,
                               next_position=0, provider_assignment_id=provider_assignment_id,
                               provider_data={"turkSubmitTo": "https://workersandbox.mturk.com"} if source == "mturk"
                               else {}, started_at=utcnow() - timedelta(hours=started_hours_ago)))
        session.commit()
    return site.app.extensions["da_platform"].tokens.assignment(public_id)


def set_status(site, status: CampaignStatus) -> None:
    with site.sessions() as session:
        session.get(Campaign, site.campaign_id).status = status
        session.commit()


def shows(page, url: str, message: str) -> None:
    """The page at ``url`` is Chinese through and through and shows the Chinese of ``message``."""
    page.goto(url)
    assert ZH[message] in chinese_page(page), page.inner_text("body")


def test_every_worker_page_of_a_chinese_campaign_is_chinese(site, english_browser):
    page = english_browser
    mturk = f"{site.url}/mturk?hitId=HITZH0001"
    page.goto(f"{mturk}&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE")  # where an MTurk worker lands first
    assert STATEMENT in chinese_page(page) and page.is_visible("#preview-notice")

    link = invite(site)
    page.goto(link)  # the instructions
    assert STATEMENT in chinese_page(page)
    page.click("#practice")
    page.wait_for_selector("#rating-form[data-ready='1']")
    chinese_page(page)
    page.goto(page.url.split("/practice/")[0] + "/")
    page.click("#start")
    page.wait_for_selector("#rating-form[data-ready='1']")
    assert page.inner_text("#statement") == STATEMENT
    chinese_page(page)
    page.focus("#slider")
    page.keyboard.press("ArrowRight")
    page.click("#next")  # the next item arrives as JSON
    page.wait_for_function("expected => document.getElementById('progress').textContent.trim() === expected",
                           arg="2 / 100")
    page.wait_for_selector("#rating-form[data-ready='1']")
    chinese_page(page)
    done = site.url + rate_the_rest(site, page, token_of(page.url))
    page.goto(done)
    assert page.is_visible("#done") and "100" in chinese_page(page)

    # Refusals at arrival: the campaign is known from the link, so they are in its language.
    shows(page, invite(site), "There is no task left for you at the moment.")  # its one HIT is done
    shows(page, link, "You have already done as many of these tasks as one person may.")
    assignment_of(site, "M1", source="mturk", status=AssignmentStatus.completed, provider_assignment_id="ASG1")
    arrive = f"{mturk}&workerId=M1&turkSubmitTo=https://workersandbox.mturk.com&assignmentId="
    with site.sessions() as session:
        mine = session.scalar(select(Assignment).where(Assignment.provider_assignment_id == "ASG1"))
        mine.status = AssignmentStatus.submitted
        session.commit()
    shows(page, arrive + "ASG2", "You have already submitted this task.")
    shows(page, f"{mturk}&workerId=M1&assignmentId=ASG3", "The link is incomplete or malformed (turkSubmitTo).")
    with site.sessions() as session:
        session.add(Worker(source="pool", external_id="p-blocked", blocked=True))
        session.commit()
    shows(page, invite(site, "p-blocked"), "You cannot take part in this task.")
    shows(page, invite(site, valid_days=-1), "This invitation has expired.")
    set_status(site, CampaignStatus.paused)
    shows(page, invite(site), "This task is paused at the moment: please come back later.")
    set_status(site, CampaignStatus.closed)
    shows(page, invite(site), "This task is not open at the moment.")

    # Pages of an assignment: the campaign is known from the assignment.
    shows(page, f"{site.url}/a/{assignment_of(site, 'late', started_hours_ago=24)}/slot", TIMED_OUT)
    shows(page, f"{site.url}/a/{assignment_of(site, 'gone', blocked=True)}/slot", BLOCKED)
    practising = assignment_of(site, "practising")
    shows(page, f"{site.url}/a/{practising}/practice/9", "This page does not exist.")

    class LongAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 30 * 24 * 3600

    expired = URLSafeTimedSerializer("test-secret-key", salt="da-platform.assignment", signer=LongAgo).dumps(
        _public_id(site, done))  # the finished assignment's link, signed 30 days ago
    shows(page, f"{site.url}/a/{expired}/slot", "This link has expired.")
    too_large = page.request.post(f"{site.url}/a/{practising}/slot",
                                  form={"slot": "x", "score": "1", "pad": "x" * 70_000})
    assert too_large.status == 413
    page.set_content(too_large.text())
    assert ZH["Request too large"] in chinese_page(page)


def _public_id(site, url: str) -> str:
    return site.app.extensions["da_platform"].tokens.read_assignment(token_of(url))


NO_CAMPAIGN = {  # path -> the message of a link that names no campaign
    "/pool/not-a-token": "This invitation link is not valid.",
    "/prolific/not-a-token?PROLIFIC_PID=a&STUDY_ID=b&SESSION_ID=c": "This study link is not valid.",
    "/mturk?hitId=NOSUCHHIT&assignmentId=A&workerId=W&turkSubmitTo=https://www.mturk.com":
        "This task is not known here.",
    "/a/not-a-token/slot": "This link is not valid.",
    "/a/not-a-token/nothing/here": "This page does not exist.",
}


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_pages_of_no_campaign_are_in_the_browsers_language(site, browser, locale):
    context = browser.new_context(locale=locale)
    page = context.new_page()
    try:
        for path, message in NO_CAMPAIGN.items():
            page.goto(site.url + path)
            if locale == "zh-CN":
                assert ZH[message] in chinese_page(page), path
            else:
                assert page.evaluate("document.documentElement.lang") == "en"
                assert page.inner_text("#message") == message, path
        page.goto(site.url + "/")
        if locale == "zh-CN":
            text = chinese_page(page)
            assert ZH["Raters:"] in text and "da-platform admin create-user" in text
        else:
            assert "Raters: open the personal link you were given" in page.inner_text("body")
    finally:
        context.close()


def test_the_dashboard_preview_shows_what_the_chinese_worker_sees(site, admin_page):
    with site.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    admin_page.goto(f"{site.url}/admin/login")
    admin_page.fill("#username", "ana")
    admin_page.fill("#password", PASSWORD)
    admin_page.click("#login")
    admin_page.wait_for_url(f"{site.url}/admin/")
    admin_page.goto(f"{site.url}/admin/campaigns/{site.campaign_id}/preview?hit=0&slot=0")
    view = admin_page.locator("#worker-view")
    assert view.get_attribute("lang") == "zh-Hans"
    assert admin_page.inner_text("#preview-statement") == STATEMENT
    assert latin_words_of(view.inner_text()) == []
    assert ZH["Question"] in view.inner_text() and ZH["Answer B"] in view.inner_text()
    assert admin_page.inner_text("#preview-statement-english") == (
        "The statement in English: Answer B answers the question as adequately as Answer A.")
    assert admin_page.problems == [] and admin_page.dialogs == []


def latin_words_of(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z][A-Za-z_\-]+", text) if w not in IDENTIFIERS]
