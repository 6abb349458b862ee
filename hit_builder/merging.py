"""Merging identical answers at build time (as WMT did): when several systems give the same answer
to a question, the answer is rated once and the rating counts for every system that gave it.

Rule: two answers to one question are identical when their texts are equal after trimming and
collapsing runs of whitespace (what the worker sees is then the same image). The item kept is the
first in build order (system name, then question id); the others are recorded in
``Campaign.settings["identical_answers"]`` and ``da_platform.rating.merged`` gives every one of
them a copy of each rating of the kept item, so the analysis sees one rating row per system.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

RULE = "equal text after trimming and collapsing whitespace, per question; the first system by name is rated"


T = TypeVar("T")


def same_text_key(text: str) -> str:
    """What must be equal for two answers to be merged."""
    return " ".join(text.split())


@dataclass(frozen=True)
class MergePlan(Generic[T]):
    """The items to rate and, per kept item, the systems whose identical answers it stands for."""

    kept: list[T]
    items_before: int
    groups: list[dict[str, Any]] = field(default_factory=list)

    @property
    def saved(self) -> int:
        return self.items_before - len(self.kept)

    def describe(self) -> dict[str, Any]:
        """The record stored with the campaign (read back by ``da_platform.rating.merged``)."""
        return {"merged": True, "rule": RULE, "items_before": self.items_before, "items_rated": len(self.kept),
                "saved": self.saved, "groups": self.groups}


def merge_identical(items: Sequence[T], *, question_of: Callable[[T], Hashable], system_of: Callable[[T], Hashable],
                    question_name: Callable[[T], str], system_name: Callable[[T], str],
                    text_of: Callable[[T], str]) -> MergePlan[T]:
    """Keep the first item of each (question, same text) group; record the others' systems.

    The accessors give each item's question key, system key, question id as shown in the ratings
    (external id), system name, and answer text.
    """
    first: dict[tuple[Any, str], int] = {}
    also: dict[int, list[str]] = {}
    kept: list[T] = []
    for item in items:
        key = (question_of(item), same_text_key(text_of(item)))
        if key in first:
            also[first[key]].append(system_name(item))
            continue
        first[key] = len(kept)
        also[len(kept)] = []
        kept.append(item)
    groups = [{"question": question_name(kept[i]), "rated_as": system_name(kept[i]), "also": names}
              for i, names in also.items() if names]
    groups.sort(key=lambda g: (g["question"], g["rated_as"]))
    return MergePlan(kept, len(items), groups)
