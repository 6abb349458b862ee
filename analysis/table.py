"""The ratings table every analysis function works on: one row per rating, stored column-wise.

Text columns (group, worker, hit, system, item, slot) are categorical: an ``int32`` code per row
and a tuple of labels, so that grouping is integer arithmetic with numpy. Rows keep the order in
which each worker gave the ratings within a HIT (readers keep file order, the database loader
orders by slot position); the "longest run of identical scores" diagnostic relies on it.

A check (``REPEAT``, ``BAD_REF``, ``REF``, ``MEANING``) links to the row of its original ``SYSTEM`` slot rated
by the same worker in the same HIT through ``original`` (row index, ``-1`` for none).
"""
from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from da_core.errors import InputError

if TYPE_CHECKING:
    from analysis.evidence import RatingEvidence

SLOT_TYPES: tuple[str, ...] = ("SYSTEM", "REPEAT", "BAD_REF", "REF", "MEANING")
SYSTEM, REPEAT, BAD_REF, REF, MEANING = range(5)
"""Codes of ``RatingsTable.slot_type`` (index into ``SLOT_TYPES``)."""

NO_LINK = -1

COPY_MARK = "/"
"""A row copying a rating of a merged identical answer for another system (``da_platform.merged_ratings``)
has slot id ``<slot>/<system>`` and HIT ``<HIT>/<system>``: the worker gave one rating, counted for
several systems."""


@dataclass(frozen=True)
class Categorical:
    """A text column: ``labels[codes[i]]`` is row i's value."""

    codes: np.ndarray
    labels: tuple[str, ...]

    @classmethod
    def from_values(cls, values: Sequence[str]) -> Categorical:
        """Encode values in order of first appearance (fast for millions of rows)."""
        return _encode(values)[0]

    def __len__(self) -> int:
        return len(self.codes)

    def values(self) -> list[str]:
        """Decoded values, one per row."""
        labels = self.labels
        return [labels[c] for c in self.codes.tolist()]

    def take(self, rows: np.ndarray) -> Categorical:
        """The rows selected by an index or boolean array (labels unchanged)."""
        return Categorical(self.codes[rows], self.labels)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of acyclic objects.

    Rows and columns of strings create no reference cycles, but their sheer number triggers
    repeated full collections that would triple the reading time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _encode(values: Sequence[str]) -> tuple[Categorical, dict[str, int]]:
    """Categorical column and its label → code mapping (C-speed dict and map, no Python loop)."""
    labels = tuple(dict.fromkeys(values))
    index = dict(zip(labels, range(len(labels))))
    codes = np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))
    return Categorical(codes, labels), index


class RatingRecord(NamedTuple):
    """One rating as plain values (what readers produce and writers consume)."""

    group: str
    worker: str
    hit: str
    system: str
    item: str
    slot_type: str
    slot: str
    original_slot: str  # "" for SYSTEM slots
    score: int
    seconds: float  # time on item; NaN when unknown


