"""OCR-resistant answer images (``build --render hardened``): easy for people, hard for OCR engines.

The text is laid out and wrapped exactly as the plain images (:meth:`hit_builder.render.Renderer.wrap`,
so line breaking stays right for each script), then every character is drawn on its own:

* in a font picked per character from the family of the chain's font (sans, serif, bold, oblique:
  e.g. DejaVu Sans / Serif / Sans Bold / Sans Oblique, Noto Sans CJK / Serif CJK / Sans CJK Bold),
  never a font that lacks the character;
* at a size of ``font_size`` to ``font_size + size_jitter`` pixels (never smaller than the plain images),
  turned by up to ``max_rotation`` degrees, and lifted or lowered from a baseline that waves along
  the line and jumps by up to ``baseline_jitter`` pixels;
* over a light background texture (speckle, strokes and faint decoy characters), never darker than
  ``texture_darkest``, so the text keeps at least WCAG AA contrast (4.5:1) against every background
  pixel: black candidate text ≥ 13:1, the reference drawn in ``#555555`` ≥ 4.6:1 (the plain images'
  ``#666666`` on white is 5.7:1).

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
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, cast

from da_core.errors import BuildError
from hit_builder.fonts import FontChain
from hit_builder.render import (
    GREY_LEVELS,
    Renderer,
    RenderStyle,
    Role,
    complex_script,
    encode_grey4_png,
)

if TYPE_CHECKING:
    from PIL import Image, ImageFont

RENDER_STYLES = ("plain", "hardened")
# Sibling files of a font (same folder), drawn in turn with it: sans, serif, bold, oblique.
_FAMILY = {
    "DejaVuSans.ttf": ("DejaVuSerif.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf",
                       "DejaVuSerif-Italic.ttf"),
    "NotoSansCJK-Regular.ttc": ("NotoSerifCJK-Regular.ttc", "NotoSansCJK-Bold.ttc", "NotoSerifCJK-Bold.ttc"),
}


@dataclass(frozen=True)
class HardenedStyle(RenderStyle):
    """A :class:`RenderStyle` drawn by :func:`render_hardened` (the fields below are the distortions)."""

    ocr_resistant: bool = True
    reference_grey: int = 0x55  # darker than the plain #666: AA contrast against the texture too
    size_jitter: int = 7  # pixels added at most to font_size, per character
    max_rotation: float = 16.0  # degrees, per character
    baseline_jitter: int = 6  # pixels, per character
    wave_amplitude: float = 5.0  # pixels, the baseline's wave along a line
    texture_darkest: int = 0xCC  # no background pixel is darker than this
    decoys_per_line: int = 6  # faint characters in the background

    def describe(self) -> dict:
        return {**asdict(self), "png": f"{GREY_LEVELS}-level greyscale, 4 bits per pixel",
                "renderer": "hit_builder.ocr_resistant"}

    def draw(self, renderer: Renderer, text: str, role: Role | str, where: str = "text") -> bytes:
        """:meth:`Renderer.render` of this style (so that ``render`` needs no import of this module)."""
        return render_hardened(renderer, text, role, where)


def render_style(name: str) -> RenderStyle:
    """The style called ``name``: ``plain`` (today's images) or ``hardened`` (OCR-resistant)."""
    if name == "plain":
        return RenderStyle()
    if name == "hardened":
        return HardenedStyle()
    raise BuildError(f"unknown rendering {name!r}; choose one of {', '.join(RENDER_STYLES)}")


def relative_luminance(grey: int) -> float:
    """WCAG 2 relative luminance of a grey level 0–255."""
    c = grey / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def contrast_ratio(a: int, b: int) -> float:
    """WCAG 2 contrast ratio of two grey levels (1 to 21)."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


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


@lru_cache(maxsize=64)
def _coverage(spec: str) -> FontChain:
    return FontChain.load([spec])


def _fonts_for(chain: FontChain, character: str) -> list[str]:
    """Every variant font that has ``character`` (at least the chain's own face for it)."""
    face = chain.face_of(character)
    own = chain.faces[face or 0].spec
    return [spec for spec in _variants(own) if spec == own or _coverage(spec).face_of(character) is not None]


def render_hardened(renderer: Renderer, text: str, role: Role | str, where: str = "text") -> bytes:
    """The OCR-resistant PNG of ``text`` (see the module docstring); ``renderer`` is the plain
    :class:`~hit_builder.render.Renderer` of the same chain and style (used to wrap the text)."""
    from PIL import Image

    style = cast(HardenedStyle, renderer.style)  # a hardened render's renderer is built with its style
    chain: FontChain = renderer.chain
    chain.check(text, where)
    script = complex_script(text)
    if script:
        raise BuildError(f"{where}: text in {script} needs shaping and cannot be drawn as OCR-resistant "
                         "images; build this campaign with --render plain")
    seed = hashlib.sha256(f"{Role(role).value}\x1f{style!r}\x1f{text}".encode()).hexdigest()
    rng = random.Random(seed)
    grey = style.grey(Role(role))
    largest = style.font_size + style.size_jitter
    wrapper = _wrapper(chain, style, round(largest * 1.12))
    lines = wrapper.wrap(text)
    line_height = wrapper.line_height + 2 * style.baseline_jitter + 4
    width, padding = style.width, style.padding
    height = 2 * padding + len(lines) * line_height
    image = Image.new("L", (width, height), 255)
    _texture(image, rng, style, chain, line_height)
    ink = Image.new("L", (width, height), 0)  # coverage of the text, pasted in its grey at the end
    for number, line in enumerate(lines):
        base = padding + wrapper.ascent + number * line_height + style.baseline_jitter
        phase, period = rng.uniform(0, 2 * math.pi), rng.uniform(90, 160)
        for x0, unit in line:
            x = padding + x0
            for character in unit:
                if character.isspace():
                    x += renderer.space_width
                    continue
                font = _font(rng.choice(_fonts_for(chain, character)),
                             style.font_size + rng.randint(0, style.size_jitter))
                advance = font.getlength(character)
                y = base + style.wave_amplitude * math.sin(phase + x / period * 2 * math.pi) \
                    + rng.uniform(-style.baseline_jitter, style.baseline_jitter)
                _draw_glyph(ink, font, character, x, y, rng.uniform(-style.max_rotation, style.max_rotation))
                x += advance + rng.uniform(0.5, 2.0)
    image.paste(grey, (0, 0, width, height), ink)
    levels = image.point(lambda v: round(v * (GREY_LEVELS - 1) / 255))
    return encode_grey4_png(_pack4(levels), width, height)


def _pack4(image: Image.Image) -> bytes:
    """Rows of 0–15 levels packed two pixels a byte (high nibble first), as encode_grey4_png expects."""
    import numpy

    pixels = numpy.asarray(image, dtype=numpy.uint8)
    if pixels.shape[1] % 2:
        pixels = numpy.pad(pixels, ((0, 0), (0, 1)))
    return ((pixels[:, 0::2] << 4) | pixels[:, 1::2]).astype(numpy.uint8).tobytes()


def _draw_glyph(ink: Image.Image, font: ImageFont.FreeTypeFont, character: str, x: float, y: float,
                angle: float) -> None:
    from PIL import Image, ImageChops, ImageDraw

    size = int(font.size * 2)
    glyph = Image.new("L", (size, size), 0)
    ImageDraw.Draw(glyph).text((size / 4, size * 0.7), character, font=font, fill=255, anchor="ls")
    turned = glyph.rotate(angle, resample=Image.Resampling.BICUBIC, center=(size / 4 + font.size / 3, size * 0.6))
    left, top = round(x - size / 4), round(y - size * 0.7)
    # Lighter of the two: overlapping glyphs keep their full coverage.
    region = (left, top, left + size, top + size)
    current = ink.crop(region)
    ink.paste(ImageChops.lighter(current, turned), region)


def _texture(image: Image.Image, rng: random.Random, style: HardenedStyle, chain: FontChain, line_height: int) -> None:
    """Speckle, faint strokes and decoy characters, none darker than ``texture_darkest``."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    width, height = image.size
    light = style.texture_darkest
    for _ in range(width * height // 180):  # speckle
        x, y = rng.randrange(width), rng.randrange(height)
        draw.point((x, y), fill=rng.randint(light, 245))
    for _ in range(max(3, height // 12)):  # strokes
        x, y = rng.randrange(width), rng.randrange(height)
        points: list[tuple[float, float]] = [(x, y)]
        for _ in range(4):
            points.append((points[-1][0] + rng.uniform(-40, 40), points[-1][1] + rng.uniform(-12, 12)))
        draw.line(points, fill=rng.randint(light, 235), width=rng.choice((1, 2)))
    decoys = "aeorsntlichmdupkbyw" + "的是不了人在有我他这中大来上个们到说"
    decoys = "".join(c for c in decoys if chain.face_of(c) is not None)
    rows = max(1, height // line_height)
    for _ in range(style.decoys_per_line * rows):
        character = rng.choice(decoys)
        font = _font(chain.faces[chain.face_of(character) or 0].spec, rng.randint(14, style.font_size))
        draw.text((rng.randrange(width), rng.randrange(height)), character, font=font,
                  fill=rng.randint(light + 8, 240), anchor="ls")


@lru_cache(maxsize=8)
def _wrapper_cached(specs: tuple[str, ...], width: int, padding: int, size: int) -> Renderer:
    return Renderer(FontChain.load(list(specs)), RenderStyle(width=width, font_size=size, padding=padding),
                    shaping=False)


def _wrapper(chain: FontChain, style: RenderStyle, size: int) -> Renderer:
    """A plain renderer at the largest glyph size, used only to break lines."""
    return _wrapper_cached(tuple(chain.specs), style.width, style.padding, size)
