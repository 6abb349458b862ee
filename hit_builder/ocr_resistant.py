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
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, NamedTuple

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
    # Drawn glyph by glyph: about 10 plain images' time for an answer of a few hundred characters
    # (benchmarks/hardened_render.py), so render_many draws in several processes from 200 images.
    cost: ClassVar[float] = 10.0

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


@dataclass(frozen=True)
class Glyph:
    """One character as :func:`lay_out` placed it: from ``x`` (left edge) on baseline ``y``."""

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


@lru_cache(maxsize=65536)
def _advance(spec: str, size: int, character: str) -> float:
    """How far ``character`` advances the pen in font ``spec`` at ``size`` (cached: it is asked per glyph)."""
    return _font(spec, size).getlength(character)


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
        for character in text:
            own, fonts = _fonts_for(self.chain, character)
            if style.font_change == "character":
                pick, extra = rng.random(), rng.randint(0, style.size_jitter)
            spec = fonts[min(int(pick * len(fonts)), len(fonts) - 1)]
            size = matched_size(spec, own, character, style.font_size) + extra
            chosen.append(_Choice(character, spec, size, _advance(spec, size, character),
                                  rng.uniform(*style.letter_spacing),
                                  rng.uniform(-style.max_rotation, style.max_rotation),
                                  rng.uniform(-style.baseline_jitter, style.baseline_jitter), word))
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
    import numpy
    from PIL import Image

    style = _hardened(renderer)
    layout, rng = lay_out(renderer, text, role, where)
    size = (layout.width, layout.height)
    coverage = numpy.zeros((layout.height, layout.width), dtype=numpy.uint8)
    boxes = [_draw_glyph(coverage, g) for g in layout.glyphs]
    background = Image.new("L", size, 255)
    _texture(background, rng, style, renderer.chain, layout.line_pitch, boxes)
    return background, Image.fromarray(coverage), layout


def render_hardened(renderer: Renderer, text: str, role: Role | str, where: str = "text") -> bytes:
    """The OCR-resistant PNG of ``text`` (see the module docstring); ``renderer`` is the
    :class:`~hit_builder.render.Renderer` of the same chain and style."""
    image, ink, layout = compose(renderer, text, role, where)
    image.paste(renderer.style.grey(Role(role)), (0, 0, layout.width, layout.height), ink)
    levels = image.point(lambda v: round(v * (GREY_LEVELS - 1) / 255))
    return encode_grey4_png(_pack4(levels), layout.width, layout.height)


def _pack4(image: Image.Image) -> bytes:
    """Rows of 0–15 levels packed two pixels a byte (high nibble first), as encode_grey4_png expects."""
    import numpy

    pixels = numpy.asarray(image, dtype=numpy.uint8)
    if pixels.shape[1] % 2:
        pixels = numpy.pad(pixels, ((0, 0), (0, 1)))
    return ((pixels[:, 0::2] << 4) | pixels[:, 1::2]).astype(numpy.uint8).tobytes()


class _Upright(NamedTuple):
    """A character drawn upright in the middle of a square canvas, as :func:`_draw_glyph` turns it."""

    canvas: Image.Image
    origin: tuple[float, float]  # where its baseline starts in the canvas
    ink: tuple[int, int, int, int] | None  # the box of its ink in the canvas (None: no ink)


@lru_cache(maxsize=4096)
def _upright(character: str, spec: str, size: int) -> _Upright:
    """``character`` in font ``spec`` at ``size`` on its canvas (cached: the same glyph recurs throughout a
    build, and drawing it is most of what it costs before it is turned)."""
    from PIL import Image, ImageDraw

    font = _font(spec, size)
    side = int(font.size * 2)
    origin = (side / 4, side * 0.7)  # where the glyph's baseline starts in its own square
    canvas = Image.new("L", (side, side), 0)
    ImageDraw.Draw(canvas).text(origin, character, font=font, fill=255, anchor="ls")
    return _Upright(canvas, origin, canvas.getbbox())


