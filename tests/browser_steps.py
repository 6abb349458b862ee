"""Steps of the worker's page in Chromium (Playwright), shared by the browser tests.

The ``browser`` and ``page`` fixtures are in ``tests/conftest.py``; these are plain functions over a
Playwright page and a served app (``site``: a :class:`tests.web_factories.WebEnv` with its ``url``).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from da_platform.db.engine import upgrade
from da_platform.providers.pool.arrival import mint_invites
from tests.fakes.server import serve_wsgi
from tests.web_factories import WebEnv, make_web_env


@contextmanager
def served_site(tmp_path: Path, name: str = "web", **config) -> Iterator[WebEnv]:
    """The app on a fresh SQLite database ``tmp_path/<name>.sqlite``, served on 127.0.0.1 (``env.url``)."""
    database_url = f"sqlite:///{tmp_path / f'{name}.sqlite'}"
    upgrade(database_url)
    env = make_web_env(database_url, tmp_path, **config)
    with serve_wsgi(env.app) as url:
        env.url = url
        yield env


def invite(site, campaign) -> str:
    """A fresh invite link to ``campaign`` (a :class:`WebCampaign` or a campaign id) on the served app."""
    campaign_id = getattr(campaign, "campaign_id", campaign)
    return mint_invites(site.app.extensions["da_platform"].tokens, site.url, campaign_id, 1, 1)[0]


def start(page, link: str) -> None:
    """Open the invite link, start, and wait until the first item's script is listening."""
    page.goto(link)
    page.click("#start")
    page.wait_for_selector("#rating-form[data-ready='1']")


def move_by_keyboard(page, presses: int = 1, key: str = "ArrowRight") -> None:
    page.focus("#slider")
    for _ in range(presses):
        page.keyboard.press(key)


def click_slider(page, fraction: float) -> None:
    box = page.locator("#slider").bounding_box()
    page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)


def drag_slider(page, start_fraction: float, end_fraction: float) -> None:
    box = page.locator("#slider").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + start_fraction * box["width"], y)
    page.mouse.down()
    page.mouse.move(box["x"] + end_fraction * box["width"], y, steps=4)
    page.mouse.up()


READY = """expected => {
  const progress = document.getElementById('progress'), form = document.getElementById('rating-form');
  return progress !== null && progress.textContent.trim() === expected && form.dataset.ready === '1';
}"""


def wait_ready(page, number: int, total: int) -> None:
    """Wait until item ``number`` is displayed and its script is listening."""
    page.wait_for_function(READY, arg=f"{number} / {total}")


def next_item(page, number: int, total: int) -> None:
    page.click("#next")
    if number < total:
        wait_ready(page, number + 1, total)
