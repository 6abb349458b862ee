"""Benchmark: what the answer images ask of a reader, plain vs OCR-resistant (``--render hardened``).

No people were measured: these are the properties of the images and of the worker page that reading
research ties to reading speed, measured here.

* **Size as the worker sees it.** A real worker page (the showcase campaign, served on 127.0.0.1) is
  opened in Chromium at a 390 px phone viewport at device pixel ratio 1 and 2 and at a 1280 px
  desktop; the answer image is swapped for each test image and its box is read back, so the glyph
  sizes below are in the CSS pixels the page really shows (x-height and cap height for English, the
  ideograph height for Chinese; min / median / max over the glyphs) and in degrees of visual angle
  (the CSS reference pixel is 0.0213°; reading slows below a critical print size of about 0.2°
  x-height, Legge & Bigelow 2011).
* **Contrast**: the WCAG ratio of the text's grey against the darkest background pixel of the image,
  and, on the pixels Chromium shows, the 5th percentile over the glyphs of each glyph's darkest
  pixel against white (thin strokes shown at 1x lose contrast).
* **Distortion** (from the layout the renderer used, :func:`distortion`): how far neighbouring
  letters leave the line they lean along and how differently they turn (what breaks a word's
  shape), how much whole words tilt, the share of words drawn in more than one font, and the lines
  and height of the image.
* **Legibility proxy**: Tesseract's character error rate on the pixels the phone shows at 1x: for
  the plain image this is a clean text at the displayed size (can a reader that copes with no
  distortion read it?); for the hardened one it is what its distortions cost a machine reader at
  that size.

Texts: the first English and Chinese answers of the bundled sample, and 400-character ones made of
consecutive sample answers.

    python benchmarks/render_legibility.py [--former] [--variant 'name={"max_rotation": 8}'] [--save DIR] [--no-ocr]
"""
from __future__ import annotations

import argparse
import io
import math
import statistics
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from benchmarks.ocr_resistance import hardened_style, sample_texts
from hit_builder.fonts import FontChain
from hit_builder.ocr_resistant import HardenedStyle, Layout, compose, contrast_ratio, glyph_height
from hit_builder.render import Renderer, RenderStyle, Role

REFERENCE_PIXEL_DEGREES = 0.0213  # CSS 2.1: the visual angle of one reference pixel
VIEWPORTS = {  # name: (viewport, device pixel ratio)
    "phone 1x": ({"width": 390, "height": 844}, 1),
    "phone 2x": ({"width": 390, "height": 844}, 2),
    "desktop": ({"width": 1280, "height": 900}, 1),
}
LONG = 400
# The distortions of the hardened images before they were set on a wave (``--former``).
FORMER = {"font_change": "character", "size_jitter": 7, "max_rotation": 16.0, "baseline_jitter": 6,
          "wave_amplitude": 5.0, "wave_period": (90, 160), "wave_follow": False, "decoy_clearance": -1}


def long_text(texts: list[str], chinese: bool) -> str:
    """About ``LONG`` characters of consecutive sample answers (cut at a word in English)."""
    joined = ("" if chinese else " ").join(texts)
    if chinese:
        return joined[:LONG]
    return joined[:LONG + 1].rsplit(" ", 1)[0]


def test_texts() -> dict[str, str]:
    texts = sample_texts(40)
    return {"English": texts["English"][0], "English 400": long_text(texts["English"], False),
            "Chinese": texts["Chinese"][0], "Chinese 400": long_text(texts["Chinese"], True)}


@dataclass
class Shown:
    """One image as the page showed it at one viewport."""

    css_per_pixel: float  # CSS px of the page per image pixel
    css_height: float
    screenshot: bytes  # the element's device pixels


def _answer_with(current: list[bytes]):
    """A route handler that answers with the last image of ``current``."""
    return lambda route: route.fulfill(status=200, content_type="image/png", body=current[-1])


