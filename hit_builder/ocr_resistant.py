"""OCR-resistant answer images (``build --render hardened``): easy for people, hard for OCR engines.

The text is broken into the plain images' units (:meth:`hit_builder.render.Renderer.units`: words,
CJK characters with their punctuation, so line breaking stays right for each script) and laid out
again glyph by glyph, wrapped at the glyphs' real widths:

* each word is drawn in a font picked from the family of the chain's font (sans, serif, bold:
  Noto Sans CJK / Serif CJK / Sans CJK Bold / Serif CJK Bold, DejaVu Sans / Serif / Sans Bold /
  Serif Bold), Chinese in runs of two to four characters, never in a font that lacks a character
  (``font_change="character"``: a font per character);
* at a size whose x-height (Latin) or ideograph height (CJK) is at least the plain images' at
  ``font_size``, plus up to ``size_jitter`` pixels: no glyph is smaller than in the plain images;
* along a baseline that waves up and down by ``wave_amplitude`` pixels with a period of
  ``wave_period`` pixels (one wave for all lines, ``wave_shared``, so lines stay parallel and need
  no extra room; else a phase and period per line), each letter standing upright on the wave
  (turned by its slope, ``wave_follow``) like text set on a curve, so words keep their shape; and
  each character turned by up to ``max_rotation`` more degrees and lifted or lowered by up to
  ``baseline_jitter`` pixels;
* over a light background texture (speckle, strokes and faint decoy characters kept
  ``decoy_clearance`` pixels away from the glyphs), never darker than ``texture_darkest``, so the
  text keeps at least WCAG AA contrast (4.5:1) against every background pixel: black candidate text
  ≥ 13:1, the reference drawn in ``#555555`` ≥ 4.6:1 (the plain images' ``#666666`` on white is 5.7:1).

What this costs a reader and what it buys against OCR engines: docs/quality-control.md#ocr-resistant-images.
Deterministic: the random choices are seeded from the text, its role and the style, so the same text
renders to the same bytes (images stay content-addressed). The PNG is the plain images' 4-bit greyscale.
Text that needs shaping (Arabic, Hebrew, Indic scripts) cannot be drawn a character at a time and is
refused with a clear error: build such campaigns with ``--render plain``.
"""
from __future__ import annotations

import hashlib
import math
import os
import random
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from da_core.enums import StrState
from da_core.errors import BuildError
from hit_builder.fonts import FontChain
from hit_builder.render import (
    GREY_LEVELS,
    Renderer,
    RenderStyle,
    Role,
    complex_script,
    encode_grey4_png,
    paragraphs,
)

if TYPE_CHECKING:
    import numpy
    from PIL import Image, ImageFont



class RenderKind(StrState):
    """How the answer images are drawn (``build --render``; a campaign's ``render`` part, shown by name)."""

    plain = "plain"  # today's images (:class:`RenderStyle`)
    hardened = "hardened"  # OCR-resistant (:class:`HardenedStyle`)


RENDER_STYLES = tuple(kind.value for kind in RenderKind)
"""The render kinds by name (the CLI's choices)."""
FONT_CHANGES = ("word", "character")
# Sibling files of a font (same folder), drawn in turn with it: sans, serif, bold, serif bold.
_FAMILY = {
    "DejaVuSans.ttf": ("DejaVuSerif.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif-Bold.ttf"),
    "NotoSansCJK-Regular.ttc": ("NotoSerifCJK-Regular.ttc", "NotoSansCJK-Bold.ttc", "NotoSerifCJK-Bold.ttc"),
}
# What "the size of a glyph" means when fonts are compared: the x-height for Latin and other
# alphabets, the height of an ideograph for CJK.
_X_HEIGHT_PROBE, _IDEOGRAPH_PROBE = "x", "国"


