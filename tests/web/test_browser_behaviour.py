"""The page's behaviour record (da_platform/static/behaviour.js, docs/quality-control.md#behaviour-record) in real
Chromium: pointer, keyboard and
touch each produce their record; a script that sets the value without events produces none."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from da_platform.db.models import BehaviourStatus, Rating, Slot
from tests import browser_steps as steps

pytestmark = pytest.mark.browser


@pytest.fixture
def site(tmp_path):
    """The app on a fresh SQLite database, served on 127.0.0.1."""
    with steps.served_site(tmp_path) as site:
        yield site


def records(site) -> list[tuple[int, BehaviourStatus, dict | None]]:
    """(position, status, record) of every stored rating, in the order given."""
    with site.sessions() as s:
        rows = s.execute(select(Slot.position, Rating.behaviour_status, Rating.behaviour)
                         .join(Slot, Rating.slot_id == Slot.id).order_by(Rating.id)).all()
    return [tuple(r) for r in rows]


def interactions(record: dict) -> tuple[int, int, int]:
    return record["pointer"], record["touch"], record["key"]


def test_pointer_and_keyboard_each_produce_their_record(site, page):
    campaign = site.campaign(slots=3)
    steps.start(page, steps.invite(site, campaign))
    steps.click_slider(page, 0.3)
    steps.next_item(page, 1, 3)
    steps.move_by_keyboard(page, presses=3)
    steps.next_item(page, 2, 3)
    steps.drag_slider(page, 0.5, 0.8)
    steps.click_slider(page, 0.2)
    steps.next_item(page, 3, 3)
    page.wait_for_selector("#done")
    stored = records(site)
    assert [(position, status) for position, status, _ in stored] == [(0, BehaviourStatus.valid)] * 1 + [
        (1, BehaviourStatus.valid), (2, BehaviourStatus.valid)]
    (_, _, clicked), (_, _, keyed), (_, _, dragged) = stored
    assert interactions(clicked) == (1, 0, 0)
    assert interactions(keyed) == (0, 0, 3)
    assert interactions(dragged) == (2, 0, 0)
    for record in (clicked, keyed, dragged):
        assert record["first_input_ms"] is not None and 0 <= record["first_input_ms"] <= record["shown_ms"]
        assert record["paste"] == record["copy"] == 0
        assert 0 <= record["hidden_ms"] <= record["shown_ms"] and 0 <= record["blur_ms"] <= record["shown_ms"]
        assert set(record) == {"v", "first_input_ms", "pointer", "touch", "key", "hidden_ms", "blur_ms", "paste",
                               "copy", "shown_ms", "images_loaded", "webdriver", "headless_ua", "software_gl"}
        assert record["images_loaded"] is True  # the page checked that the pictures were shown
        # Playwright's headless Chromium says what it is: driven, headless, WebGL in software (SwiftShader).
        assert (record["webdriver"], record["headless_ua"], record["software_gl"]) == (1, 1, 1)


def test_touch_produces_its_record(site, browser):  # noqa: F811  (the imported fixture)
    campaign = site.campaign(slots=2)
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        steps.start(page, steps.invite(site, campaign))
        box = page.locator("#slider").bounding_box()
        page.touchscreen.tap(box["x"] + 0.7 * box["width"], box["y"] + box["height"] / 2)
        assert page.is_enabled("#next")
        page.tap("#next")
        steps.wait_ready(page, 2, 2)
    finally:
        context.close()
    [(position, status, record)] = records(site)
    assert (position, status) == (0, BehaviourStatus.valid)
    assert interactions(record) == (0, 1, 0)
    assert record["first_input_ms"] is not None


SCRIPTED = """() => {
  const slider = document.getElementById('slider');
  // Synthetic events are not the person's: the browser marks them untrusted.
  slider.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
  slider.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  slider.value = '83';
  slider.dispatchEvent(new Event('input', {bubbles: true}));
}"""


@pytest.mark.parametrize("post", ["fetch", "plain form"])
def test_a_script_setting_the_value_produces_no_interactions(site, page, post):
    campaign = site.campaign(slots=2)
    steps.start(page, steps.invite(site, campaign))
    page.evaluate(SCRIPTED)
    assert page.input_value("#score") == "83" and page.is_enabled("#next")
    if post == "plain form":  # the page without fetch: the form posts and the server answers 303
        page.evaluate("document.getElementById('rating-form').removeAttribute('data-rating-url')")
    page.click("#next")
    steps.wait_ready(page, 2, 2)
    [(position, status, record)] = records(site)
    assert (position, status) == (0, BehaviourStatus.valid)
    assert interactions(record) == (0, 0, 0)
    assert record["first_input_ms"] is None
    assert record["shown_ms"] >= 0


def test_the_plain_form_post_carries_the_record(site, page):
    campaign = site.campaign(slots=2)
    steps.start(page, steps.invite(site, campaign))
    page.evaluate("document.getElementById('rating-form').removeAttribute('data-rating-url')")
    steps.move_by_keyboard(page, presses=2, key="ArrowLeft")
    page.click("#next")
    steps.wait_ready(page, 2, 2)
    [(_, status, record)] = records(site)
    assert status == BehaviourStatus.valid and interactions(record) == (0, 0, 2)


def test_copy_and_paste_are_counted(site, page):
    campaign = site.campaign(slots=2)
    steps.start(page, steps.invite(site, campaign))
    page.evaluate("""() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById('question'));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    }""")
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    page.keyboard.press("Control+v")
    steps.move_by_keyboard(page)
    page.click("#next")
    steps.wait_ready(page, 2, 2)
    [(_, status, record)] = records(site)
    assert status == BehaviourStatus.valid
    assert (record["copy"], record["paste"]) == (1, 2) and interactions(record) == (0, 0, 1)