def show(images: dict[str, bytes], chromium: str) -> dict[tuple[str, str], Shown]:
    """Each image put into a real worker page in Chromium at each viewport: its box and pixels."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.db.engine import upgrade
    from da_platform.db.models import CampaignStatus
    from da_platform.providers.pool.arrival import mint_invites
    from da_platform.simulation.background import serve_in_background
    from da_platform.simulation.showcase import make_showcase
    from da_platform.web import create_app
    from hit_builder.storage import LocalImageStorage

    found: dict[tuple[str, str], Shown] = {}
    with tempfile.TemporaryDirectory(prefix="da-legibility-") as folder:
        url = f"sqlite:///{folder}/page.sqlite"
        upgrade(url)
        app = create_app({"SECRET_KEY": "legibility", "DATABASE_URL": url, "IMAGE_FOLDER": f"{folder}/images",
                          "PUBLIC_URL": "http://127.0.0.1"})
        with app.config["SESSIONS"]() as session:
            spec = BuildSpec(name="page", test_set=make_showcase(session, name="page"), passes=len(VIEWPORTS),
                             id_salt="legibility")
            campaign = build_campaign(session, spec, storage=LocalImageStorage(f"{folder}/images"), processes=1)
            campaign.status = CampaignStatus.running
            session.commit()
            campaign_id = campaign.id
        tokens = app.extensions["da_platform"].tokens
        with serve_in_background(app) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            for screen, (viewport, ratio) in VIEWPORTS.items():
                context = browser.new_context(viewport={"width": viewport["width"], "height": viewport["height"]},
                                              device_scale_factor=ratio)
                page = context.new_page()
                page.goto(mint_invites(tokens, base, campaign_id, 1, 1)[0])
                page.click("#start")
                page.wait_for_selector("#rating-form[data-ready='1']")
                # The page's Content-Security-Policy admits its own images only: the image request is
                # answered with the test image instead.
                current: list[bytes] = []
                page.route("**/candidate?legibility=*", _answer_with(current))
                for number, (name, png) in enumerate(images.items()):
                    current.append(png)
                    box = page.evaluate(
                        """async (number) => {
                            const img = document.getElementById('answer-b');
                            const [url, density] = img.getAttribute('srcset').split(' ');
                            const source = url.split('?')[0] + '?legibility=' + number;
                            const loaded = new Promise((ok, fail) => { img.onload = ok; img.onerror = fail; });
                            img.srcset = source + ' ' + density; img.src = source;
                            await loaded;
                            const r = img.getBoundingClientRect();
                            return {width: r.width, height: r.height};
                        }""", number)
                    shot = page.locator("#answer-b").screenshot()
                    with Image.open(io.BytesIO(png)) as image:
                        pixels = image.width
                    found[name, screen] = Shown(box["width"] / pixels, box["height"], shot)
                context.close()
            browser.close()
    return found


def _probe(character: str) -> str | None:
    if unicodedata.east_asian_width(character) in ("W", "F") and character.isalpha():
        return "国"
    return "x" if character.isalpha() and character.islower() else None


def glyph_sizes(layout: Layout) -> dict[str, list[float]]:
    """Image-pixel x-height, cap height and ideograph height of every letter the layout draws."""
    sizes: dict[str, list[float]] = {"x-height": [], "cap height": [], "ideograph": []}
    for glyph in layout.glyphs:
        probe = _probe(glyph.character)
        if probe == "国":
            sizes["ideograph"].append(glyph_height(glyph.font, "国") * glyph.size / 1000)
        elif probe == "x":
            sizes["x-height"].append(glyph_height(glyph.font, "x") * glyph.size / 1000)
            sizes["cap height"].append(glyph_height(glyph.font, "H") * glyph.size / 1000)
    return {name: values for name, values in sizes.items() if values}


def distortion(layout: Layout, x_height: float, cjk: bool) -> dict[str, float]:
    """How much the layout bends words (English words; runs of three characters in Chinese).

    * neighbour misalignment: how far a letter sits off the line its neighbour and it lean along
      (the baseline step between them minus what their mean turn explains), in x-heights or
      ideograph heights: 0 for text set along any smooth curve, large when letters jump about;
    * neighbour turn: how differently two neighbouring letters are turned;
    * word tilt: the angle of a straight line fitted through a word's baseline points;
    * the share of words drawn in more than one font.
    """
    import numpy

    groups: dict[tuple[int, int], list] = {}
    for glyph in layout.glyphs:
        groups.setdefault((glyph.word // 3 if cjk else glyph.word, glyph.line), []).append(glyph)
    tilts, turns, steps, mixed, words = [], [], [], 0, 0
    for group in groups.values():
        if len(group) < 2:
            continue
        words += 1
        mixed += len({g.font for g in group}) > 1
        middles = numpy.array([g.x + g.advance / 2 for g in group])
        baselines = numpy.array([g.y for g in group])
        tilts.append(abs(math.degrees(math.atan(-numpy.polyfit(middles, baselines, 1)[0]))))
        for left, right in zip(group, group[1:]):
            lean = math.tan(math.radians((left.angle + right.angle) / 2))
            run = (right.x + right.advance / 2) - (left.x + left.advance / 2)
            steps.append(abs(right.y - left.y + lean * run) / x_height)
            turns.append(abs(right.angle - left.angle))
    return {"misalignment median": statistics.median(steps), "misalignment p95": float(numpy.percentile(steps, 95)),
            "turn median": statistics.median(turns), "turn p95": float(numpy.percentile(turns, 95)),
            "word tilt median": statistics.median(tilts), "word tilt max": max(tilts),
            "mixed-font words": mixed / words}


def displayed_contrast(png: bytes, least_area: int) -> float:
    """5th percentile over the glyphs (dark connected blobs of at least ``least_area`` pixels) of
    each one's darkest shown pixel against white, as a WCAG contrast ratio."""
    import numpy
    from PIL import Image
    from scipy import ndimage

    with Image.open(io.BytesIO(png)) as image:
        grey = numpy.asarray(image.convert("L"), dtype=numpy.int32)
    labels, count = ndimage.label(grey < 0xC0)
    blobs = range(1, count + 1)
    areas = numpy.asarray(ndimage.sum_labels(numpy.ones_like(grey), labels, blobs))
    darkest = numpy.asarray(ndimage.minimum(grey, labels, blobs))[areas >= least_area]
    return contrast_ratio(int(numpy.percentile(darkest, 95)), 255) if len(darkest) else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=JSON",
                        help="also measure a hardened style with these fields changed (JSON; lists for pairs)")
    parser.add_argument("--former", action="store_true", help="also measure the former hardened distortions")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    parser.add_argument("--no-ocr", action="store_true", help="skip the Tesseract proxy")
    parser.add_argument("--save", type=Path, help="folder to write what the page showed (PNG per image and screen)")
    args = parser.parse_args()
    chain = FontChain.load(None)
    plain_style = RenderStyle()
    styles: dict[str, RenderStyle] = {"plain": plain_style, "hardened": HardenedStyle()}
    if args.former:
        styles["former"] = HardenedStyle(**FORMER)  # type: ignore[arg-type]
    for variant in args.variant:
        name, _, fields = variant.partition("=")
        styles[name] = hardened_style(fields)
    plain = Renderer(chain, plain_style)
    own = chain.faces[0].spec
    images: dict[str, bytes] = {}
    facts: dict[str, dict] = {}
    for text_name, text in test_texts().items():
        for style_name, style in styles.items():
            renderer = Renderer(chain, style)
            name = f"{text_name} {style_name}"
            images[name] = renderer.render(text, Role.candidate)
            if style_name == "plain":
                lines = len(plain.wrap(text))
                chinese = text_name.startswith("Chinese")
                sizes = {"ideograph": [glyph_height(own, "国") * style.font_size / 1000]} if chinese else {
                    "x-height": [glyph_height(own, "x") * style.font_size / 1000],
                    "cap height": [glyph_height(own, "H") * style.font_size / 1000]}
                facts[name] = {"sizes": sizes, "lines": lines, "distortion": None,
                               "contrast": {role.value: contrast_ratio(style.grey(role), 255) for role in Role}}
                continue
            contrast = {}
            for role in Role:
                background, ink, layout = compose(renderer, text, role)
                import numpy

                back = numpy.asarray(background)[numpy.asarray(ink) == 0]
                contrast[role.value] = contrast_ratio(style.grey(role), int(back.min()))
            sizes = glyph_sizes(layout)
            x_height = glyph_height(own, "国" if "ideograph" in sizes else "x") * style.font_size / 1000
            facts[name] = {"sizes": sizes, "lines": layout.lines,
                           "distortion": distortion(layout, x_height, "ideograph" in sizes),
                           "contrast": contrast}
    shown = show(images, args.chromium)
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        for (name, screen), seen in shown.items():
            (args.save / f"{name} {screen}.png".replace(" ", "-")).write_bytes(seen.screenshot)
    reader = None
    if not args.no_ocr:
        from da_platform.simulation.ocr import TesseractReader, character_error_rate

        reader = TesseractReader()
    texts = test_texts()
    print("| image | lines | CSS px tall (phone) | size, CSS px (phone; min/median/max) | ° visual angle (median)"
          " | WCAG contrast (candidate / reference) | lightest strokes shown, phone 1x / 2x"
          " | neighbour misalignment, x-heights (median / 95 %) | neighbour turn (median / 95 %)"
          " | word tilt (median / max) | mixed-font words | Tesseract CER, phone 1x |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, fact in facts.items():
        phone = shown[name, "phone 1x"]
        measure = "ideograph" if "ideograph" in fact["sizes"] else "x-height"
        values = [v * phone.css_per_pixel for v in fact["sizes"][measure]]
        size = f"{measure} {min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"
        if measure == "x-height":
            caps = [v * phone.css_per_pixel for v in fact["sizes"]["cap height"]]
            size += f"; cap {statistics.median(caps):.1f}"
        angle = statistics.median(values) * REFERENCE_PIXEL_DEGREES
        shown_contrast = " / ".join(f"{displayed_contrast(shown[name, s].screenshot, 4 * ratio * ratio):.1f}"
                                    for s, ratio in (("phone 1x", 1), ("phone 2x", 2)))
        d = fact["distortion"]
        bent = ("0 / 0", "0° / 0°", "0° / 0°", "0 %") if d is None else (
            f"{d['misalignment median']:.2f} / {d['misalignment p95']:.2f}",
            f"{d['turn median']:.1f}° / {d['turn p95']:.1f}°",
            f"{d['word tilt median']:.1f}° / {d['word tilt max']:.1f}°", f"{d['mixed-font words']:.0%}")
        cer = "—"
        if reader is not None:
            text = texts[name.rsplit(" ", 1)[0]]
            cer = f"{character_error_rate(text, reader.read(phone.screenshot)):.3f}"
        print(f"| {name} | {fact['lines']} | {phone.css_height:.0f} | {size} | {angle:.2f}° | "
              f"{fact['contrast']['candidate']:.1f} / {fact['contrast']['reference']:.1f} | {shown_contrast} | "
              f"{bent[0]} | {bent[1]} | {bent[2]} | {bent[3]} | {cer} |")
    factors = {screen: shown[next(iter(images)), screen].css_per_pixel for screen in VIEWPORTS}
    print("\nCSS px per image pixel: " + ", ".join(f"{screen} {f:.3f}" for screen, f in factors.items()))


if __name__ == "__main__":
    main()