@dataclass(frozen=True)
class HardenedStyle(RenderStyle):
    """A :class:`RenderStyle` drawn by :func:`render_hardened` (the fields below are the distortions)."""

    ocr_resistant: bool = True
    reference_grey: int = 0x55  # darker than the plain #666: AA contrast against the texture too
    font_change: str = "word"  # how often the font of the family changes: per "word" or "character"
    size_jitter: int = 4  # pixels added at most to a glyph's size, per font change
    wave_amplitude: float = 14.0  # pixels the baseline waves up and down along a line
    wave_period: tuple[int, int] = (280, 360)  # pixels, range of the wave's period
    wave_follow: bool = True  # letters stand upright on the wave (turned by its slope)
    wave_shared: bool = True  # one wave (phase and period) for every line: lines stay parallel
    max_rotation: float = 2.0  # degrees each character turns at most, besides the wave's slope
    baseline_jitter: int = 1  # pixels each character moves up or down at most, besides the wave
    letter_spacing: tuple[float, float] = (0.5, 2.0)  # pixels added after each character
    texture_darkest: int = 0xCC  # no background pixel is darker than this
    decoys_per_line: int = 6  # faint characters in the background
    decoy_clearance: int = 4  # pixels kept free of decoys around each glyph's box (-1: anywhere)
    # Drawn glyph by glyph: 4 to 5 plain images' time for an answer of a few hundred characters
    # (benchmarks/hardened_render.py), so render_many draws in several processes from 250 images.
    cost: ClassVar[float] = 4.0

    def describe(self) -> dict:
        return {**asdict(self), "png": f"{GREY_LEVELS}-level greyscale, 4 bits per pixel",
                "renderer": "hit_builder.ocr_resistant"}

    def draw(self, renderer: Renderer, text: str, role: Role | str, where: str = "text") -> bytes:
        """:meth:`Renderer.render` of this style (so that ``render`` needs no import of this module)."""
        return render_hardened(renderer, text, role, where)


def _hardened(renderer: Renderer) -> HardenedStyle:
    if not isinstance(renderer.style, HardenedStyle):
        raise TypeError(f"a renderer of a HardenedStyle is needed, not of {type(renderer.style).__name__}")
    return renderer.style


def render_style(name: RenderKind | str) -> RenderStyle:
    """The style called ``name``: ``plain`` (today's images) or ``hardened`` (OCR-resistant)."""
    if name == RenderKind.plain:
        return RenderStyle()
    if name == RenderKind.hardened:
        return HardenedStyle()
    raise BuildError(f"unknown rendering {name!r}; choose one of {', '.join(RENDER_STYLES)}")


def render_kind(style: RenderStyle) -> RenderKind:
    """``hardened`` for the OCR-resistant style, else ``plain`` (the inverse of :func:`render_style`)."""
    return RenderKind.hardened if isinstance(style, HardenedStyle) else RenderKind.plain


def relative_luminance(grey: int) -> float:
    """WCAG 2 relative luminance of a grey level 0–255."""
    c = grey / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def contrast_ratio(a: int, b: int) -> float:
    """WCAG 2 contrast ratio of two grey levels (1 to 21)."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


class Glyph(NamedTuple):
    """One character as :func:`lay_out` placed it: from ``x`` (left edge) on baseline ``y`` (a named tuple:
    an image has hundreds)."""

    character: str
    font: str  # font spec (path or path#index)
    size: int  # pixels
    advance: float  # pixels the glyph itself takes along the line (letter spacing not included)
    x: float
    y: float
    angle: float  # degrees, counter-clockwise, about the middle of its baseline
    word: int  # number of the word (or CJK character) it belongs to, counted through the text
    line: int  # number of its line in the image


@dataclass(frozen=True)
class Layout:
    """Where every glyph of an image goes, and the image's size."""

    glyphs: tuple[Glyph, ...]
    width: int
    height: int
    line_pitch: int
    lines: int


class _Choice(NamedTuple):
    """The random choices for one character, before it is placed on a line."""

    character: str
    font: str
    size: int
    advance: float
    spacing: float
    angle: float
    lift: float  # pixels up
    word: int


@lru_cache(maxsize=64)
def _variants(spec: str) -> tuple[str, ...]:
    """Font specs of the family of ``spec`` (itself first) that exist on this machine."""
    path, _, index = spec.partition("#")
    folder, name = os.path.split(path)
    found = [spec]
    for sibling in _FAMILY.get(name, ()):
        candidate = os.path.join(folder, sibling)
        if os.path.exists(candidate):
            found.append(candidate + (f"#{index}" if index else ""))
    return tuple(found)


