"""Attack suite, the worker's page in Chromium: an item whose pictures did not load cannot be rated.

The slot page took a rating for an item whose answer images had both failed (``naturalWidth`` 0): its
script treated an image error like a load, a click enabled Next and the rating was stored and counted.
Now the page says the pictures could not be loaded, offers a reload and keeps Next disabled, and the
behaviour record of a rating says the pictures were shown (``images_loaded``: true), so the server
can tell; a record saying otherwise is not what the page sends and is stored as invalid. Image
requests are made to fail with Playwright routing. SQLite (the page is the same on both databases).
"""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from da_platform.db.models import BehaviourStatus, Rating
from da_platform.rating.behaviour_record import parse_behaviour
from tests import browser_steps as steps

IMAGES = "**/image/**"
NOTICE = "#notice:not([hidden])"


@pytest.fixture
def site(tmp_path):
    with steps.served_site(tmp_path) as site:
        yield site


def stored(site) -> list[tuple[BehaviourStatus, dict | None]]:
    with site.sessions() as s:
        return [tuple(r) for r in s.execute(select(Rating.behaviour_status, Rating.behaviour).order_by(Rating.id))]


def try_to_rate(page) -> None:
    """Everything a worker (or an impatient click) can do to rate the item shown."""
    steps.click_slider(page, 0.7)
    steps.move_by_keyboard(page, presses=2)
    page.click("#next", force=True)  # a click on the disabled button
    page.evaluate("document.getElementById('rating-form').requestSubmit()")
    page.wait_for_timeout(300)


@pytest.mark.slow
@pytest.mark.parametrize("failure", ["aborted", "not an image"])
def test_an_item_whose_pictures_failed_takes_no_rating_until_reloaded(site, page, failure):
    campaign = site.campaign(slots=3)
    if failure == "aborted":
        page.route(IMAGES, lambda route: route.abort())
    else:  # a 200 answer the browser cannot draw: no pixels
        page.route(IMAGES, lambda route: route.fulfill(status=200, content_type="image/png", body=b"not a png"))
    steps.start(page, steps.invite(site, campaign))
    try_to_rate(page)
    assert stored(site) == [] and page.is_disabled("#next")
    assert page.get_attribute("#rating-form", "data-images") == "failed"
    notice = page.locator(NOTICE)
    assert "could not be loaded" in notice.inner_text() and notice.locator("a#notice-link").count() == 1
    page.unroute(IMAGES)
    page.click("#notice-link")  # the reload: the same item, its pictures asked for again
    steps.wait_ready(page, 1, 3)
    assert page.get_attribute("#rating-form", "data-images") == "ok" and page.locator(NOTICE).count() == 0
    steps.click_slider(page, 0.7)
    steps.next_item(page, 1, 3)
    [(status, record)] = stored(site)
    assert status is BehaviourStatus.valid and record["images_loaded"] is True


@pytest.mark.slow
def test_the_next_item_whose_pictures_fail_takes_no_rating(site, page):
    """The first item is fine; the pictures of the second (shown in place by the script) fail."""
    campaign = site.campaign(slots=3)
    steps.start(page, steps.invite(site, campaign))
    page.route(IMAGES, lambda route: route.abort())
    steps.click_slider(page, 0.4)
    steps.next_item(page, 1, 3)
    try_to_rate(page)
    assert len(stored(site)) == 1 and page.is_disabled("#next")
    assert page.get_attribute("#rating-form", "data-images") == "failed"
    assert page.locator(NOTICE).count() == 1
    page.unroute(IMAGES)
    page.click("#notice-link")
    steps.wait_ready(page, 2, 3)
    steps.click_slider(page, 0.6)
    steps.next_item(page, 2, 3)
    assert [record["images_loaded"] for _, record in stored(site)] == [True, True]


RECORD = {"v": 1, "slot": "s1", "first_input_ms": 400, "pointer": 1, "touch": 0, "key": 0, "hidden_ms": 0,
          "blur_ms": 0, "paste": 0, "copy": 0, "shown_ms": 2500}


@pytest.mark.parametrize("value, status", [(True, BehaviourStatus.valid), (False, BehaviourStatus.invalid),
                                           (1, BehaviourStatus.invalid), ("yes", BehaviourStatus.invalid)])
def test_the_record_says_whether_the_pictures_were_shown(value, status):
    assert parse_behaviour(json.dumps({**RECORD, "images_loaded": value}), "s1")[0] is status
    kept = {name: value for name, value in RECORD.items() if name != "slot"}
    assert parse_behaviour(json.dumps(RECORD), "s1") == (BehaviourStatus.valid, kept)  # older pages: still valid
    assert parse_behaviour(json.dumps({**RECORD, "images_loaded": True}), "s1")[1] == {**kept, "images_loaded": True}
