"""OCR-resistant answer images (hit_builder.ocr_resistant) and the OCR readers that attack them.

What the images ask of a reader is measured on their pixels: glyphs never smaller than the plain
images', letters set upright on the wave within the limits docs/quality-control.md#ocr-resistant-images states, line
breaking that keeps words and CJK punctuation rules. The size and turn measures are taken from the
image (connected blobs of ink darker than half way), not from the renderer's own record, and
compared with the plain image of the same text or with the documented limit derived below.
"""
from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

from da_core.errors import BuildError
from da_platform.simulation.ocr import TesseractReader, character_error_rate, levenshtein, normalise
from hit_builder.fonts import FontChain, MissingGlyphError
from hit_builder.ocr_resistant import (
    RENDER_STYLES,
    HardenedStyle,
    RenderKind,
    compose,
    contrast_ratio,
    lay_out,
    render_kind,
    render_style,
)
from hit_builder.render import GREY_LEVELS, NO_BREAK_AFTER, NO_BREAK_BEFORE, Renderer, RenderStyle, Role

ENGLISH = "Yes. Timing matters: keep the oven door closed until the end. The key technique is to preheat the pan."
CHINESE = "绿峰复合肥最适合吊兰。要经常检查叶片上有没有红蜘蛛。吊兰最适合放在早上几个小时的直射阳光下。"

# The limits docs/quality-control.md#ocr-resistant-images states for the default hardened images: the baseline waves
# by 14 px with a period of at least 280 px, so it is never steeper than atan(2π·14/280) = 17.4°;
# each letter turns at most 2° more and moves at most 1 px off the wave.
STEEPEST_WAVE = math.degrees(math.atan(2 * math.pi * 14 / 280))
TURN, LIFT = 2.0, 1.0
TOLERANCE = 1.5  # degrees: what the moment estimate reads on upright letters (checked below)
# Capital I: a bar (serifs on both ends in the serif fonts), so its long axis is its turn.
STEMS = "\n".join(["IIIIIII"] * 14)


@pytest.fixture(scope="module")
def chain() -> FontChain:
    return FontChain.load(None)


@pytest.fixture(scope="module")
def hardened(chain: FontChain) -> Renderer:
    return Renderer(chain, HardenedStyle())


@pytest.fixture(scope="module")
def plain(chain: FontChain) -> Renderer:
    return Renderer(chain, RenderStyle())


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


def test_same_text_same_bytes_and_roles_differ(chain: FontChain, hardened: Renderer) -> None:
    first = hardened.render(ENGLISH, Role.candidate)
    assert hardened.render(ENGLISH, Role.candidate) == first
    assert Renderer(FontChain.load(None), HardenedStyle()).render(ENGLISH, Role.candidate) == first
    assert hardened.render(ENGLISH, Role.reference) != first
    # The style is part of the seed and of the picture.
    assert Renderer(chain, HardenedStyle(max_rotation=1)).render(ENGLISH, Role.candidate) != first
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


def test_a_render_kind_is_its_name_and_the_inverse_of_its_style() -> None:
    # The names are the CLI's --render choices and what a campaign shows (docs/quality-control.md).
    assert RENDER_STYLES == ("plain", "hardened")
    assert [f"{kind}" for kind in RenderKind] == ["plain", "hardened"] and str(RenderKind.hardened) == "hardened"
    assert json.dumps({"render": RenderKind.hardened}) == '{"render": "hardened"}'
    for kind in RenderKind:
        assert render_kind(render_style(kind)) is kind and render_style(kind) == render_style(kind.value)
    assert render_kind(HardenedStyle(size_jitter=0)) is RenderKind.hardened


def test_ocr_text_helpers() -> None:
    assert normalise("放 在 早上\n几 个 hello  world") == "放在早上几个 hello world"
    assert levenshtein("kitten", "sitting") == 3
    assert character_error_rate("abcd", "abxd") == 0.25


def blobs(png: bytes) -> list[tuple[slice, slice, np.ndarray]]:
    """Connected blobs of ink darker than mid-grey: (rows, columns, darkness 0–1 inside the box)."""
    with Image.open(io.BytesIO(png)) as image:
        grey = np.asarray(image.convert("L"), dtype=float)
    labels, _ = ndimage.label(grey < 0x80, structure=np.ones((3, 3)))  # diagonal neighbours join: thin strokes
    found = []
    for number, box in enumerate(ndimage.find_objects(labels), 1):
        darkness = np.where(labels[box] == number, (255 - grey[box]) / 255, 0.0)
        found.append((box[0], box[1], darkness))
    return found


def centre_and_tilt(blob: tuple[slice, slice, np.ndarray]) -> tuple[float, float, float]:
    """Centroid (x, y) of a blob's ink and the degrees its long axis leans from vertical
    (counter-clockwise positive, from second moments)."""
    rows, columns, darkness = blob
    ys, xs = np.indices(darkness.shape)
    total = darkness.sum()
    y, x = (ys * darkness).sum() / total, (xs * darkness).sum() / total
    mu20 = ((xs - x) ** 2 * darkness).sum()
    mu02 = ((ys - y) ** 2 * darkness).sum()
    mu11 = ((xs - x) * (ys - y) * darkness).sum()
    return columns.start + x, rows.start + y, math.degrees(0.5 * math.atan2(2 * mu11, mu02 - mu20))