@lru_cache(maxsize=256)
def _font(spec: str, size: int) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont

    path, _, index = spec.partition("#")
    return ImageFont.truetype(path, size, index=int(index or 0))


@lru_cache(maxsize=256)
def _plain_font(spec: str, size: int) -> ImageFont.FreeTypeFont:
    """:func:`_font` without text layout (raqm): one character at a time needs none, and it draws the same
    glyph in half the time."""
    from PIL import ImageFont

    path, _, index = spec.partition("#")
    return ImageFont.truetype(path, size, index=int(index or 0), layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=65536)
def _advance(spec: str, size: int, character: str) -> float:
    """How far ``character`` advances the pen in font ``spec`` at ``size`` (cached: it is asked per glyph). A wide
    (CJK) character is measured without text layout, which gives the same length in a fifth of the time; other
    characters with it (raqm's lengths are not rounded to whole pixels)."""
    return (_plain_font if _wide(character) else _font)(spec, size).getlength(character)


@lru_cache(maxsize=64)
def _coverage(spec: str) -> FontChain:
    return FontChain.load([spec])


def _wide(character: str) -> bool:
    return unicodedata.east_asian_width(character) in ("W", "F")


@lru_cache(maxsize=256)
def glyph_height(spec: str, probe: str, size: int = 1000) -> int:
    """Ink height in pixels of ``probe`` in font ``spec`` at ``size`` (0 when the font lacks it)."""
    if _coverage(spec).face_of(probe) is None:
        return 0
    _, top, _, bottom = _font(spec, size).getbbox(probe, anchor="ls")
    return int(bottom - top)


def matched_size(spec: str, own: str, character: str, font_size: int) -> int:
    """The smallest size at which ``spec`` draws ``character`` no smaller than ``own`` (the chain's
    face for it) at ``font_size``: x-heights compared for alphabets, ideograph heights for CJK."""
    probe = _IDEOGRAPH_PROBE if _wide(character) else _X_HEIGHT_PROBE
    mine, theirs = glyph_height(spec, probe), glyph_height(own, probe)
    if not mine or not theirs or mine >= theirs:
        return font_size
    return math.ceil(font_size * theirs / mine)


@lru_cache(maxsize=65536)
def _fonts_for(chain: FontChain, character: str) -> tuple[str, tuple[str, ...]]:
    """The chain's own face for ``character`` and every variant font that has it (the own one first;
    cached: asked for every glyph)."""
    face = chain.face_of(character)
    own = chain.faces[face or 0].spec
    return own, tuple(spec for spec in _variants(own) if spec == own or _coverage(spec).face_of(character) is not None)


@lru_cache(maxsize=65536)
def _sized_fonts(chain: FontChain, character: str, font_size: int) -> tuple[tuple[str, int], ...]:
    """Each font :func:`_fonts_for` gives ``character`` with the size :func:`matched_size` gives it there
    (cached: asked for every glyph)."""
    own, fonts = _fonts_for(chain, character)
    return tuple((spec, matched_size(spec, own, character, font_size)) for spec in fonts)


