"""Standardised scores, item scores and system scores (SPEC §7).

- z-scores per worker per group over *all* of that worker's raw ratings (every slot type, before
  any filtering), with the sample standard deviation (n − 1); a worker whose standard deviation is
  0 (or who gave a single rating) is excluded.
- Only workers who passed quality control count, and only ``SYSTEM`` and ``REPEAT`` ratings.
- Item score = mean of its ratings; system score = mean of its item scores (raw and z both).
- ``N`` = ratings counted, ``n`` = distinct items.

``z_digits`` reproduces releases whose scripts rounded each worker's mean and standard deviation
before standardising: WMT's R scripts printed them with R's default 7 significant digits (the
``ad-*-trk-mean-sd.txt`` files) and standardised with the printed values. None = full precision.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from analysis.grouping import group_by
from analysis.table import REPEAT, SYSTEM, RatingsTable


@dataclass(frozen=True)
class SystemScore:
    """One system's scores in one group."""

    system: str
    raw: float
    z: float
    n_ratings: int  # N
    n_items: int  # n


@dataclass(frozen=True)
class ItemScores:
    """Item scores of one group, one entry per (system, item)."""

    system: np.ndarray  # str
    item: np.ndarray  # str
    raw: np.ndarray
    z: np.ndarray
    n_ratings: np.ndarray

    def z_of(self, system: str) -> np.ndarray:
        """Item-level z-scores of one system."""
        return self.z[self.system == system]


@dataclass(frozen=True)
class WorkerStandardisation:
    """A worker's mean and standard deviation used for z, and whether they count."""

    worker: str
    n_ratings: int
    mean: float
    sd: float
    included: bool
    reason: str


@dataclass(frozen=True)
class GroupScores:
    """Scores of one group (campaign / language pair)."""

    group: str
    systems: tuple[SystemScore, ...]  # sorted by z, best first
    items: ItemScores
    workers: tuple[WorkerStandardisation, ...]

    def by_system(self) -> dict[str, SystemScore]:
        return {s.system: s for s in self.systems}


def compute_scores(table: RatingsTable, passed: Mapping[str, frozenset[str]] | None = None, *,
                   z_digits: int | None = None) -> dict[str, GroupScores]:
    """Scores per group; ``passed`` maps group → workers who passed QC (None: everyone counts)."""
    workers = group_by(table.group.codes, table.worker.codes)
    scores = table.score.astype(np.float64)
    n = workers.counts()
    mean = workers.means(scores)
    squares = np.bincount(workers.index, weights=(scores - mean[workers.index]) ** 2, minlength=workers.n)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(squares / (n - 1))
    if z_digits is not None:
        mean = np.array([_significant(m, z_digits) for m in mean])
        sd = np.array([_significant(s, z_digits) for s in sd])

    group_of_worker = table.group.codes[workers.first]
    worker_name = [table.worker.labels[c] for c in table.worker.codes[workers.first]]
    included = np.zeros(workers.n, dtype=bool)
    standardisation: dict[int, list[WorkerStandardisation]] = {}
    for w in range(workers.n):
        group = table.group.labels[group_of_worker[w]]
        if not sd[w] > 0:
            ok, reason = False, "standard deviation 0 (or a single rating): excluded"
        elif passed is not None and worker_name[w] not in passed.get(group, frozenset()):
            ok, reason = False, "did not pass quality control"
        else:
            ok, reason = True, "included"
        included[w] = ok
        standardisation.setdefault(int(group_of_worker[w]), []).append(
            WorkerStandardisation(worker_name[w], int(n[w]), float(mean[w]), float(sd[w]), ok, reason))

    counted = included[workers.index] & ((table.slot_type == SYSTEM) | (table.slot_type == REPEAT))
    rows = np.flatnonzero(counted)
    w_rows = workers.index[rows]
    raw = scores[rows]
    z = (raw - mean[w_rows]) / sd[w_rows]
    items = group_by(table.group.codes[rows], table.system.codes[rows], table.item.codes[rows])
    item_rows = rows[items.first]
    item_n = items.counts()
    item_raw = items.sums(raw) / item_n
    item_z = items.sums(z) / item_n
    item_group = table.group.codes[item_rows]
    item_system = table.system.codes[item_rows]

    systems = group_by(item_group, item_system)
    sys_raw = systems.means(item_raw)
    sys_z = systems.means(item_z)
    sys_items = systems.counts()
    sys_ratings = systems.sums(item_n.astype(np.float64)).astype(np.int64)
    sys_group = item_group[systems.first]

    system_labels = np.array(table.system.labels, dtype=object)
    item_labels = np.array(table.item.labels, dtype=object)
    result: dict[str, GroupScores] = {}
    for g in np.unique(table.group.codes).tolist():
        in_group = sys_group == g
        ranked = sorted(
            (SystemScore(table.system.labels[item_system[systems.first[s]]], float(sys_raw[s]), float(sys_z[s]),
                         int(sys_ratings[s]), int(sys_items[s])) for s in np.flatnonzero(in_group)),
            key=lambda s: (-s.z, s.system))
        mask = item_group == g
        result[table.group.labels[g]] = GroupScores(
            group=table.group.labels[g],
            systems=tuple(ranked),
            items=ItemScores(system_labels[item_system[mask]].astype(str), item_labels[table.item.codes[item_rows[mask]]].astype(str),
                             item_raw[mask], item_z[mask], item_n[mask]),
            workers=tuple(standardisation.get(g, [])),
        )
    return result


def _significant(value: float, digits: int) -> float:
    """Round to ``digits`` significant digits, as R prints numbers."""
    if not math.isfinite(value) or value == 0:
        return value
    return float(f"{value:.{digits}g}")