@dataclass(frozen=True)
class RatingsTable:
    """Ratings column by column; see the module docstring for the meaning of each column.

    ``group`` is the campaign (platform) or language pair (WMT); z-scores, quality control and
    rankings are computed per group.
    """

    group: Categorical
    worker: Categorical
    hit: Categorical
    system: Categorical
    item: Categorical
    slot_type: np.ndarray  # int8 codes into SLOT_TYPES
    slot: Categorical
    original: np.ndarray  # int64 row index of the original SYSTEM rating, NO_LINK if none
    score: np.ndarray  # int32, 0-100
    seconds: np.ndarray  # float64 time on item, NaN when unknown
    given_z: np.ndarray | None = None  # z-scores a source gives instead of raw scores (WMT good-stnd); score is 0
    evidence: RatingEvidence | None = None  # behaviour records and texts (database loader only)

    def __len__(self) -> int:
        return len(self.score)

    @classmethod
    def from_columns(
        cls,
        *,
        group: Sequence[str],
        worker: Sequence[str],
        hit: Sequence[str],
        system: Sequence[str],
        item: Sequence[str],
        slot_type: Sequence[str],
        slot: Sequence[str],
        original_slot: Sequence[str],
        score: Sequence[int] | np.ndarray,
        seconds: Sequence[float] | np.ndarray | None = None,
        source: str | None = None,
        first_line: int = 1,
        evidence: RatingEvidence | None = None,
    ) -> RatingsTable:
        """Build and validate a table from equally long columns of plain values.

        ``original_slot`` names the slot id a check was made from ("" for none); it is resolved to
        the row where the same worker rated that slot in the same HIT. ``source`` and
        ``first_line`` (the line of row 0) locate errors.
        """
        n = len(score)
        for name, column in (("group", group), ("worker", worker), ("hit", hit), ("system", system),
                             ("item", item), ("slot_type", slot_type), ("slot", slot),
                             ("original_slot", original_slot)):
            if len(column) != n:
                raise ValueError(f"column {name} has {len(column)} values, score has {n}")
        type_index = {name: code for code, name in enumerate(SLOT_TYPES)}
        try:
            types = np.fromiter(map(type_index.__getitem__, slot_type), dtype=np.int8, count=n)
        except KeyError:
            row = next(i for i, t in enumerate(slot_type) if t not in type_index)
            raise InputError(f"unknown slot type {slot_type[row]!r} (expected one of {', '.join(SLOT_TYPES)})",
                             file=source, line=first_line + row, field="slot_type") from None
        scores = _integer_scores(score, source, first_line)
        times = np.full(n, np.nan) if seconds is None else _float_column(seconds, "seconds", source, first_line)
        groups, workers, hits = (Categorical.from_values(group), Categorical.from_values(worker),
                                 Categorical.from_values(hit))
        slots, slot_index = _encode(slot)
        original = _link_originals(groups, workers, hits, slots, slot_index, types, original_slot, source,
                                   first_line)
        if evidence is not None and len(evidence) != n:
            raise ValueError(f"evidence has {len(evidence)} rows, score has {n}")
        return cls(groups, workers, hits, Categorical.from_values(system), Categorical.from_values(item),
                   types, slots, original, scores, times, evidence=evidence)

    @classmethod
    def from_records(cls, records: Iterable[RatingRecord], *, source: str | None = None) -> RatingsTable:
        """Build a table from ``RatingRecord`` tuples."""
        rows = list(records)
        # Columns of different element types, keyed by from_columns' parameter names.
        columns: dict[str, Any] = ({name: [] for name in RatingRecord._fields} if not rows
                                   else dict(zip(RatingRecord._fields, map(list, zip(*rows)))))
        return cls.from_columns(**columns, source=source)

    def records(self) -> Iterable[RatingRecord]:
        """The rows as ``RatingRecord`` tuples (checks name their original's slot id)."""
        cols = [c.values() for c in (self.group, self.worker, self.hit, self.system, self.item)]
        slots = self.slot.values()
        originals = ["" if o == NO_LINK else slots[o] for o in self.original.tolist()]
        types = [SLOT_TYPES[t] for t in self.slot_type.tolist()]
        for row in zip(*cols, types, slots, originals, self.score.tolist(), self.seconds.tolist()):
            yield RatingRecord(*row)

    def groups(self) -> tuple[str, ...]:
        """Group labels that have rows, in order of first appearance."""
        present = np.unique(self.group.codes)
        return tuple(self.group.labels[c] for c in present)

    def select(self, rows: np.ndarray) -> RatingsTable:
        """The sub-table of the given rows (boolean mask or sorted indices); links are re-indexed."""
        index = np.flatnonzero(rows) if rows.dtype == bool else np.asarray(rows, dtype=np.int64)
        new_position = np.full(len(self) + 1, NO_LINK, dtype=np.int64)
        new_position[index] = np.arange(len(index))
        original = self.original[index]
        original = np.where(original == NO_LINK, NO_LINK, new_position[original])
        return RatingsTable(self.group.take(index), self.worker.take(index), self.hit.take(index),
                            self.system.take(index), self.item.take(index), self.slot_type[index],
                            self.slot.take(index), original, self.score[index], self.seconds[index],
                            None if self.given_z is None else self.given_z[index],
                            None if self.evidence is None else self.evidence.take(index))

    def copies(self) -> np.ndarray:
        """Boolean mask of the rows that copy a rating for a merged identical answer (:data:`COPY_MARK`):
        they count in scores, but they are not ratings the worker gave (no time, no HIT of their own)."""
        if len(self) == 0:
            return np.zeros(0, dtype=bool)
        return np.array([COPY_MARK in s for s in self.slot.labels], dtype=bool)[self.slot.codes]

    def describe(self) -> Mapping[str, int]:
        """Counts for messages: ratings, groups, workers, systems, per slot type."""
        counts = np.bincount(self.slot_type, minlength=len(SLOT_TYPES))
        return {"ratings": len(self), "groups": len(np.unique(self.group.codes)),
                "workers": len(np.unique(self.worker.codes)), "systems": len(np.unique(self.system.codes)),
                **{name: int(c) for name, c in zip(SLOT_TYPES, counts)}}


