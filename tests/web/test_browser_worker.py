"""The worker pages in a real browser: Debian's Chromium, headless, driven by Playwright.

One whole 100-slot HIT is rated with the keyboard, mouse clicks and drags; the other checks use
short HITs. Everything runs on 127.0.0.1 (the app and a fake MTurk in threads); Prolific's
completion URL is intercepted by Playwright routing, so nothing leaves the machine.
"""
from __future__ import annotations

import io
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
from PIL import Image
from sqlalchemy import select, text

from da_platform.db.models import Assignment, AssignmentStatus, Rating, Slot
from da_platform.providers.prolific.arrival import study_url
from tests.browser_steps import (
    click_slider,
    drag_slider,
    invite,
    move_by_keyboard,
    next_item,
    served_site,
    start,
    wait_ready,
)
from tests.fakes.fake_mturk import create_fake_mturk
from tests.fakes.server import serve_wsgi
from tests.web_factories import CHINESE_QUESTION

pytestmark = pytest.mark.browser


@pytest.fixture
def fake_mturk():
    app = create_fake_mturk()
    with serve_wsgi(app) as url:
        yield url, app.config["LEDGER"]


@pytest.fixture
def site(tmp_path, fake_mturk):
    """The app on a fresh SQLite database, served on 127.0.0.1, with the fake MTurk allow-listed."""
    turk_url, _ = fake_mturk
    with served_site(tmp_path, MTURK_SUBMIT_ORIGINS=[turk_url],
                     FRAME_ANCESTORS=["https://www.mturk.com", "https://workersandbox.mturk.com", turk_url]) as site:
        yield site


def thumb_drawn(page) -> bool:
    """Whether the slider's thumb (the accent colour, #1a5fb4) appears in a screenshot of the slider."""
    image = Image.open(io.BytesIO(page.locator("#slider").screenshot())).convert("RGB")
    return any(abs(r - 26) + abs(g - 95) + abs(b - 180) < 30 for _, (r, g, b) in image.getcolors(1 << 16))


SLOT_STATE = """() => [document.getElementById('progress').textContent.trim(),
                document.getElementById('next').disabled, document.getElementById('score').value]"""


def test_a_worker_rates_a_whole_hit(site, page):
    campaign = site.campaign(slots=100)
    start(page, invite(site, campaign))
    sent = []
    for number in range(1, 101):
        assert page.evaluate(SLOT_STATE) == [f"{number} / 100", True, ""]  # Next disabled, no score
        method = number % 3
        if method == 0:
            move_by_keyboard(page, presses=number % 5 + 1, key="ArrowRight" if number % 2 else "ArrowLeft")
        elif method == 1:
            click_slider(page, (number % 10) / 10 + 0.05)
        else:
            drag_slider(page, 0.5, (number % 7) / 7 + 0.03)
        disabled, score = page.evaluate(SLOT_STATE)[1:]
        assert not disabled
        sent.append(int(score))
        next_item(page, number, 100)
    page.wait_for_selector("#done")
    assert "All 100 ratings are saved" in page.inner_text("main")
    with site.sessions() as s:
        slots = list(s.scalars(select(Slot.id).where(Slot.hit_id == campaign.hit_ids[0]).order_by(Slot.position)))
        stored = list(s.scalars(select(Rating).order_by(Rating.id)))
        assignment = s.scalars(select(Assignment)).one()
    assert [r.slot_id for r in stored] == slots
    assert [r.score for r in stored] == sent
    assert len(set(sent)) > 10 and all(0 <= score <= 100 for score in sent)
    assert assignment.status == AssignmentStatus.completed


def test_slider_needs_a_move_and_is_keyboard_operable(site, page):
    campaign = site.campaign(slots=3)
    start(page, invite(site, campaign))
    assert page.inner_text("#question") == CHINESE_QUESTION
    assert page.is_disabled("#next")
    assert not thumb_drawn(page)  # no position is suggested
    page.click("#next", force=True)  # clicking the disabled button does nothing
    assert page.inner_text("#progress") == "1 / 3"
    # Reaching the slider with Tab gives it a visible focus ring but is not a rating.
    page.focus("body")
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "slider":
            break
    assert page.evaluate("document.activeElement.id") == "slider"
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("ArrowLeft")
    assert page.is_enabled("#next") and page.input_value("#score") == "49"
    assert thumb_drawn(page)
    for image in ("#answer-a", "#answer-b"):
        assert page.evaluate(f"document.querySelector('{image}').naturalWidth") > 0
    assert "%" in page.inner_text(".scale") and "49" not in page.inner_text("main")  # no number shown
    page.keyboard.press("End")
    assert page.input_value("#score") == "100"
    next_item(page, 1, 3)
    with site.sessions() as s:
        assert s.scalars(select(Rating.score)).all() == [100]