def _rotation(angle: float, center: tuple[float, float], translate: tuple[float, float]) -> list[float]:
    """The affine matrix (from the turned image back to the canvas) that Pillow's ``Image.rotate`` makes of
    ``angle``, ``center`` and ``translate``, computed as it computes it."""
    radians = -math.radians(angle % 360.0)
    matrix = [round(math.cos(radians), 15), round(math.sin(radians), 15), 0.0,
              round(-math.sin(radians), 15), round(math.cos(radians), 15), 0.0]
    a, b, c, d, e, f = matrix
    x, y = -center[0] - translate[0], -center[1] - translate[1]
    matrix[2], matrix[5] = a * x + b * y + c, d * x + e * y + f
    matrix[2] += center[0]
    matrix[5] += center[1]
    return matrix


def _reach(matrix: list[float], ink: tuple[int, int, int, int], side: int) -> tuple[int, int, int, int]:
    """The box of the turned image outside which every pixel is 0. A pixel's middle maps (``matrix``) to a
    point of the canvas whose bicubic filter reads the columns ``floor(x - 0.5) - 1`` to ``+ 2`` (and the
    same rows), so it reads ink only from within 1.5 pixels of the ink's box; 2 are allowed here."""
    a, b, c, d, e, f = matrix
    det = a * e - b * d
    corners = [(x, y) for x in (ink[0] - 2, ink[2] + 2) for y in (ink[1] - 2, ink[3] + 2)]
    xs = [(e * (x - c) - b * (y - f)) / det for x, y in corners]  # the inverse map, canvas -> turned image
    ys = [(a * (y - f) - d * (x - c)) / det for x, y in corners]
    return (max(0, math.floor(min(xs) - 0.5)), max(0, math.floor(min(ys) - 0.5)),
            min(side, math.ceil(max(xs) - 0.5) + 1), min(side, math.ceil(max(ys) - 0.5) + 1))


def _draw_glyph(ink: numpy.ndarray, glyph: Glyph) -> tuple[int, int, int, int]:
    """Draw ``glyph`` into ``ink`` (the text's coverage, rows of 8-bit pixels), turned about the middle of its
    baseline; returns its ink's box.

    What turning the whole canvas with ``Image.rotate`` (bicubic) and pasting it gives, but only the box
    the ink can reach is computed (:func:`_reach`; the rest of a turned canvas is 0), with the same matrix
    moved to the box's corner: the same pixels up to the last bit of a coordinate (a pixel could differ by
    one level where its value falls exactly halfway between two; none did in 1,320 images)."""
    import numpy
    from PIL import Image

    upright = _upright(glyph.character, glyph.font, glyph.size)
    origin = upright.origin
    left, top = math.floor(glyph.x - origin[0]), math.floor(glyph.y - origin[1])
    if upright.ink is None:
        return left, top, left, top
    # Turned about the middle of its baseline and moved by the fraction of a pixel the whole-pixel
    # paste below leaves out, so glyphs sit exactly on the wave.
    matrix = _rotation(glyph.angle, (origin[0] + glyph.advance / 2, origin[1]),
                       (glyph.x - origin[0] - left, glyph.y - origin[1] - top))
    x0, y0, x1, y1 = _reach(matrix, upright.ink, upright.canvas.width)
    a, b, c, d, e, f = matrix
    turned = upright.canvas.transform((x1 - x0, y1 - y0), Image.Transform.AFFINE,
                                      (a, b, a * x0 + b * y0 + c, d, e, d * x0 + e * y0 + f),
                                      resample=Image.Resampling.BICUBIC)
    found = turned.getbbox()
    if found is None:
        return left, top, left, top
    # Lighter of the two: overlapping glyphs keep their full coverage (the part inside the image).
    x, y = left + x0, top + y0
    height, width = ink.shape
    cut = (max(0, -y), max(0, -x), min(y1 - y0, height - y), min(x1 - x0, width - x))
    if cut[0] < cut[2] and cut[1] < cut[3]:
        part = numpy.asarray(turned)[cut[0]:cut[2], cut[1]:cut[3]]
        into = ink[y + cut[0]:y + cut[2], x + cut[1]:x + cut[3]]
        numpy.maximum(into, part, out=into)
    return x + found[0], y + found[1], x + found[2], y + found[3]


