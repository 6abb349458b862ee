"""How a campaign was built, as stored with it: typed views of the records ``build`` writes once.

Each record is its maker's own description (the ``describe()`` of :mod:`hit_builder`'s assembly, layouts,
degradation, rendering and merging) plus what the build adds (the seed, the image count). The platform reads
a few fields of each, typed here; the whole record is kept as it was stored (``record``), so that no reading
or later writing of a campaign's settings ever rewrites how it was built, whatever version built it.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from da_platform.config.stored_json import json_object, text, whole


@dataclass(frozen=True)
class _Record:
    """A stored record (a JSON object), kept whole."""

    record: Mapping[str, Any] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.record))


@dataclass(frozen=True)
class AssemblyRecord:
    """The HIT assembly: its version, seed and passes, the items, HITs per pass and the wrap-around fill."""

    version: int
    seed: int
    passes: int
    items: int
    hits: int
    hits_per_pass: int
    fill_per_pass: int
    item_order: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> AssemblyRecord:
        data = json_object(data, "the assembly record")
        numbers = {name: whole(data, name) for name in
                   ("version", "seed", "passes", "items", "hits", "hits_per_pass", "fill_per_pass")}
        return cls(**numbers, item_order=text(data, "item_order"))


@dataclass(frozen=True)
class MethodRecord(_Record):
    """How the checks' answers were made (degradation, meaning changes): the method's description and seed."""

    method: str = ""
    seed: int | None = None

    @classmethod
    def described(cls, description: Mapping[str, Any], *, seed: int) -> MethodRecord:
        return cls.from_json({**description, "seed": seed})

    @classmethod
    def from_json(cls, data: object) -> MethodRecord:
        data = json_object(data, "the method record")
        return cls(data, text(data, "method"), whole(data, "seed", None))


@dataclass(frozen=True)
class LayoutRecord(_Record):
    """The HIT layout's description (``hit_builder.layouts.Layout.describe``)."""

    description: str = ""

    @classmethod
    def from_json(cls, data: object) -> LayoutRecord:
        data = json_object(data, "the layout description")
        return cls(data, text(data, "description", ""))


@dataclass(frozen=True)
class CheckOriginals:
    """A targeted layout's rule: which answers its checks copy, by which automatic score."""

    score: str
    rule: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "rule": copy.deepcopy(dict(self.rule))}

    @classmethod
    def from_json(cls, data: object) -> CheckOriginals:
        data = json_object(data, "the check originals record")
        return cls(text(data, "score"), json_object(data.get("rule", {}), "'rule'"))


@dataclass(frozen=True)
class RenderRecord(_Record):
    """The answer images: the render style, fonts, library versions and how many images were drawn.

    ``scale``: image pixels per CSS pixel (campaigns drawn before 2x images: 1); ``width``: the image width in
    pixels (None: not recorded)."""

    images: int = 0
    scale: int = 1
    width: int | None = None

    @classmethod
    def described(cls, style: Mapping[str, Any], *, fonts: list[dict[str, Any]], pillow: str, raqm: bool,
                  images: int) -> RenderRecord:
        return cls.from_json({**style, "fonts": fonts, "pillow": pillow, "raqm": raqm, "images": images})

    @classmethod
    def from_json(cls, data: object) -> RenderRecord:
        data = json_object(data, "the render record")
        return cls(data, whole(data, "images", 0), whole(data, "scale", 1) or 1, whole(data, "width", None) or None)

    @property
    def ocr_resistant(self) -> bool:
        """Drawn with the OCR-resistant (hardened) render."""
        return bool(self.record.get("ocr_resistant"))

    @property
    def css_width(self) -> int | None:
        """The CSS pixels an answer image is shown at (its pixel width / scale); None: unknown."""
        return round(self.width / self.scale) if self.width else None


@dataclass(frozen=True)
class MergedGroup:
    """An answer several systems gave to a question: rated once as ``rated_as``'s, counted for ``also``."""

    question: str
    rated_as: str
    also: tuple[str, ...]


@dataclass(frozen=True)
class MergeRecord(_Record):
    """Identical answers merged at build (``hit_builder.merging``): the items before, how many were saved,
    and the groups."""

    items_before: int = 0
    saved: int = 0
    groups: tuple[MergedGroup, ...] = ()

    @classmethod
    def from_json(cls, data: object) -> MergeRecord:
        data = json_object(data, "the identical answers record")
        groups = data.get("groups") or []
        if not isinstance(groups, list):
            raise ValueError(f"'groups' must be a list, not {groups!r}")
        return cls(data, whole(data, "items_before", 0), whole(data, "saved", 0), tuple(_group(g) for g in groups))


def _group(data: object) -> MergedGroup:
    data = json_object(data, "a merged group")
    also = data.get("also") or []
    if not isinstance(also, list) or not all(isinstance(name, str) for name in also):
        raise ValueError(f"a merged group's 'also' must be a list of system names, not {also!r}")
    return MergedGroup(text(data, "question"), text(data, "rated_as"), tuple(also))


@dataclass(frozen=True)
class LongAnswersRecord(_Record):
    """The answers that take longer to read than the time an item is given (``hit_builder.reading``)."""

    count: int = 0

    @classmethod
    def from_json(cls, data: object) -> LongAnswersRecord:
        data = json_object(data, "the long answers record")
        return cls(data, whole(data, "count", 0))


@dataclass(frozen=True)
class CrowdRecord:
    """The crowd preset a campaign was built for (``build --crowd``: ``da_platform.building.crowds``) and the
    parts (layout, render, qc) an explicit option set otherwise, with the value used."""

    preset: str
    overrides: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "overrides": dict(self.overrides)}

    @classmethod
    def from_json(cls, data: object) -> CrowdRecord:
        data = json_object(data, "the crowd record")
        overrides = data.get("overrides") or {}
        if not isinstance(overrides, Mapping) or not all(isinstance(v, str) for v in overrides.values()):
            raise ValueError(f"'overrides' must map parts to the values used, not {overrides!r}")
        return cls(text(data, "preset"), dict(overrides))
