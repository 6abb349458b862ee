"""The chain of fonts answers are drawn with, and the check that it covers every character.

A font is named ``path`` or ``path#index`` (the face inside a ``.ttc`` collection). The chain is, in
order of preference: the ``font_paths`` passed to the build (the CLI's ``--font``, else ``$DA_FONT``,
paths separated by ``os.pathsep``), else the fonts a fresh Debian/Ubuntu machine gets from ``fonts-noto-cjk`` and
``fonts-dejavu-core``: Noto Sans CJK SC (Chinese, Japanese, Korean and Latin) then DejaVu Sans
(Latin, Greek, Cyrillic, Arabic, Hebrew). Each character is drawn with the first face whose character
map (read with fontTools) has it; a character no face has fails the build (:class:`MissingGlyphError`),
so an image of empty boxes never reaches a worker.
"""
from __future__ import annotations

import functools
import os
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from da_core.errors import BuildError

DEFAULT_FONTS = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc#2",  # Noto Sans CJK SC
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
)
# Characters that are layout, not glyphs: the renderer turns them into line breaks and spaces.
LAYOUT_CHARACTERS = frozenset("\n\r\t")


class FontError(BuildError):
    """A configured font is missing or unreadable, or no font was found at all."""


class MissingGlyphError(BuildError):
    """No font of the chain has a glyph for a character of a text to be rendered."""

    def __init__(self, message: str, *, character: str, where: str) -> None:
        super().__init__(message)
        self.character = character
        self.where = where


def character_label(character: str) -> str:
    """``U+4E2D CJK UNIFIED IDEOGRAPH-4E2D`` — how errors name a character."""
    name = unicodedata.name(character, None) or f"<{unicodedata.category(character)}>"
    return f"U+{ord(character):04X} {name}"


def parse_font_spec(spec: str) -> tuple[str, int]:
    """``"path#2"`` -> ``("path", 2)``; a plain path is face 0."""
    path, _, index = spec.partition("#")
    if index and not index.isdigit():
        raise FontError(f"font {spec!r}: the face after '#' must be a number")
    return path, int(index or 0)


def resolve_font_specs(font_paths: Sequence[str] | None = None) -> list[str]:
    """The chain to use: ``font_paths`` (the CLI passes ``--font`` or ``$DA_FONT``), else the installed
    default fonts."""
    explicit = list(font_paths or [])
    if explicit:
        for spec in explicit:
            if not Path(parse_font_spec(spec)[0]).is_file():
                raise FontError(f"font file not found: {parse_font_spec(spec)[0]}")
        return explicit
    found = [spec for spec in DEFAULT_FONTS if Path(parse_font_spec(spec)[0]).is_file()]
    if not found:
        raise FontError(
            "none of the default fonts is installed (" + ", ".join(parse_font_spec(s)[0] for s in DEFAULT_FONTS)
            + "); install fonts-noto-cjk and fonts-dejavu-core, or name fonts with --font or $DA_FONT"
        )
    return found


@dataclass(frozen=True)
class FontFace:
    """One face of the chain and the code points its character map covers."""

    path: str
    index: int
    name: str
    codepoints: frozenset[int]

    @property
    def spec(self) -> str:
        return f"{self.path}#{self.index}" if self.index else self.path

    @classmethod
    def load(cls, spec: str) -> FontFace:
        path, index = parse_font_spec(spec)
        try:
            stat = os.stat(path)
        except OSError as error:
            raise FontError(f"cannot read font {spec}: {error}") from error
        return _load_face(path, index, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _load_face(path: str, index: int, _mtime_ns: int, _size: int) -> FontFace:
    """Read a face's name and character map (cached: a CJK font's map takes a twentieth of a second)."""
    from fontTools.ttLib import TTFont, TTLibError

    spec = f"{path}#{index}"
    try:
        font = TTFont(path, fontNumber=index, lazy=True)
        # Only the code points are kept, so the glyphs need no names: numbered ones spare reading a CFF font's
        # own (half of the time it takes to read a CJK font's map).
        font.setGlyphOrder([f"glyph{number}" for number in range(font["maxp"].numGlyphs)])
        cmap = font.getBestCmap() or {}
        name = font["name"].getDebugName(4) or Path(path).name
        font.close()
    except (OSError, TTLibError, IndexError, KeyError, AssertionError) as error:
        raise FontError(f"cannot read font {spec}: {error}") from error
    return FontFace(path, index, name, frozenset(cmap))


class FontChain:
    """Faces in order of preference; answers which face draws a character."""

    def __init__(self, faces: Sequence[FontFace]) -> None:
        if not faces:
            raise FontError("the font chain is empty")
        self.faces = tuple(faces)
        self._face_of: dict[str, int | None] = {}

    @classmethod
    def load(cls, font_paths: Sequence[str] | None = None) -> FontChain:
        return cls([FontFace.load(spec) for spec in resolve_font_specs(font_paths)])

    @cached_property
    def specs(self) -> list[str]:
        return [face.spec for face in self.faces]

    def describe(self) -> list[dict]:
        """What the campaign settings record about the fonts."""
        return [{"path": f.path, "index": f.index, "name": f.name} for f in self.faces]

    def face_of(self, character: str) -> int | None:
        """Index of the first face with a glyph for ``character`` (None when no face has one)."""
        try:
            return self._face_of[character]
        except KeyError:
            code = ord(character)
            face = next((i for i, f in enumerate(self.faces) if code in f.codepoints), None)
            self._face_of[character] = face
            return face

    def missing(self, text: str) -> list[str]:
        """Characters of ``text`` (in order of first appearance) that no face can draw."""
        seen = dict.fromkeys(text)
        return [c for c in seen if c not in LAYOUT_CHARACTERS and self.face_of(c) is None]

    def check(self, text: str, where: str) -> None:
        """Raise :class:`MissingGlyphError` naming ``where``, the character and the text."""
        missing = self.missing(text)
        if missing:
            character = missing[0]
            more = f" (and {len(missing) - 1} more character(s))" if len(missing) > 1 else ""
            excerpt = text if len(text) <= 80 else text[:77] + "..."
            fonts = ", ".join(f.name for f in self.faces)
            raise MissingGlyphError(
                f"{where}: no font has a glyph for {character_label(character)} ({character!r}){more} "
                f"in {excerpt!r}. Fonts tried: {fonts}. Add a font that covers it with --font or $DA_FONT.",
                character=character, where=where,
            )

    def check_all(self, texts: Iterable[tuple[str, str]]) -> None:
        """Check many ``(text, where)`` pairs; characters already known to be covered are skipped."""
        covered: set[str] = set()
        for text, where in texts:
            if not covered.issuperset(text):
                self.check(text, where)
                covered.update(text)