def _texture(image: Image.Image, rng: random.Random, style: HardenedStyle, chain: FontChain, line_height: int,
             boxes: list[tuple[int, int, int, int]]) -> None:
    """Speckle, faint strokes and decoy characters, none darker than ``texture_darkest``; decoys
    stay ``decoy_clearance`` pixels clear of the glyph ``boxes`` (when it is 0 or more)."""
    from PIL import ImageDraw

    width, height = image.size
    light = style.texture_darkest
    _speckle(image, rng, width * height // 180, light, 245)
    draw = ImageDraw.Draw(image)
    for _ in range(max(3, height // 12)):  # strokes
        x, y = rng.randrange(width), rng.randrange(height)
        points: list[tuple[float, float]] = [(x, y)]
        for _ in range(4):
            points.append((points[-1][0] + rng.uniform(-40, 40), points[-1][1] + rng.uniform(-12, 12)))
        draw.line(points, fill=rng.randint(light, 235), width=rng.choice((1, 2)))
    decoys = "aeorsntlichmdupkbyw" + "的是不了人在有我他这中大来上个们到说"
    decoys = "".join(c for c in decoys if chain.face_of(c) is not None)
    rows = max(1, height // line_height)
    clear = style.decoy_clearance
    for _ in range(style.decoys_per_line * rows):
        character = rng.choice(decoys)
        font = _font(chain.faces[chain.face_of(character) or 0].spec, rng.randint(14, style.font_size))
        x, y = rng.randrange(width), rng.randrange(height)
        fill = rng.randint(light + 8, 240)
        if clear >= 0:
            left, top, right, bottom = _offset(_decoy_box(character, font), x, y)
            if any(left < b[2] + clear and b[0] - clear < right and top < b[3] + clear and b[1] - clear < bottom
                   for b in boxes):
                continue
        draw.text((x, y), character, font=font, fill=fill, anchor="ls")


def _speckle(image: Image.Image, rng: random.Random, count: int, low: int, high: int) -> None:
    """Set ``count`` pixels of ``image`` to greys from ``low`` to ``high``, each drawn from ``rng`` as
    ``randrange(width)``, ``randrange(height)``, ``randint(low, high)`` (a later pixel wins where two fall
    together). The numbers are drawn as ``random.Random`` draws them, from ``getrandbits`` (its
    ``_randbelow``) without the calls around it, and the pixels set at once: the same pixels, and the
    generator left where the loop of ``randrange`` and ``ImageDraw.point`` calls it replaces left it."""
    import numpy

    width, height = image.size
    span = high - low + 1
    bits = rng.getrandbits
    x_bits, y_bits, grey_bits = width.bit_length(), height.bit_length(), span.bit_length()
    greys: dict[int, int] = {}
    for _ in range(count):
        x = bits(x_bits)
        while x >= width:
            x = bits(x_bits)
        y = bits(y_bits)
        while y >= height:
            y = bits(y_bits)
        grey = bits(grey_bits)
        while grey >= span:
            grey = bits(grey_bits)
        greys[y * width + x] = low + grey
    pixels = numpy.array(image, dtype=numpy.uint8)
    pixels.reshape(-1)[numpy.fromiter(greys, dtype=numpy.int64, count=len(greys))] = \
        numpy.fromiter(greys.values(), dtype=numpy.uint8, count=len(greys))
    image.frombytes(pixels.tobytes())


@lru_cache(maxsize=4096)
def _decoy_box(character: str, font: ImageFont.FreeTypeFont) -> tuple[float, float, float, float]:
    """``ImageDraw.textbbox`` of ``character`` at (0, 0), anchored at its baseline's left (cached)."""
    from PIL import Image, ImageDraw

    return ImageDraw.Draw(Image.new("L", (1, 1))).textbbox((0, 0), character, font=font, anchor="ls")


def _offset(box: tuple[float, float, float, float], x: int, y: int) -> tuple[float, float, float, float]:
    """``box`` moved by (x, y), as ``textbbox`` moves the box of a single line of text."""
    return box[0] + x, box[1] + y, box[2] + x, box[3] + y