class _Placer:
    """Draws the random choices for each word and character and places them on lines."""

    def __init__(self, renderer: Renderer, rng: random.Random) -> None:
        style = _hardened(renderer)
        self.style, self.chain, self.rng = style, renderer.chain, rng
        # Word gaps grow with the glyphs and stay wider than any gap between letters.
        self.space = renderer.space_width * (style.font_size + style.size_jitter) / style.font_size \
            + style.letter_spacing[1]
        self.text_width = style.width - 2 * style.padding
        self._run: tuple[int, float, int] = (0, 0.0, 0)  # CJK characters left in this font, its pick and size

    def _pick(self, unit: str) -> tuple[float, int]:
        """Font pick (0–1) and added size of a unit; CJK characters (a unit each) keep theirs for a
        run of two to four characters, about a word."""
        rng, jitter = self.rng, self.style.size_jitter
        if not _wide(unit[0]):
            self._run = (0, 0.0, 0)
            return rng.random(), rng.randint(0, jitter)
        left, pick, extra = self._run
        if left <= 0:
            left, pick, extra = rng.randint(2, 4), rng.random(), rng.randint(0, jitter)
        self._run = (left - 1, pick, extra)
        return pick, extra

    def unit(self, text: str, word: int) -> list[_Choice]:
        """The choices for each character of one unit (a word, or a CJK character)."""
        style, rng = self.style, self.rng
        pick, extra = self._pick(text)
        chosen = []
        uniform, (low, high), turn, lift = rng.uniform, style.letter_spacing, style.max_rotation, style.baseline_jitter
        for character in text:
            fonts = _sized_fonts(self.chain, character, style.font_size)
            if style.font_change == "character":
                pick, extra = rng.random(), rng.randint(0, style.size_jitter)
            spec, size = fonts[min(int(pick * len(fonts)), len(fonts) - 1)]
            size += extra
            chosen.append(_Choice(character, spec, size, _advance(spec, size, character), uniform(low, high),
                                  uniform(-turn, turn), uniform(-lift, lift), word))
        return chosen

    def lines(self, text: str) -> list[list[tuple[float, _Choice]]]:
        """Lines of ``(x, choice)``, greedily filled to the text width like the plain images."""
        lines: list[list[tuple[float, _Choice]]] = []
        word = 0
        for paragraph in paragraphs(text):
            line: list[tuple[float, _Choice]] = []
            x = 0.0
            for unit, space_before in Renderer.units(paragraph):
                chosen = self.unit(unit, word)
                word += 1
                width = sum(c.advance + c.spacing for c in chosen)
                gap = self.space if space_before and line else 0.0
                if line and x + gap + width > self.text_width:
                    lines.append(line)
                    line, x, gap = [], 0.0, 0.0
                x += gap
                for choice in chosen:  # a unit wider than the line is broken between characters
                    if line and x + choice.advance > self.text_width:
                        lines.append(line)
                        line, x = [], 0.0
                    line.append((x, choice))
                    x += choice.advance + choice.spacing
            lines.append(line)
        return lines


def check_drawable(text: str, where: str) -> None:
    """Refuse text that needs shaping (Arabic, Hebrew, Indic scripts): it cannot be drawn a character at a
    time. ``build`` checks every text with it before drawing anything."""
    script = complex_script(text)
    if script:
        raise BuildError(f"{where}: text in {script} needs shaping and cannot be drawn as OCR-resistant "
                         "images (the hardened render, the paid crowd's default); build this campaign with "
                         "--render plain")


def lay_out(renderer: Renderer, text: str, role: Role | str, where: str = "text") -> tuple[Layout, random.Random]:
    """Where each glyph of ``text`` goes (see the module docstring), and the random generator the
    texture continues with; refuses text the chain lacks glyphs for or that needs shaping."""
    style = _hardened(renderer)
    if style.font_change not in FONT_CHANGES:
        raise BuildError(f"font_change must be one of {', '.join(FONT_CHANGES)}, not {style.font_change!r}")
    renderer.chain.check(text, where)
    check_drawable(text, where)
    seed = hashlib.sha256(f"{Role(role).value}\x1f{style!r}\x1f{text}".encode()).hexdigest()
    rng = random.Random(seed)
    lines = _Placer(renderer, rng).lines(text)
    largest = max((c.size for line in lines for _, c in line), default=style.font_size)
    stretch = largest / style.font_size
    wobble = style.baseline_jitter + style.wave_amplitude
    # The plain line height at the largest size, plus what two lines moving towards each other
    # come closer by beyond what the plain line gap (about 0.4 em) absorbs: the wobble of one line
    # (lines wave on their own), or only the jitter (one wave for all lines).
    apart = 2 * style.baseline_jitter if style.wave_shared else wobble
    pitch = math.ceil(renderer.line_height * stretch + apart)
    ascent = math.ceil(renderer.ascent * stretch + wobble)
    glyphs = []
    shared = rng.uniform(0, 2 * math.pi), rng.uniform(*style.wave_period)
    for number, line in enumerate(lines):
        base = style.padding + ascent + number * pitch
        phase, period = shared if style.wave_shared else (rng.uniform(0, 2 * math.pi), rng.uniform(*style.wave_period))
        for x0, choice in line:
            if choice.character.isspace():
                continue
            x = style.padding + x0
            turn = phase + (x + choice.advance / 2) / period * 2 * math.pi  # the wave at the glyph's middle
            y = base - choice.lift + style.wave_amplitude * math.sin(turn)
            angle = choice.angle
            if style.wave_follow:  # upright on the wave: turned by the baseline's slope there
                angle += math.degrees(math.atan(-style.wave_amplitude * 2 * math.pi / period * math.cos(turn)))
            glyphs.append(Glyph(choice.character, choice.font, choice.size, choice.advance, x, y, angle,
                                choice.word, number))
    descent = math.ceil((renderer.line_height - renderer.ascent) * stretch + wobble)
    height = 2 * style.padding + ascent + (len(lines) - 1) * pitch + descent
    return Layout(tuple(glyphs), style.width, height, pitch, len(lines)), rng


