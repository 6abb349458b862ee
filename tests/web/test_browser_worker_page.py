"""The worker's screen in Chromium: image sharpness and size, long answers, Chinese pages, practice.

Campaigns are built by the real builder (real answer images) from the showcase test set
(da_platform/simulation/showcase.py) and served on 127.0.0.1.
"""
from __future__ import annotations

import io

import pytest
from PIL import Image
from sqlalchemy import func, select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.db import models
from da_platform.db.models import Answer, Assignment, CampaignStatus, Question, Rating, Reference, System
from da_platform.rating.language import SHIPPED, _read_po
from da_platform.simulation.showcase import make_showcase
from hit_builder.worker_settings import WorkerPageOptions
from tests.browser_steps import invite, move_by_keyboard, served_site, start

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def site(tmp_path):
    with served_site(tmp_path) as site:
        yield site


def build(site, test_set_maker, *, name: str, lang: str = "en", **options) -> int:
    """Build a campaign of the test set ``test_set_maker(session)`` makes; running; returns its id."""
    with site.sessions() as session:
        test_set = test_set_maker(session)
        campaign = build_campaign(session,
                                  BuildSpec(name=name, test_set=test_set, seed=3,
                                            worker=WorkerPageOptions(lang=lang, **options)),
                                  storage=site.storage, processes=1)
        campaign.status = CampaignStatus.running
        session.commit()
        return campaign.id


def new_page(browser, viewport: dict, scale: float = 1):
    context = browser.new_context(viewport=viewport, device_scale_factor=scale)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def capitals_only(session):
    """Answers in capitals without descenders (E F H I L T): their ink height is the cap height."""
    words = ["HI", "THE", "FILE", "LIFE", "TILE", "FELT", "LEFT", "HILT", "THEFT", "ELITE"]
    test_set = models.TestSet(name="caps")
    session.add(test_set)
    systems = [System(name=f"s{k}") for k in range(7)]
    test_set.systems.extend(systems)
    for i in range(10):
        question = Question(external_id=f"q{i}", text=f"Question {i}: which words?")
        question.references.append(Reference(position=0, text=" ".join(words[(i + j) % 10] for j in range(6))))
        test_set.questions.append(question)
        for k, system in enumerate(systems):
            system.answers.append(Answer(question=question, text=" ".join(words[(i * k + j) % 10] for j in range(5))))
    session.flush()
    return test_set


MEASURE = """() => {
  const img = document.getElementById('answer-b'), body = document.getElementById('question');
  const style = getComputedStyle(body);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return {bodyCap: context.measureText('H').actualBoundingBoxAscent, src: img.currentSrc,
          width: img.getBoundingClientRect().width, dpr: window.devicePixelRatio};
}"""


def first_line_ink_rows(png: bytes) -> int:
    """Height in pixels of the first line of text in an answer image (consecutive rows with ink)."""
    image = Image.open(io.BytesIO(png)).convert("L")
    width, height = image.size
    pixels = image.load()
    inked = [any(pixels[x, y] < 128 for x in range(width)) for y in range(height)]
    top = inked.index(True)
    bottom = top
    while bottom < height and inked[bottom]:
        bottom += 1
    return bottom - top


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_answer_text_on_a_phone_is_not_smaller_than_the_body_text(site, browser, scale):
    campaign = build(site, capitals_only, name="caps")
    context, page = new_page(browser, PHONE, scale)
    try:
        start(page, invite(site, campaign))
        measured = page.evaluate(MEASURE)
        png = page.request.get(measured["src"]).body()
        css_per_pixel = measured["width"] / Image.open(io.BytesIO(png)).width
        answer_cap = first_line_ink_rows(png) * css_per_pixel
        assert answer_cap >= measured["bodyCap"] > 0, (answer_cap, measured)
        # nothing sticks out sideways on the phone
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()


SHOWN = "i => [i.currentSrc, i.getBoundingClientRect().width]"


@pytest.mark.parametrize("scale", [1, 2])
def test_images_are_2x_and_shown_at_half_their_pixels(site, browser, scale):
    """A 2x screen draws one image pixel per device pixel; a 1x screen shows the same image at the
    same CSS size (the instructions' example Answer A is not held by a grid column)."""
    campaign = build(site, capitals_only, name=f"caps{scale}")
    context, page = new_page(browser, DESKTOP, scale)
    try:
        page.goto(invite(site, campaign))
        for locator in (page.locator("#example figure.reference img"), page.locator("#example-good")):
            src, css_width = locator.evaluate(SHOWN)
            assert Image.open(io.BytesIO(page.request.get(src).body())).width == round(css_width * 2)
        page.click("#start")
        page.wait_for_selector("#rating-form[data-ready='1']")
        for image_id in ("#answer-a", "#answer-b"):
            src, css_width = page.locator(image_id).evaluate(SHOWN)
            assert Image.open(io.BytesIO(page.request.get(src).body())).width == round(css_width * 2)
        assert page.evaluate("document.getElementById('answer-b').currentSrc") == page.evaluate(
            "document.getElementById('answer-b').src")
    finally:
        context.close()


