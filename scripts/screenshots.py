"""Screenshots of the worker pages: desktop, 2x screen and phone; English and Chinese; a long answer;
the first item with OCR-resistant images (``--render hardened``).

    python scripts/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]

Builds campaigns of the showcase test set (da_platform/simulation/showcase.py) with the real builder
into a temporary SQLite database, serves the app on 127.0.0.1 and drives Chromium through
Playwright: the instructions, a practice item, the first item and (for the long answers, where the
page scrolls) the end of the page. Nothing leaves the machine; rerunning gives the same pictures for
the same fonts.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCREENS = {  # name: (viewport, device scale factor)
    "desktop": ({"width": 1280, "height": 900}, 1),
    "2x": ({"width": 1280, "height": 900}, 2),
    "phone": ({"width": 390, "height": 844}, 2),
}


def build(sessions, storage, *, name: str, lang: str, long: bool, render: str = "plain") -> int:
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice
    from da_platform.db.models import CampaignStatus
    from da_platform.simulation.showcase import make_showcase
    from hit_builder.ocr_resistant import render_style
    from hit_builder.worker_settings import WorkerPageOptions

    chinese = lang == "zh-Hans"
    options = WorkerPageOptions(
        lang=lang, practice=True, show_context=True, minutes=20, pay="15 元" if chinese else "3.00 GBP",
        contact="research-team@example.org",
        instructions=("本任务用于评估自动问答系统。**请仔细阅读每个答案。**" if chinese else
                      "This task evaluates automatic question-answering systems. **Read every answer carefully.**"))
    with sessions() as session:
        test_set = make_showcase(session, name=name, lang=lang, long=long)
        campaign = build_campaign(session,
                                  BuildSpec(name=name, test_set=test_set, seed=7, passes=len(SCREENS), worker=options,
                                            id_salt="screenshots", crowd=CrowdChoice(render=render_style(render))),
                                  storage=storage, processes=1)
        campaign.status = CampaignStatus.running
        session.commit()
        return campaign.id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="folder for the PNG files")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from da_platform.db.engine import upgrade
    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.simulation.background import serve_in_background
    from da_platform.web import create_app
    from hit_builder.storage import LocalImageStorage

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="da-screenshots-") as folder:
        url = f"sqlite:///{folder}/shots.sqlite"
        upgrade(url)
        app = create_app({"SECRET_KEY": "screenshots", "DATABASE_URL": url, "IMAGE_FOLDER": f"{folder}/images",
                          "PUBLIC_URL": "http://127.0.0.1"})
        storage = LocalImageStorage(f"{folder}/images")
        campaigns = {(lang, long, render): build(app.config["SESSIONS"], storage, name=f"{lang}-{long}-{render}",
                                                 lang=lang, long=long, render=render)
                     for lang, long, render in (("en", False, "plain"), ("zh-Hans", False, "plain"),
                                                ("en", True, "plain"), ("zh-Hans", True, "plain"),
                                                ("en", False, "hardened"), ("zh-Hans", False, "hardened"))}
        tokens = app.extensions["da_platform"].tokens
        with serve_in_background(app) as base, sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=args.chromium,
                                                  args=["--no-sandbox", "--disable-gpu"])
            for (lang, long, render), campaign_id in campaigns.items():
                tag = ("zh" if lang == "zh-Hans" else "en") + ("-long" if long else "")
                hardened = render == "hardened"
                for screen, (viewport, scale) in SCREENS.items():
                    if (long and screen == "2x") or (hardened and screen == "desktop"):
                        continue
                    context = chromium.new_context(viewport=viewport, device_scale_factor=scale)
                    page = context.new_page()
                    page.goto(mint_invites(tokens, base, campaign_id, 1, 1)[0])
                    if not long and not hardened and screen != "2x":  # otherwise the item is what matters
                        page.screenshot(path=str(args.out / f"{tag}-{screen}-instructions.png"), full_page=True)
                        page.click("#practice")
                        page.wait_for_selector("#rating-form[data-ready='1']")
                        page.screenshot(path=str(args.out / f"{tag}-{screen}-practice.png"))
                        page.goto(page.url.split("/practice/")[0] + "/")
                    page.click("#start")
                    page.wait_for_selector("#rating-form[data-ready='1']")
                    page.focus("#slider")
                    page.keyboard.press("ArrowRight")
                    page.screenshot(path=str(args.out / f"{tag}-{screen}-item{'-hardened' if hardened else ''}.png"))
                    if long and page.evaluate("document.documentElement.scrollHeight > window.innerHeight"):
                        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
                        page.screenshot(path=str(args.out / f"{tag}-{screen}-item-end.png"))
                    context.close()
            chromium.close()
    for path in sorted(args.out.glob("*.png")):
        shrink(path)
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def shrink(path: Path) -> None:
    """256 colours are plenty for a page of text: about a third of the bytes in the repository."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


if __name__ == "__main__":
    main()