def compose(renderer: Renderer, text: str, role: Role | str,
            where: str = "text") -> tuple[Image.Image, Image.Image, Layout]:
    """The layers of the OCR-resistant image of ``text``: the background texture and the text's
    coverage (both 8-bit ``L`` images), and the layout; :func:`render_hardened` pastes the text in
    its role's grey over the background."""
    from PIL import Image

    style = _hardened(renderer)
    layout, rng = lay_out(renderer, text, role, where)
    size = (layout.width, layout.height)
    coverage = Image.new("L", size, 0)
    boxes = _draw_glyphs(coverage, layout.glyphs)
    background = Image.new("L", size, 255)
    _texture(background, rng, style, renderer.chain, layout.line_pitch, boxes)
    return background, coverage, layout


# The 16 output levels of each 8-bit grey, as the plain images round them.
_LEVELS = [round(v * (GREY_LEVELS - 1) / 255) for v in range(256)]


def render_hardened(renderer: Renderer, text: str, role: Role | str, where: str = "text") -> bytes:
    """The OCR-resistant PNG of ``text`` (see the module docstring); ``renderer`` is the
    :class:`~hit_builder.render.Renderer` of the same chain and style."""
    image, ink, layout = compose(renderer, text, role, where)
    image.paste(renderer.style.grey(Role(role)), (0, 0, layout.width, layout.height), ink)
    levels = image.point(_LEVELS)
    # Run-length matching only: the texture's speckle leaves zlib's longer matches little to find, and
    # looking for them took longer than the rest of the drawing (the PNG comes out a few per cent smaller).
    # Pillow packs 8-bit pixels of 0–15 into rows of 4-bit ones, high nibble first, as encode_grey4_png reads them.
    return encode_grey4_png(levels.tobytes("raw", "L;4"), layout.width, layout.height, strategy=zlib.Z_RLE)


# Glyphs are drawn upright at a size rounded up to a multiple of this and scaled down to theirs as they
# are turned (by at most 4/40: not to be seen), so one drawing serves several sizes of a character.
_SIZE_STEP = 4
_UPRIGHT_CACHE = 8192  # drawn glyphs kept (a few kB each: tens of MB at most)
# Image.Resampling.BILINEAR: a third of bicubic's time. It spreads a thin stroke over more pixels, lighter: the
# Chinese serif hairlines shown on a 1x screen are lighter than turned bicubic (docs/benchmarks-log.md).
_TURN_FILTER = 2


class _Upright(NamedTuple):
    """A character's coverage drawn upright, with a blank pixel around it, as :func:`_draw_glyphs` turns it."""

    canvas: Image.Image
    origin: tuple[int, int]  # where its baseline starts in the canvas
    size: int  # pixels: the size it was drawn at


@lru_cache(maxsize=_UPRIGHT_CACHE)
def _upright(character: str, spec: str, size: int) -> _Upright | None:
    """``character`` in font ``spec`` drawn upright at ``size`` (None: no ink; cached: the same glyph recurs
    throughout a build, and drawing it costs about as much as turning it)."""
    from PIL import Image

    mask, (left, top) = _plain_font(spec, size).getmask2(character, mode="L", anchor="ls")
    width, height = mask.size
    if not width or not height:
        return None
    # The blank border: a bilinear sample reads a pixel's neighbours, which are blank past the ink.
    canvas = Image.new("L", (width + 2, height + 2), 0)
    canvas.im.paste(mask, (1, 1, width + 1, height + 1))
    return _Upright(canvas, (1 - left, 1 - top), size)