def test_no_way_back_and_reload_resumes(site, page):
    campaign = site.campaign(slots=4)
    start(page, invite(site, campaign))
    first = page.input_value("input[name=slot]")
    move_by_keyboard(page)
    next_item(page, 1, 4)
    second = page.input_value("input[name=slot]")
    assert second != first
    # Items follow each other in place, so the page before them is the instructions, which now
    # forward to the current item.
    page.go_back()
    wait_ready(page, 2, 4)
    assert page.input_value("input[name=slot]") == second
    page.go_back()  # out of the task altogether, and forward again: still the current item
    page.go_forward()
    wait_ready(page, 2, 4)
    assert page.input_value("input[name=slot]") == second
    move_by_keyboard(page, 3)
    next_item(page, 2, 4)
    page.reload()
    wait_ready(page, 3, 4)
    assert page.is_disabled("#next")
    # A stale form for the first item, sent again with another score, is refused.
    page.evaluate(
        """([slot]) => { const f = document.getElementById('rating-form');
             f.querySelector('input[name=slot]').value = slot; f.querySelector('#score').value = '7';
             f.submit(); }""",
        [first],
    )
    page.wait_for_selector("#message")
    assert "not the current one" in page.inner_text("#message")
    with site.sessions() as s:
        assert len(s.scalars(select(Rating)).all()) == 2


def test_next_item_arrives_in_place_with_its_text_as_text(site, page):
    campaign = site.campaign(slots=3)
    start(page, invite(site, campaign))
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    move_by_keyboard(page)
    next_item(page, 1, 3)
    assert navigations == []  # no page load: the script showed item 2 in place
    assert page.title() == "Item 2 of 3"
    assert page.inner_text("#question") == "Question number 1: what is <b>1</b> & why?"
    assert page.evaluate("document.getElementById('question').children.length") == 0  # no markup made
    for image in ("#answer-a", "#answer-b"):
        assert page.evaluate(f"document.querySelector('{image}').naturalWidth") > 0
        assert page.get_attribute(image, "src").endswith(("/reference", "/candidate"))
    assert page.evaluate("document.activeElement.id") == "slider"  # keyboard users carry on
    assert not thumb_drawn(page) and page.is_disabled("#next")


def test_a_rating_lost_on_the_way_can_be_sent_again(site, page):
    campaign = site.campaign(slots=3)
    start(page, invite(site, campaign))
    page.route("**/rating", lambda route: route.abort("connectionreset"))
    click_slider(page, 0.3)
    page.click("#next")
    page.wait_for_selector("#notice:not([hidden])")
    assert "could not be sent" in page.inner_text("#notice")
    assert page.is_enabled("#next") and page.inner_text("#progress") == "1 / 3"
    with site.sessions() as s:
        assert s.scalars(select(Rating)).all() == []
    page.unroute("**/rating")
    stalled = []
    page.route("**/rating", lambda route: stalled.append(route))  # a server that never answers
    page.evaluate("document.getElementById('rating-form').setAttribute('data-send-timeout-ms', '300')")
    page.click("#next")
    page.wait_for_function("() => document.getElementById('next').disabled === false")
    assert stalled and "could not be sent" in page.inner_text("#notice")
    page.unroute("**/rating")
    page.evaluate("document.getElementById('rating-form').removeAttribute('data-send-timeout-ms')")
    next_item(page, 1, 3)
    assert page.is_hidden("#notice")
    with site.sessions() as s:
        assert len(s.scalars(select(Rating)).all()) == 1


