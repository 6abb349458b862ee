"""Answer images (docs/method.md §4): text wrapped to a fixed width, drawn with a font chain, saved as small PNGs.

Answers are shown as images so that bots cannot read them and workers cannot paste them into a
language model. One image per text and role: the reference is drawn in grey, the candidate in black.

Line breaking: at spaces for space-separated scripts and between characters for CJK/Thai (using
:func:`da_core.text.tokenize` tokens), never before closing punctuation such as ``，`` ``。``
``)`` nor after opening brackets; a word wider than the line is broken between characters; ``\\n`` is
a hard break.

Drawing: a line is a row of units (words, CJK characters); each unit is drawn once per renderer
with the font of the chain that has its characters and then pasted wherever it recurs (a word
cache: far faster than drawing every glyph again). Paragraphs in scripts that need shaping (Arabic,
Hebrew, Devanagari and other Indic scripts, ...) are laid out and drawn a line at a time by
Pillow's raqm layout (bidirectional text, joining, reordering), with one font for the paragraph and
right-aligned when the paragraph is right-to-left. Without raqm such text fails with
:class:`ShapingUnavailableError` rather than showing wrongly drawn words.

Resolution: images are drawn with ``RenderStyle.scale`` (2) pixels per CSS pixel and served with a
``srcset`` density descriptor, so a 720-pixel image is shown 360 CSS px wide: sharp on 2x screens, and
its 18 CSS px text fits a 390 px phone unscaled (never smaller than the page's 16 px body text).

PNG: 16 grey levels as a 4-bit greyscale image (antialiased text needs no more), about 4–10 kB per
answer at 2x.
"""
from __future__ import annotations

import enum
import multiprocessing
import os
import re
import struct
import threading
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from typing import ClassVar

from da_core.errors import BuildError
from hit_builder.degrade import token_spans
from hit_builder.fonts import FontChain
from hit_builder.storage import ImageStorage

# Blocks whose text is wrong without shaping; the name is what the error message says.
COMPLEX_SCRIPTS = (
    (0x0590, 0x05FF, "Hebrew"), (0x0600, 0x06FF, "Arabic"), (0x0700, 0x074F, "Syriac"),
    (0x0750, 0x077F, "Arabic"), (0x0780, 0x07BF, "Thaana"), (0x07C0, 0x07FF, "N'Ko"),
    (0x0800, 0x085F, "Samaritan/Mandaic"), (0x0870, 0x08FF, "Arabic"), (0x0900, 0x097F, "Devanagari"),
    (0x0980, 0x09FF, "Bengali"), (0x0A00, 0x0A7F, "Gurmukhi"), (0x0A80, 0x0AFF, "Gujarati"),
    (0x0B00, 0x0B7F, "Oriya"), (0x0B80, 0x0BFF, "Tamil"), (0x0C00, 0x0C7F, "Telugu"),
    (0x0C80, 0x0CFF, "Kannada"), (0x0D00, 0x0D7F, "Malayalam"), (0x0D80, 0x0DFF, "Sinhala"),
    (0x0F00, 0x0FFF, "Tibetan"), (0x1000, 0x109F, "Myanmar"), (0x1780, 0x17FF, "Khmer"),
    (0xA8E0, 0xA8FF, "Devanagari"), (0xFB1D, 0xFB4F, "Hebrew"), (0xFB50, 0xFDFF, "Arabic"),
    (0xFE70, 0xFEFE, "Arabic"),
)
_COMPLEX = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high, _ in COMPLEX_SCRIPTS) + "]")
NO_BREAK_BEFORE = frozenset("，。、．：；！？）」』】〉》〕］｝…‥,.;:!?)]}%’”")
NO_BREAK_AFTER = frozenset("（「『【〈《〔［｛([{‘“")
GREY_LEVELS = 16
PNG_COMPRESSION = 4  # zlib level: the knee of size against time for text images (6 is 2x slower, 4% smaller)
_WORD_CACHE_LIMIT = 50_000
# Fewer plain images' worth than this are rendered in the calling process: about 3 s of drawing, which two
# processes finish in about two thirds of the time for the same CPU (forked, they share what the caller loaded;
# benchmarks/hardened_render.py, docs/benchmarks-log.md).
PARALLEL_THRESHOLD = 1_000