PROGRESS = "expected => document.getElementById('progress').textContent.trim() === expected"
IN_VIEW = """() => {
  const box = document.getElementById('slider').getBoundingClientRect();
  const next = document.getElementById('next').getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight && next.top >= 0 && next.bottom <= window.innerHeight;
}"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_with_a_long_answer_slider_and_next_stay_in_view(site, browser, viewport):
    campaign = build(site, lambda s: make_showcase(s, name="long", long=True), name="long")
    context, page = new_page(browser, viewport, 2)
    try:
        start(page, invite(site, campaign))
        # A phone stacks the answers: the page is far taller than the screen. Wide screens show them
        # side by side (the page may still scroll, less).
        if viewport is PHONE:
            assert page.evaluate("document.documentElement.scrollHeight > 1.5 * window.innerHeight")
        assert page.evaluate(IN_VIEW)
        page.evaluate("document.getElementById('answer-b').scrollIntoView({block: 'end'})")
        if viewport is PHONE:
            assert page.evaluate("window.scrollY > 0")
        assert page.evaluate(IN_VIEW)
        # at the very end, the end of Answer B is above the rating bar, not under it
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        assert page.evaluate(IN_VIEW)
        assert page.evaluate("""() => document.getElementById('answer-b').getBoundingClientRect().bottom
                                      <= document.getElementById('rating-form').getBoundingClientRect().top + 1""")
        move_by_keyboard(page, 3)
        page.click("#next")
        page.wait_for_function(PROGRESS, arg="2 / 100")
        assert page.evaluate(IN_VIEW)
    finally:
        context.close()


def chinese_catalogue() -> dict[str, str]:
    return {m: s for m, s, _ in _read_po(SHIPPED["zh-Hans"])}


def english_left(page, catalogue: dict[str, str]) -> list[str]:
    """Messages whose English text is on the page (the HTML, title and attributes included)."""
    html = page.content()
    return [m for m, s in catalogue.items() if s != m and m in html]


def test_chinese_pages_are_chinese_through_and_through(site, browser):
    campaign = build(site, lambda s: make_showcase(s, name="zh", lang="zh-Hans"), name="zh", lang="zh-Hans",
                     practice=True, show_context=True, contact="help@example.org", pay="15 元", minutes=20)
    catalogue = chinese_catalogue()
    context, page = new_page(browser, DESKTOP, 1)
    try:
        page.goto(invite(site, campaign))
        assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["zh-Hans", "ltr"]
        assert english_left(page, catalogue) == []
        assert "答案B与答案A一样恰当地回答了问题。" in page.inner_text("#instructions-statement")
        assert "help@example.org" in page.inner_text("#contact") and "20" in page.inner_text("#expected-time")
        page.click("#practice")
        page.wait_for_selector("#rating-form[data-ready='1']")
        assert page.evaluate("document.documentElement.lang") == "zh-Hans"
        assert english_left(page, catalogue) == []
        page.goto(page.url.split("/practice/")[0] + "/")
        page.click("#start")
        page.wait_for_selector("#rating-form[data-ready='1']")
        assert english_left(page, catalogue) == []
        assert page.inner_text("#statement") == "答案B与答案A一样恰当地回答了问题。"
        assert not page.is_visible("#context-text")  # collapsed until opened
        page.click("#context summary")
        assert page.is_visible("#context-text")
        move_by_keyboard(page, 2)
        page.click("#next")  # the next item arrives as JSON: still Chinese
        page.wait_for_function(PROGRESS, arg="2 / 100")
        page.wait_for_selector("#rating-form[data-ready='1']")
        assert english_left(page, catalogue) == []
        assert page.title() == "第 2 个，共 100 个"
        assert not page.is_visible("#context-text")  # collapsed again for the new item
    finally:
        context.close()


def test_practice_items_create_no_rating(site, browser):
    campaign = build(site, lambda s: make_showcase(s, name="practice"), name="practice", practice=True)
    context, page = new_page(browser, DESKTOP, 1)
    try:
        page.goto(invite(site, campaign))
        page.click("#practice")
        for number in (1, 2):
            page.wait_for_selector("#rating-form[data-ready='1']")
            assert page.inner_text("#progress").strip() == f"{number} / 2"
            assert page.is_visible("#practice-notice")
            move_by_keyboard(page, 4)
            page.click("#next")  # a plain form post: the next practice item, then the instructions
        page.wait_for_selector("#start")
        with site.sessions() as session:
            assert session.scalar(select(func.count()).select_from(Rating)) == 0
            assignment = session.scalars(select(Assignment)).one()
            assert (assignment.next_position, assignment.current_shown_at) == (0, None)
        page.click("#start")
        page.wait_for_selector("#rating-form[data-ready='1']")
        assert page.inner_text("#progress").strip() == "1 / 100"
    finally:
        context.close()