def test_an_item_rated_in_another_tab_is_refused_in_this_one(site, page):
    campaign = site.campaign(slots=3)
    start(page, invite(site, campaign))
    other = page.context.new_page()
    other.goto(page.url)
    other.wait_for_selector("#rating-form[data-ready]")
    move_by_keyboard(other)
    next_item(other, 1, 3)
    click_slider(page, 0.9)  # this tab still shows item 1
    page.click("#next")
    page.wait_for_selector("#notice:not([hidden])")
    assert "not the current one" in page.inner_text("#notice")
    page.click("#notice a")  # Continue
    wait_ready(page, 2, 3)
    with site.sessions() as s:
        assert len(s.scalars(select(Rating)).all()) == 1


def test_mturk_worker_inside_the_iframe_submits_to_mturk(site, page, fake_mturk):
    turk_url, ledger = fake_mturk
    site.campaign(slots=3, provider="mturk")
    with site.sessions() as s:
        hit_id = s.execute(text("SELECT provider_hit_id FROM hit")).scalar_one()

    def open_in_frame(assignment_id: str):
        external = site.url + "/mturk?" + urlencode(
            {"assignmentId": assignment_id, "hitId": hit_id, "workerId": "AWORKER1", "turkSubmitTo": turk_url})
        page.goto(f"{turk_url}/worker/frame?url={quote(external, safe='')}")
        return page.frame_locator("#external-question")

    frame = open_in_frame("ASSIGNMENT_ID_NOT_AVAILABLE")
    assert "This is a preview" in frame.locator("#preview-notice").inner_text()
    with site.sessions() as s:
        assert s.execute(text("SELECT count(*) FROM assignment")).scalar_one() == 0
    frame = open_in_frame("3ASSIGNMENTXYZ")
    frame.locator("#start").click()
    for number in range(1, 4):
        frame.locator("#progress").filter(has_text=f"{number} / 3").wait_for()
        frame.locator("#rating-form[data-ready]").wait_for()
        frame.locator("#slider").focus()
        frame.locator("#slider").press("ArrowUp")
        frame.locator("#next").click()
    frame.locator("#fake-mturk-submitted").wait_for()
    [submission] = ledger.submissions
    assert submission.assignment_id == "3ASSIGNMENTXYZ"
    assert submission.form["ratings"] == "3"
    receipt = site.app.extensions["da_platform"].tokens.read_receipt(submission.form["completion"])
    with site.sessions() as s:
        assert receipt == (s.scalars(select(Assignment.public_id)).one(), 3)
        assert s.scalars(select(Rating.score)).all() == [51, 51, 51]


def test_prolific_completion_redirects_with_the_code(site, page):
    campaign = site.campaign(slots=2, completion_code="PROLIFIC-CODE-1")
    arrived = []
    page.route("https://app.prolific.com/**", lambda route: (
        arrived.append(route.request.url),
        route.fulfill(status=200, content_type="text/html", body="<h1 id=prolific>Prolific</h1>"),
    ))
    url = study_url(site.app.extensions["da_platform"].tokens, site.url, campaign.campaign_id)
    url = url.replace("{{%PROLIFIC_PID%}}", "5f0c0ffee").replace("{{%STUDY_ID%}}", "st").replace(
        "{{%SESSION_ID%}}", "se")
    start(page, url)
    for number in (1, 2):
        click_slider(page, 0.8)
        next_item(page, number, 2)
    page.wait_for_selector("#prolific")
    target = urlsplit(arrived[-1])
    assert target.netloc == "app.prolific.com" and parse_qs(target.query) == {"cc": ["PROLIFIC-CODE-1"]}


def test_phone_sized_screen(site, browser, tmp_path):
    campaign = site.campaign(slots=2)
    context = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        start(page, invite(site, campaign))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        for selector in ("#slider", "#next", "#answer-a", "#answer-b", "#question"):
            box = page.locator(selector).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 360, selector
        slider = page.locator("#slider").bounding_box()
        assert slider["width"] > 150 and slider["height"] >= 40  # wide and tall enough to use with a thumb
        page.tap("#slider")
        assert page.is_enabled("#next")
        shot = tmp_path / "phone.png"
        page.screenshot(path=str(shot), full_page=True)
        image = Image.open(io.BytesIO(shot.read_bytes()))
        assert image.width == 720
        assert len(image.convert("RGB").getcolors(1 << 20)) > 20  # text, images and controls were drawn
    finally:
        context.close()