class ShapingUnavailableError(BuildError):
    """Text needs shaping (Arabic, Hebrew, Devanagari, ...) but Pillow was built without raqm."""


class Role(str, enum.Enum):
    """Which answer an image shows: the grey reference or the black candidate."""

    reference = "reference"
    candidate = "candidate"


@dataclass(frozen=True)
class RenderStyle:
    """Everything that decides how an image looks (recorded with the campaign)."""

    width: int = 720  # pixels, fixed for every image
    font_size: int = 36  # pixels (18 CSS px at scale 2: never smaller than a phone's 16 px body text)
    padding: int = 12
    reference_grey: int = 0x66  # multiples of 17 are exact in the 16-level palette (#666: 5.7:1 on white)
    candidate_grey: int = 0x00
    scale: int = 2  # image pixels per CSS pixel: drawn for 2x screens, shown 360 CSS px wide (srcset "2x")
    # What drawing an image costs, in plain images: render_many draws in several processes from
    # PARALLEL_THRESHOLD plain images' worth (not a field: it is no part of how an image looks).
    cost: ClassVar[float] = 1.0

    @property
    def css_width(self) -> float:
        """Width at which the page shows the image, in CSS pixels."""
        return self.width / self.scale

    def grey(self, role: Role) -> int:
        return self.reference_grey if Role(role) is Role.reference else self.candidate_grey

    def describe(self) -> dict:
        return {**asdict(self), "png": f"{GREY_LEVELS}-level greyscale, 4 bits per pixel, zlib level {PNG_COMPRESSION}"}


def complex_script(text: str) -> str | None:
    """Name of the first script in ``text`` that needs shaping, or None."""
    found = _COMPLEX.search(text)
    if found is None:
        return None
    code = ord(found.group())
    return next(name for low, high, name in COMPLEX_SCRIPTS if low <= code <= high)


def shaping_available() -> bool:
    """Whether the installed Pillow can shape text (it was built with libraqm)."""
    from PIL import features

    return bool(features.check("raqm"))


def check_shaping(text: str, where: str, *, available: bool) -> None:
    """Fail clearly when ``text`` needs shaping and ``available`` is False."""
    script = complex_script(text)
    if script and not available:
        raise ShapingUnavailableError(
            f"{where}: the text is in {script}, which needs text shaping, but this Pillow was built "
            "without libraqm, so it cannot be drawn correctly. Install Pillow with raqm support "
            "(e.g. Debian's python3-pil, or pip's Pillow wheels with libraqm0 installed)."
        )


def _is_rtl(text: str) -> bool:
    for character in text:
        direction = unicodedata.bidirectional(character)
        if direction in ("R", "AL"):
            return True
        if direction == "L":
            return False
    return False


@dataclass(frozen=True)
class _Unit:
    width: float
    pieces: tuple  # (x offset of the mask, y offset from the baseline, mask image)


