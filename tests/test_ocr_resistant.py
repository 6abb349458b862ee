"""OCR-resistant answer images (hit_builder.ocr_resistant) and the OCR readers that attack them."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from da_core.errors import BuildError
from da_platform.ocr import (
    TesseractReader,
    character_error_rate,
    levenshtein,
    normalise,
)
from hit_builder.fonts import FontChain
from hit_builder.ocr_resistant import (
    HardenedStyle,
    compose,
    contrast_ratio,
    render_style,
)
from hit_builder.render import GREY_LEVELS, Renderer, RenderStyle, Role

ENGLISH = "Yes. Timing matters: keep the oven door closed until the end. The key technique is to preheat the pan."
CHINESE = "绿峰复合肥最适合吊兰。要经常检查叶片上有没有红蜘蛛。吊兰最适合放在早上几个小时的直射阳光下。"


@pytest.fixture(scope="module")
def chain() -> FontChain:
    return FontChain.load(None)


@pytest.fixture(scope="module")
def hardened(chain: FontChain) -> Renderer:
    return Renderer(chain, HardenedStyle())


def pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("L"))


def test_wcag_contrast_ratio_matches_published_values() -> None:
    assert contrast_ratio(0, 255) == pytest.approx(21.0)
    assert contrast_ratio(0x76, 0xFF) == pytest.approx(4.54, abs=0.01)  # the usual "lightest AA grey on white"
    assert contrast_ratio(0x66, 0xFF) == pytest.approx(5.74, abs=0.01)


def test_text_keeps_aa_contrast_against_every_background_pixel(hardened: Renderer) -> None:
    style = HardenedStyle()
    for role in Role:
        background, ink, _ = compose(hardened, ENGLISH + CHINESE, role)
        behind = np.asarray(background)[np.asarray(ink) == 0]  # every pixel the text does not touch
        assert 255 > behind.min() >= style.texture_darkest  # there is a texture, never darker than that
        text_grey = round(style.grey(role) * (GREY_LEVELS - 1) / 255) * 17  # as the 16-level PNG stores it
        darkest = pixels(hardened.render(ENGLISH + CHINESE, role))[np.asarray(ink) == 0].min()
        assert contrast_ratio(text_grey, darkest) >= 4.5


def test_text_is_no_smaller_than_the_plain_images(chain: FontChain, hardened: Renderer) -> None:
    plain = Renderer(chain, RenderStyle())
    assert HardenedStyle().font_size >= RenderStyle().font_size
    for text in (ENGLISH, CHINESE):
        plain_image = pixels(plain.render(text, Role.candidate))
        hard_image = pixels(hardened.render(text, Role.candidate))
        assert hard_image.shape[1] == plain_image.shape[1] == 720
        assert hard_image.shape[0] >= plain_image.shape[0]
        # As much ink (dark pixels) as the plain text: nothing was thinned out.
        assert (hard_image < 0x60).sum() >= 0.8 * (plain_image < 0x60).sum()


def test_same_text_same_bytes_and_roles_differ(hardened: Renderer) -> None:
    first = hardened.render(ENGLISH, Role.candidate)
    assert hardened.render(ENGLISH, Role.candidate) == first
    assert hardened.render(ENGLISH, Role.reference) != first
    assert first.startswith(b"\x89PNG")


@pytest.mark.slow
def test_tesseract_reads_hardened_images_worse(chain: FontChain, hardened: Renderer) -> None:
    tesseract = TesseractReader()
    plain = Renderer(chain, RenderStyle())
    for text in (ENGLISH, CHINESE):
        plain_error = character_error_rate(text, tesseract.read(plain.render(text, Role.candidate)))
        hard_error = character_error_rate(text, tesseract.read(hardened.render(text, Role.candidate)))
        assert plain_error < 0.05
        assert hard_error > plain_error + 0.05


def test_shaped_scripts_and_unknown_styles_are_refused(hardened: Renderer) -> None:
    with pytest.raises(BuildError, match="Arabic.*--render plain"):
        hardened.render("مرحبا بالعالم", Role.candidate, "answer of system 'x'")
    with pytest.raises(BuildError, match="unknown rendering 'fancy'; choose one of plain, hardened"):
        render_style("fancy")
    assert render_style("plain") == RenderStyle() and isinstance(render_style("hardened"), HardenedStyle)


def test_ocr_text_helpers() -> None:
    assert normalise("放 在 早上\n几 个 hello  world") == "放在早上几个 hello world"
    assert levenshtein("kitten", "sitting") == 3
    assert character_error_rate("abcd", "abxd") == 0.25
