"""Vectorised grouping helpers: integer keys for combinations of categorical codes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Grouping:
    """Rows grouped by a key: ``index[i]`` is row i's group (0..n-1); ``first[g]`` one row of group g.

    ``order`` lists the rows group by group (stable, so file order is kept inside a group) and
    ``starts`` the position in ``order`` where each group begins.
    """

    index: np.ndarray
    first: np.ndarray
    order: np.ndarray
    starts: np.ndarray

    @property
    def n(self) -> int:
        return len(self.first)

    def counts(self) -> np.ndarray:
        return np.bincount(self.index, minlength=self.n)

    def sums(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.index, weights=values, minlength=self.n)

    def means(self, values: np.ndarray) -> np.ndarray:
        """Group means (NaN for empty groups)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums(values) / self.counts()

    def rows(self, group: int) -> np.ndarray:
        """Row indices of one group, in table order."""
        end = self.starts[group + 1] if group + 1 < self.n else len(self.order)
        return self.order[self.starts[group]:end]


def group_by(*codes: np.ndarray) -> Grouping:
    """Group rows by the combination of several non-negative integer code arrays."""
    if not codes or len(codes[0]) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Grouping(empty, empty, empty, empty)
    key = np.asarray(codes[0], dtype=np.int64)
    for column in codes[1:]:
        column = np.asarray(column, dtype=np.int64)
        key = key * (int(column.max()) + 1) + column
    unique, first, index = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(index, kind="stable")
    starts = np.searchsorted(index[order], np.arange(len(unique)))
    return Grouping(index.astype(np.int64), first, order, starts)