class Renderer:
    """Draws texts with one font chain and one style; cheap to call many times (word cache)."""

    def __init__(self, chain: FontChain, style: RenderStyle = RenderStyle(), *,
                 shaping: bool | None = None, word_cache: int = _WORD_CACHE_LIMIT) -> None:
        from PIL import ImageFont

        self.chain = chain
        self.style = style
        self.shaping = shaping_available() if shaping is None else shaping
        self.fonts = [ImageFont.truetype(f.path, style.font_size, index=f.index) for f in chain.faces]
        metrics = [font.getmetrics() for font in self.fonts]
        self.ascent = max(a for a, _ in metrics)
        self.line_height = self.ascent + max(d for _, d in metrics)
        space_face = chain.face_of(" ")
        self.space_width = self.fonts[space_face or 0].getlength(" ")
        self.text_width = style.width - 2 * style.padding
        self._units: dict[str, _Unit] = {}
        self._word_cache = word_cache  # units kept before the cache is emptied (0: draw every word)

    # -- layout ----------------------------------------------------------------------------------
    def _runs(self, text: str) -> list[tuple[int, str]]:
        """Split ``text`` into runs drawn by the same face."""
        runs: list[tuple[int, str]] = []
        for character in text:
            face = self.chain.face_of(character)
            if face is None:
                self.chain.check(text, "text to render")
                # check() raised unless the character is a layout one (tab, line break): laid out, never drawn
                raise ValueError(f"{character!r} cannot be drawn as text (in {text!r})")
            if runs and runs[-1][0] == face:
                runs[-1] = (face, runs[-1][1] + character)
            else:
                runs.append((face, character))
        return runs

    def _unit(self, text: str) -> _Unit:
        unit = self._units.get(text)
        if unit is None:
            x = 0.0
            pieces = []
            for face, run in self._runs(text):
                font = self.fonts[face]
                # One call lays out and rasterises the run: an 8-bit coverage mask and its offset
                # from the baseline origin (the same mask ImageDraw.text would paste).
                mask, (left, top) = font.getmask2(run, mode="L", anchor="ls")
                width, height = mask.size
                if width and height:
                    pieces.append((round(x) + left, top, mask))
                x += font.getlength(run)
            unit = _Unit(x, tuple(pieces))
            if len(self._units) >= self._word_cache:
                self._units.clear()
            if self._word_cache:
                self._units[text] = unit
        return unit

    @staticmethod
    def units(paragraph: str) -> list[tuple[str, bool]]:
        """Break units of a paragraph as ``(text, space_before)``: words and CJK characters."""
        raw: list[tuple[str, bool]] = []
        previous_end = 0
        for start, end in token_spans(paragraph):
            raw.append((paragraph[start:end], start > previous_end))
            previous_end = end
        merged: list[tuple[str, bool]] = []
        for text, space_before in raw:
            glued = merged and not space_before and (
                text[0] in NO_BREAK_BEFORE or merged[-1][0][-1] in NO_BREAK_AFTER)
            if glued:
                merged[-1] = (merged[-1][0] + text, merged[-1][1])
            else:
                merged.append((text, space_before))
        return merged

    def _split_wide(self, text: str) -> list[str]:
        """Break a unit wider than the line between characters (combining marks stay with their base)."""
        pieces, current = [], ""
        for character in text:
            candidate = current + character
            if current and not unicodedata.combining(character) and self._width(candidate) > self.text_width:
                pieces.append(current)
                current = character
            else:
                current = candidate
        return pieces + [current] if current else pieces

    def _width(self, text: str) -> float:
        return sum(self.fonts[face].getlength(run) for face, run in self._runs(text))

    def wrap(self, text: str) -> list[list[tuple[float, str]]]:
        """Lines of ``(x, unit)`` for the fast path (text that needs no shaping)."""
        lines: list[list[tuple[float, str]]] = []
        for paragraph in paragraphs(text):
            line: list[tuple[float, str]] = []
            x = 0.0
            for unit_text, space_before in self.units(paragraph):
                width = self._unit(unit_text).width
                gap = self.space_width if space_before and line else 0.0
                if line and x + gap + width > self.text_width:
                    lines.append(line)
                    line, x, gap = [], 0.0, 0.0
                if width > self.text_width:
                    for piece in self._split_wide(unit_text):
                        piece_width = self._unit(piece).width
                        if line and x + piece_width > self.text_width:
                            lines.append(line)
                            line, x = [], 0.0
                        line.append((x, piece))
                        x += piece_width
                    continue
                line.append((x + gap, unit_text))
                x += gap + width
            lines.append(line)
        return lines

    def _shaped_lines(self, paragraph: str, where: str) -> tuple[object, list[str]]:
        """Font and wrapped lines of a paragraph drawn by raqm (complex scripts)."""
        visible = [c for c in paragraph if not c.isspace()]
        face = next((i for i, f in enumerate(self.chain.faces)
                     if all(ord(c) in f.codepoints for c in visible)), None)
        if face is None:
            raise BuildError(
                f"{where}: a paragraph in a script that needs shaping is drawn with one font, but no "
                f"font of the chain covers all of it: {paragraph[:60]!r}"
            )
        font = self.fonts[face]
        lines, line = [], ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if line and font.getlength(candidate) > self.text_width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
        return font, lines

    # -- drawing ---------------------------------------------------------------------------------
    def render(self, text: str, role: Role | str, where: str = "text") -> bytes:
        """The PNG image of ``text`` in the colour of ``role``."""
        draw = getattr(self.style, "draw", None)  # a style that draws its own images: build --render hardened
        if draw is not None:
            return draw(self, text, role, where)
        from PIL import Image, ImageDraw

        self.chain.check(text, where)
        check_shaping(text, where, available=self.shaping)
        level = round(self.style.grey(Role(role)) * (GREY_LEVELS - 1) / 255)
        rows: list[tuple] = []  # ("units", [(x, unit)]) or ("shaped", font, line, rtl)
        if complex_script(text):
            for paragraph in paragraphs(text):
                if complex_script(paragraph):
                    font, shaped = self._shaped_lines(paragraph, where)
                    rtl = _is_rtl(paragraph)
                    rows += [("shaped", font, line, rtl) for line in shaped]
                else:
                    rows += [("units", line) for line in self.wrap(paragraph)]
        else:
            rows = [("units", line) for line in self.wrap(text)]
        padding = self.style.padding
        # Drawn straight in the 16 output levels: background 15 (white), text the role's level; the
        # antialiased edges are blended between the two by the paste itself.
        image = Image.new("P", (self.style.width, 2 * padding + len(rows) * self.line_height), GREY_LEVELS - 1)
        core = image.im
        for number, row in enumerate(rows):
            baseline = padding + self.ascent + number * self.line_height
            if row[0] == "units":
                for x, unit_text in row[1]:
                    for dx, dy, mask in self._unit(unit_text).pieces:
                        left, top = padding + round(x) + dx, baseline + dy
                        width, height = mask.size
                        # The core paste (what Image.paste calls) clips at the edges; calling it
                        # directly saves half of the drawing time.
                        core.paste(level, (left, top, left + width, top + height), mask)
            else:
                _, font, line, rtl = row
                mask = Image.new("L", (self.style.width, self.line_height), 0)
                x = padding + (self.text_width - font.getlength(line) if rtl else 0)
                ImageDraw.Draw(mask).text((x, self.ascent), line, font=font, fill=255, anchor="ls")
                top = baseline - self.ascent
                core.paste(level, (0, top, self.style.width, top + self.line_height), mask.im)
        return encode_grey4_png(image.tobytes("raw", "P;4"), image.width, image.height)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_grey4_png(packed: bytes, width: int, height: int, level: int = PNG_COMPRESSION,
                     strategy: int = zlib.Z_DEFAULT_STRATEGY) -> bytes:
    """A 4-bit greyscale PNG (levels 0–15 = 0, 17, ..., 255) from rows packed two pixels a byte, compressed
    at zlib ``level`` with ``strategy``.

    Written directly rather than by Pillow because Pillow has no 4-bit greyscale output and its
    palette writer spends most of its time choosing row filters that do not pay on text images:
    unfiltered rows at zlib level 4 take half the time and come out a few per cent smaller.
    """
    import numpy

    row = (width + 1) // 2
    rows = numpy.zeros((height, row + 1), numpy.uint8)  # each row: filter byte 0 (none), pixels
    rows[:, 1:] = numpy.frombuffer(packed, numpy.uint8).reshape(height, row)
    header = struct.pack(">IIBBBBB", width, height, 4, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", _deflate(rows.tobytes(), level, strategy))
            + _chunk(b"IEND", b""))