def words(png: bytes) -> list[list[tuple[float, float, float]]]:
    """The letters of a picture of one word a line, each line's left to right: (x, y, tilt). Blobs
    wider than an I can be turned (two I's whose serifs touch) are left out."""
    single = [blob for blob in blobs(png)
              if blob[1].stop - blob[1].start <= 0.7 * (blob[0].stop - blob[0].start)]
    letters = sorted((centre_and_tilt(blob) for blob in single), key=lambda letter: letter[1])
    lines: list[list[tuple[float, float, float]]] = []
    for letter in letters:
        if lines and letter[1] - lines[-1][-1][1] < 30:  # lines are 60 px apart, a word rises < 30 px
            lines[-1].append(letter)
        else:
            lines.append([letter])
    return [sorted(line) for line in lines]


def turn_against_neighbours(png: bytes) -> list[float]:
    """How far each inner letter's tilt is from the direction of the line through its two
    neighbours' centres: zero for letters set upright along any smooth curve."""
    found = []
    for word in words(png):
        for (x0, y0, _), (x1, _, tilt), (x2, y2, _) in zip(word, word[1:], word[2:]):
            if max(x1 - x0, x2 - x1) < 1.5 * min(x1 - x0, x2 - x1):  # no letter left out in between
                found.append(abs(tilt - math.degrees(math.atan2(y0 - y2, x2 - x0))))
    return found


def test_letters_are_no_smaller_than_in_the_plain_image(plain: Renderer, hardened: Renderer) -> None:
    for text in ("xxxx xxxx xxxx xxxx xxxx xxxx xxxx xxxx", "中中中中中中中中中中中中中中中中中中中中"):
        plain_heights = {rows.stop - rows.start for rows, _, _ in blobs(plain.render(text, Role.candidate))}
        assert len(plain_heights) == 1  # every plain letter is the same height
        smallest = min(rows.stop - rows.start for rows, _, _ in blobs(hardened.render(text, Role.candidate)))
        assert smallest >= plain_heights.pop() - 1  # one pixel for antialiasing at the threshold


def test_upright_letters_measure_upright(chain: FontChain) -> None:
    """The tilt estimate itself: letters drawn on a flat baseline without turns read within the tolerance."""
    flat = Renderer(chain, HardenedStyle(wave_amplitude=0, max_rotation=0, baseline_jitter=0))
    tilts = [abs(tilt) for word in words(flat.render(STEMS, Role.candidate)) for _, _, tilt in word]
    assert len(tilts) >= 0.9 * 7 * 14 and max(tilts) <= TOLERANCE


def test_letters_stand_upright_on_the_wave(chain: FontChain) -> None:
    """Without the extra turn and lift, every letter leans exactly with the line through its
    neighbours (the chord of the wave around it)."""
    wave_only = Renderer(chain, HardenedStyle(max_rotation=0, baseline_jitter=0))
    png = wave_only.render(STEMS, Role.candidate)
    assert max(abs(tilt) for word in words(png) for _, _, tilt in word) > 5  # the wave does turn them
    assert max(turn_against_neighbours(png)) <= TOLERANCE


def test_letters_turn_within_the_limits(chain: FontChain, hardened: Renderer) -> None:
    png = hardened.render(STEMS, Role.candidate)
    assert sum(len(word) for word in words(png)) >= 0.9 * 7 * 14  # a few I's touch by their serifs
    assert max(abs(tilt) for word in words(png) for _, _, tilt in word) <= STEEPEST_WAVE + TURN + TOLERANCE
    # Against the neighbours: the letter's own turn, plus how much the neighbours' lifts (up to
    # LIFT each, 2 * LIFT apart over about 22 px between their centres) swing the line through them.
    against = TURN + math.degrees(math.atan(2 * LIFT / 22)) + TOLERANCE
    assert max(turn_against_neighbours(png)) <= against
    # The former default turned each letter on its own by up to 16 degrees: the measure sees it.
    former = Renderer(chain, HardenedStyle(font_change="character", size_jitter=7, max_rotation=16,
                                           baseline_jitter=6, wave_amplitude=5, wave_period=(90, 160),
                                           wave_follow=False, wave_shared=False))
    assert max(turn_against_neighbours(former.render(STEMS, Role.candidate))) > 2 * against


def test_lines_keep_words_whole_and_cjk_punctuation_rules(hardened: Renderer) -> None:
    english = ("Ottawa is the capital city of Canada. It stands on the south bank of the Ottawa River "
               "in the province of Ontario, across the river from Gatineau. ") * 3
    layout, _ = lay_out(hardened, english, Role.candidate)
    line_of: dict[int, set[int]] = {}
    for glyph in layout.glyphs:
        line_of.setdefault(glyph.word, set()).add(glyph.line)
    assert layout.lines > 3 and all(len(lines) == 1 for lines in line_of.values())  # no word broken
    chinese = "光合作用是植物利用阳光，把水和二氧化碳变成糖和氧气的过程。（叶绿素）吸收阳光的能量！" * 4
    layout, _ = lay_out(hardened, chinese, Role.candidate)
    rows: dict[int, list] = {}
    for glyph in layout.glyphs:
        rows.setdefault(glyph.line, []).append(glyph)
    assert len(rows) == layout.lines > 2
    for glyphs in rows.values():
        assert glyphs[0].character not in NO_BREAK_BEFORE
        assert glyphs[-1].character not in NO_BREAK_AFTER
    assert all(g.x + g.size <= layout.width for g in layout.glyphs)


def test_missing_glyph_fails_as_in_the_plain_images(hardened: Renderer) -> None:
    with pytest.raises(MissingGlyphError, match=r"U\+10380"):
        hardened.render("an answer with \U00010380 in it", Role.candidate, "answer of system 'x'")