def _draw_glyph(ink: Image.Image, glyph: Glyph) -> tuple[int, int, int, int]:
    """:func:`_draw_glyphs` of one glyph."""
    return _draw_glyphs(ink, [glyph])[0]


def _draw_glyphs(ink: Image.Image, glyphs: Sequence[Glyph]) -> list[tuple[int, int, int, int]]:
    """Draw ``glyphs`` into ``ink`` (the text's coverage), each turned about the middle of its baseline and
    scaled from the size it was drawn at (:func:`_upright`: its size rounded up to a multiple of
    ``_SIZE_STEP``) to its own; returns the box each covers (all of its ink).

    A glyph is one affine transform (bilinear) of its small canvas onto the box the canvas reaches, pasted as
    coverage over what is already there (``1 - (1 - a)(1 - b)``: where glyphs touch, both keep their ink);
    the boxes and transforms of all the glyphs are worked out at once."""
    import numpy
    from PIL import Image

    drawn = [(glyph, _upright(glyph.character, glyph.font, -(-glyph.size // _SIZE_STEP) * _SIZE_STEP))
             for glyph in glyphs]
    inked = [(k, glyph, upright) for k, (glyph, upright) in enumerate(drawn) if upright is not None]
    # A glyph without ink (a space) covers nothing: an empty box where its baseline starts.
    boxes = [(math.floor(glyph.x), math.floor(glyph.y), math.floor(glyph.x), math.floor(glyph.y)) for glyph in glyphs]
    if inked:
        x, y, advance, angle, size, width, height, ox, oy, upright_size = numpy.array(
            [(g.x, g.y, g.advance, g.angle, g.size, *u.canvas.size, *u.origin, u.size) for _, g, u in inked],
            dtype=numpy.float64).T
        scale = size / upright_size
        turn = numpy.radians(angle)
        cos, sin = numpy.cos(turn), numpy.sin(turn)
        # A glyph turns (counter-clockwise on the page, whose y axis points down) about the middle of its
        # baseline: that point of its canvas, (ox, oy), lands on (cx, cy) of the page.
        cx, cy = x + advance / 2, y
        ox = ox + advance / 2 / scale
        # The canvas's middle on the page, and half the sides of the upright box around the turned canvas.
        dx, dy = (width / 2 - ox) * scale, (height / 2 - oy) * scale
        mx, my = cx + dx * cos + dy * sin, cy - dx * sin + dy * cos
        across, down = numpy.abs(cos) * scale / 2, numpy.abs(sin) * scale / 2
        half_x, half_y = width * across + height * down, width * down + height * across
        left, top = numpy.floor(mx - half_x), numpy.floor(my - half_y)
        right, bottom = numpy.ceil(mx + half_x), numpy.ceil(my + half_y)
        # From a pixel of the box back to the canvas (Pillow samples at pixel middles, both ways).
        a, b = cos / scale, -sin / scale
        d, e = -b, a
        c, f = ox + a * (left - cx) + b * (top - cy), oy + d * (left - cx) + e * (top - cy)
        places = numpy.stack([left, top, right, bottom]).astype(numpy.int64).T.tolist()
        matrices = numpy.stack([a, b, c, d, e, f]).T.tolist()
        core, new, affine = ink.im, Image.core.new, Image.Transform.AFFINE
        for (k, _, upright), (x0, y0, x1, y1), matrix in zip(inked, places, matrices):
            turned = new("L", (x1 - x0, y1 - y0))
            turned.transform((0, 0, x1 - x0, y1 - y0), upright.canvas.im, affine, matrix, _TURN_FILTER, 1)
            core.paste(255, (x0, y0, x1, y1), turned)
            boxes[k] = (x0, y0, x1, y1)
    return boxes


def _texture(image: Image.Image, rng: random.Random, style: HardenedStyle, chain: FontChain, line_height: int,
             boxes: list[tuple[int, int, int, int]]) -> None:
    """Speckle, faint strokes and decoy characters, none darker than ``texture_darkest``; decoys
    stay ``decoy_clearance`` pixels clear of the glyph ``boxes`` (when it is 0 or more). Their places,
    greys and sizes are drawn all at once by a numpy generator seeded with 64 bits of ``rng``."""
    import numpy
    from PIL import ImageDraw

    width, height = image.size
    light = style.texture_darkest
    numbers = numpy.random.default_rng(rng.getrandbits(64))
    _speckle(image, numbers, width * height // 180, light, 245)
    # Strokes: four steps of up to 40 px across and 12 px up or down from a random start.
    strokes = max(3, height // 12)
    starts = numbers.integers(0, (width, height), size=(strokes, 1, 2)).astype(numpy.float64)
    steps = numbers.uniform((-40, -12), (40, 12), size=(strokes, 4, 2))
    paths = numpy.concatenate([starts, starts + numpy.cumsum(steps, axis=1)], axis=1).tolist()
    fills, thick = numbers.integers(light, 236, strokes).tolist(), numbers.integers(1, 3, strokes).tolist()
    draw = ImageDraw.Draw(image)
    for path, fill, line_width in zip(paths, fills, thick):
        draw.line([tuple(point) for point in path], fill=fill, width=line_width)
    decoys = "".join(c for c in _DECOYS if chain.face_of(c) is not None)
    count = style.decoys_per_line * max(1, height // line_height)
    picks = numbers.integers(0, len(decoys), count).tolist()
    sizes = numbers.integers(14, style.font_size + 1, count).tolist()
    places = numbers.integers(0, (width, height), size=(count, 2)).tolist()
    greys = numbers.integers(light + 8, 241, count).tolist()
    drawn = []
    for pick, size, (x, y), grey in zip(picks, sizes, places, greys):
        character = decoys[pick]
        mask, (dx, dy) = _decoy(character, chain.faces[chain.face_of(character) or 0].spec, size)
        if mask is not None:
            drawn.append((x + dx, y + dy, x + dx + mask.size[0], y + dy + mask.size[1], grey, mask))
    clear = style.decoy_clearance
    if drawn and clear >= 0 and boxes:  # each decoy tested against every glyph's box grown by the clearance
        found = numpy.array([place[:4] for place in drawn], dtype=numpy.int64)
        grown = numpy.array(boxes, dtype=numpy.int64) + (-clear, -clear, clear, clear)
        near = ((found[:, None, 0] < grown[None, :, 2]) & (grown[None, :, 0] < found[:, None, 2])
                & (found[:, None, 1] < grown[None, :, 3]) & (grown[None, :, 1] < found[:, None, 3])).any(axis=1)
        drawn = [drawn[k] for k in numpy.flatnonzero(~near)]
    core = image.im
    for left, top, right, bottom, grey, mask in drawn:
        core.paste(grey, (left, top, right, bottom), mask)


_DECOYS = "aeorsntlichmdupkbyw" + "的是不了人在有我他这中大来上个们到说"


@lru_cache(maxsize=4096)
def _decoy(character: str, spec: str, size: int) -> tuple[Any, tuple[int, int]]:
    """The coverage mask of a decoy ``character`` in font ``spec`` at ``size`` and its offset from where its
    baseline starts (None: no ink; cached: a few dozen characters at a few dozen sizes)."""
    mask, offset = _plain_font(spec, size).getmask2(character, mode="L", anchor="ls")
    return (mask if mask.size[0] and mask.size[1] else None), offset


def _speckle(image: Image.Image, numbers: numpy.random.Generator, count: int, low: int, high: int) -> None:
    """Set ``count`` pixels of ``image``, at places and to greys from ``low`` to ``high`` drawn evenly by
    ``numbers`` (a later pixel wins where two fall together)."""
    import numpy

    width, height = image.size
    places = numbers.integers(0, width * height, count)
    greys = numbers.integers(low, high + 1, count, dtype=numpy.uint8)
    pixels = numpy.array(image, dtype=numpy.uint8)
    pixels.reshape(-1)[places] = greys
    image.frombytes(pixels.tobytes())