def _deflate(data: bytes, level: int, strategy: int) -> bytes:
    """``data`` deflated as a zlib stream (``zlib.compress`` itself for the default strategy: plain images)."""
    if strategy == zlib.Z_DEFAULT_STRATEGY:
        return zlib.compress(data, level)
    packer = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS, zlib.DEF_MEM_LEVEL, strategy)
    return packer.compress(data) + packer.flush()


def paragraphs(text: str) -> list[str]:
    """Paragraphs of ``text``: split at line breaks (any convention), tabs as spaces, ends stripped."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ").strip().split("\n")


# -- many images, in parallel ------------------------------------------------------------------------
class RenderProcessDied(BuildError):
    """A worker process of :func:`render_many` died before finishing its images (killed or crashed)."""


_worker: tuple[Renderer, ImageStorage] | None = None


def _init_worker(font_specs: list[str], style: RenderStyle, shaping: bool, storage: ImageStorage) -> None:
    global _worker
    _worker = (Renderer(FontChain.load(font_specs), style, shaping=shaping), storage)


def _render_chunk(jobs: list[tuple[str, str, str]]) -> list[str]:
    if _worker is None:
        raise RuntimeError("_render_chunk runs in render_many's worker (set by _init_worker), not on its own")
    renderer, storage = _worker
    return storage.put_many([renderer.render(text, role, where) for text, role, where in jobs])


def _start_method() -> str:
    """``fork`` (fast, and no re-import of the caller's main module) unless threads are running,
    which a forked child could inherit in a locked state; then ``spawn``, which needs the caller's
    script to be import-safe (``if __name__ == "__main__":``)."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def rendering_processes(images: int, style: RenderStyle) -> int:
    """How many processes :func:`render_many` draws ``images`` of ``style`` in when not told: all cores from
    ``PARALLEL_THRESHOLD`` plain images' worth (``style.cost`` each), else one."""
    return (os.cpu_count() or 1) if images * style.cost >= PARALLEL_THRESHOLD else 1


def render_many(renderer: Renderer, jobs: Sequence[tuple[str, Role | str, str]], storage: ImageStorage, *,
                processes: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Render and store every ``(text, role, where)`` job; returns the storage keys in order.

    ``processes`` None means :func:`rendering_processes`. Worker processes build their own renderer from the same
    fonts and style; see :func:`_start_method` for how they are started. They get the jobs in chunks of
    at most 250, at least four a process, so that they finish together.
    """
    total = len(jobs)
    if processes is None:
        processes = rendering_processes(total, renderer.style)
    normalized = [(text, Role(role).value, where) for text, role, where in jobs]
    keys: list[str] = []
    if progress:
        progress(0, total)
    chunk = max(1, min(250, -(-total // (4 * processes))))
    chunks = [normalized[i:i + chunk] for i in range(0, total, chunk)]
    if processes <= 1:
        global _worker
        _worker = (renderer, storage)
        try:
            for part in chunks:
                keys += _render_chunk(part)
                if progress:
                    progress(len(keys), total)
        finally:
            _worker = None
        return keys
    # An executor, not a multiprocessing.Pool: when a worker process dies (killed, e.g. by the system running
    # out of memory, or crashed in a native library) a Pool silently replaces it and waits forever for the
    # chunk it had; the executor notices and says so.
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context(_start_method()),
                             initializer=_init_worker,
                             initargs=(renderer.chain.specs, renderer.style, renderer.shaping, storage)) as pool:
        try:
            for rendered in pool.map(_render_chunk, chunks):
                keys += rendered
                if progress:
                    progress(len(keys), total)
        except BrokenProcessPool:
            raise RenderProcessDied(
                f"a process rendering the answer images stopped before it finished ({len(keys)} of {total} "
                "images were done): it was killed (often by the system when memory runs out) or crashed. "
                "The campaign was not built; build again (with fewer rendering processes if memory is short)") from None
    return keys
