"""Group means that do not depend on the order of the rows, and R's ``mean`` for WMT compatibility.

``canonical_means``: each group's values are added exactly and rounded once (``math.fsum``, a
correctly rounded sum), then divided by the count, so the result is a function of the group's
*multiset* of values alone: permuting the rows can never move a mean by an ulp (docs/method.md §8).

``r_means``: what R's ``mean()`` of a double vector returns: the sum in file order in 80-bit
extended precision (``long double``), divided by n, plus a second pass adding the mean of the
residuals, rounded to double at the end. WMT's R scripts computed item and system means this way.

``significant``: round to n significant digits as C's ``printf("%.{n}g")`` does, i.e. what R's
``print`` (7 digits), R's ``write.table`` (15 digits) and Perl's default output (15 digits) write.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


def canonical_means(index: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Mean of ``values`` per group (``index[i]`` = row i's group), independent of row order."""
    sums = canonical_sums(index, values, n_groups)
    counts = np.bincount(index, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def canonical_sums(index: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum of ``values`` per group, correctly rounded (``math.fsum``): exact sum, rounded once (0 if empty)."""
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros(n_groups, dtype=np.float64)
    if len(values) == 0:
        return out
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    out[sorted_index[starts]] = segment_fsums(values[order], starts)
    return out


def segment_fsums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``math.fsum`` of each run ``values[starts[i]:starts[i + 1]]`` (runs are consecutive)."""
    data = values.tolist()
    bounds = [*starts.tolist(), len(data)]
    return np.array([math.fsum(data[a:b]) for a, b in itertools.pairwise(bounds)], dtype=np.float64)


def _sequential_segment_sums(values: np.ndarray, starts: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    """Left-to-right sums of consecutive segments (one vector step per position inside a segment)."""
    ends = np.r_[starts[1:], len(values)]
    lengths = ends - starts
    sums = np.zeros(len(starts), dtype=dtype)
    for k in range(int(lengths.max()) if len(lengths) else 0):
        alive = lengths > k
        sums[alive] += values[starts[alive] + k].astype(dtype)
    return sums


def r_means(index: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """R's ``mean()`` per group, values taken in row order (NaN for empty groups)."""
    values = np.asarray(values, dtype=np.float64)
    out = np.full(n_groups, np.nan)
    if len(values) == 0:
        return out
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    ordered = values[order].astype(np.longdouble)
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    counts = np.diff(np.r_[starts, len(values)]).astype(np.longdouble)
    mean = _sequential_segment_sums(ordered, starts, np.longdouble) / counts
    segment = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(values)]))
    residuals = ordered - mean[segment]
    mean = mean + _sequential_segment_sums(residuals, starts, np.longdouble) / counts
    out[sorted_index[starts]] = mean.astype(np.float64)
    return out


def significant(values: np.ndarray, digits: int) -> np.ndarray:
    """Each value rounded to ``digits`` significant digits as ``printf("%.{digits}g")`` prints it."""
    fmt = f"%.{digits}g"
    flat = np.asarray(values, dtype=np.float64).ravel()
    return np.array([float(fmt % v) for v in flat.tolist()], dtype=np.float64).reshape(np.shape(values))