def _integer_scores(values: Sequence[int] | np.ndarray, source: str | None, first_line: int) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        scores = array.astype(np.int32)
    else:
        try:
            numbers = array.astype(np.int64) if array.dtype.kind == "U" else None
        except ValueError:
            numbers = None
        if numbers is None:
            try:
                numbers = array.astype(np.float64)
            except ValueError:
                numbers = None
        if numbers is None or not np.all(np.isfinite(numbers)) or not np.all(numbers == np.round(numbers)):
            row = next(i for i, v in enumerate(values) if not _is_integer_text(v))
            raise InputError(f"score {values[row]!r} is not an integer", file=source,
                             line=first_line + row, field="score")
        scores = numbers.astype(np.int32)
    bad = np.flatnonzero((scores < 0) | (scores > 100))
    if len(bad):
        raise InputError(f"score {int(scores[bad[0]])} is outside 0-100", file=source,
                         line=first_line + int(bad[0]), field="score")
    return scores


def _is_integer_text(value: Any) -> bool:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return number == number and number == round(number)


def _float_column(values: Sequence[float] | np.ndarray, field: str, source: str | None,
                  first_line: int) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind == "f":
        return array.astype(np.float64)
    if array.dtype.kind in "iu":
        return array.astype(np.float64)
    try:
        return array.astype(np.float64)
    except ValueError:
        pass
    try:
        return np.array([np.nan if v in ("", "NA") else v for v in array.tolist()], dtype=np.float64)
    except ValueError:
        for row, v in enumerate(array.tolist()):
            try:
                float(v)
            except ValueError:
                if v not in ("", "NA"):
                    raise InputError(f"{v!r} is not a number", file=source, line=first_line + row,
                                     field=field) from None
        raise


def _link_originals(groups: Categorical, workers: Categorical, hits: Categorical, slots: Categorical,
                    slot_code: dict[str, int], types: np.ndarray, original_slot: Sequence[str], source: str | None,
                    first_line: int) -> np.ndarray:
    """Row index of each check's original: the same worker's rating of that slot in the same HIT."""
    n = len(types)
    original = np.full(n, NO_LINK, dtype=np.int64)
    if n == 0:
        return original
    linked = np.flatnonzero(np.fromiter(map(bool, original_slot), dtype=bool, count=n))
    sizes = [len(c.labels) + 1 for c in (groups, workers, hits, slots)]
    if float(np.prod(np.array(sizes, dtype=np.float64))) >= 2.0**62:
        raise ValueError("too many distinct groups, workers, HITs and slots to link checks")

    def key(rows: np.ndarray, slot_codes: np.ndarray) -> np.ndarray:
        k = groups.codes[rows].astype(np.int64)
        for column, size in ((workers, sizes[1]), (hits, sizes[2])):
            k = k * size + column.codes[rows]
        return k * sizes[3] + slot_codes

    keys = key(np.arange(n), slots.codes.astype(np.int64))
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    repeated = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    if len(repeated):
        i = int(max(order[repeated[0]], order[repeated[0] + 1]))
        raise InputError(f"slot {slots.labels[slots.codes[i]]!r} is rated twice by this worker in this HIT",
                         file=source, line=first_line + i, field="slot")
    if not len(linked):
        return original
    target_slot = np.fromiter((slot_code.get(original_slot[i], -1) for i in linked.tolist()),
                              dtype=np.int64, count=len(linked))
    wanted = key(linked, target_slot)
    position = np.minimum(np.searchsorted(sorted_keys, wanted), max(n - 1, 0))
    found = (sorted_keys[position] == wanted) & (target_slot >= 0)
    if not found.all():
        i = int(linked[np.argmin(found)])
        raise InputError(f"check refers to slot {original_slot[i]!r}, which this worker did not rate "
                         "in this HIT", file=source, line=first_line + i, field="original_slot")
    target = order[position]
    not_system = np.flatnonzero(types[target] != SYSTEM)
    if len(not_system):
        i, t = int(linked[not_system[0]]), int(target[not_system[0]])
        raise InputError(f"check refers to slot {original_slot[i]!r}, which is a "
                         f"{SLOT_TYPES[types[t]]} slot, not SYSTEM", file=source,
                         line=first_line + i, field="original_slot")
    original[linked] = target
    return original
