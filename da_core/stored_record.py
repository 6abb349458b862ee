"""Frozen dataclasses stored as one JSON object each (the quality-control and review policies, the MTurk and
Prolific settings): reading, writing and changing them, written once.

A class mixes in :class:`StoredRecord` and names its fields for messages (``what``); ``from_dict`` refuses
unknown keys (naming them) and takes missing ones from the defaults, ``to_dict`` writes the fields in their order
with the values ``stored_values`` writes otherwise (money as text, tuples as lists, states as their values), and
``with_changes`` replaces the fields given (None: unchanged), as a command line's options do.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields, replace
from typing import Any, ClassVar, TypeVar

Record = TypeVar("Record", bound="StoredRecord")


class StoredRecord:
    """Mixin of a frozen dataclass stored as one JSON object (module docstring)."""

    what: ClassVar[str]
    """What one field is called in messages, e.g. ``"MTurk setting"``."""

    @classmethod
    def from_dict(cls: type[Record], data: Mapping[str, Any] | None) -> Record:
        """The record stored as :meth:`to_dict` wrote it (missing keys: the defaults; unknown ones: a
        ``ValueError`` naming them)."""
        data = dict(data or {})
        made: Any = cls  # a dataclass (mypy cannot tell from the mixin)
        unknown = sorted(set(data) - {f.name for f in fields(made)})
        if unknown:
            raise ValueError(f"unknown {cls.what}(s): {', '.join(unknown)}")
        return made(**data)

    def to_dict(self) -> dict[str, Any]:
        """The fields as stored, in their order."""
        record: Any = self
        return {**asdict(record), **self.stored_values()}

    def stored_values(self) -> dict[str, Any]:
        """The fields written otherwise than ``dataclasses.asdict`` gives them (none unless a class says)."""
        return {}

    def with_changes(self: Record, **changes: Any) -> Record:
        """This record with the given fields changed (None: unchanged)."""
        record: Any = self
        return replace(record, **{k: v for k, v in changes.items() if v is not None})
