"""Standardised scores, item scores and system scores (docs/method.md §7).

- z-scores per worker per group over *all* of that worker's raw ratings (every slot type, before
  any filtering), with the sample standard deviation (n − 1); a worker whose standard deviation is
  0 (or who gave a single rating) is excluded unless ``sd_zero`` says otherwise. The copies of a merged
  identical answer's rating (``RatingsTable.copies``) are not ratings the worker gave: they are left out
  of the mean and sd, and each gets its source rating's z (it has its score and its worker).
- Only workers who passed quality control count, and only ``SYSTEM`` and ``REPEAT`` ratings.
- Item score = mean of its ratings; system score = mean of its item scores (raw and z both).
- ``N`` = ratings counted, ``n`` = distinct items.

Numeric paths (``ScoreSettings``, docs/method.md §8 and §11):

- ``exact`` (default): each worker's mean and sd from integer sums (sd = sqrt of the exactly computed
  variance, correctly rounded); an item's z-score adds one term per rating worker, that worker's
  deviations summed in integers divided by its sd, with a correctly rounded sum (``math.fsum``). Item scores that
  are equal in exact arithmetic for that reason (the same workers with the same total deviations)
  are bit-identical whatever the order of the rows, so the rank-sum test sees them as ties.
- ``wmt``: WMT's scripts digit for digit: mean and sd printed at 7 significant digits (R), each z
  printed at 15 (Perl), item means by R's ``mean()`` printed at 15, system means by R's ``mean()``.

``z_digits`` rounds each worker's mean and sd to that many significant digits before standardising
(7 = R's print, as WMT's ``ad-*-trk-mean-sd.txt`` files). Raters whose sd is 0 are excluded
(default), kept in raw scores only (``raw-only``, WMT21) or given z = 0 (``zero``, WMT22).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analysis.grouping import Grouping, group_by
from analysis.summation import canonical_means, canonical_sums, r_means, segment_fsums, significant
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
        """Item-level z-scores of one system (items without a z-score, see ``sd_zero``, left out)."""
        z = self.z[self.system == system]
        return z[~np.isnan(z)]


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


NUMERIC_PATHS = ("exact", "wmt")
SD_ZERO_RULES = ("exclude", "raw-only", "zero")


@dataclass(frozen=True)
class ScoreSettings:
    """How z-scores and means are computed (docs/method.md §7, §8, §11), recorded with the results."""

    numeric: str = "exact"  # exact | wmt
    z_digits: int | None = None
    sd_zero: str = "exclude"  # exclude | raw-only | zero
    item_means: str = ("integer sums per (item, worker), each worker's term divided by its sd, terms "
                       "added exactly and rounded once (math.fsum): equal in exact arithmetic => bit-identical")

    def __post_init__(self) -> None:
        if self.numeric not in NUMERIC_PATHS:
            raise ValueError(f"unknown numeric path {self.numeric!r}; expected one of {', '.join(NUMERIC_PATHS)}")
        if self.sd_zero not in SD_ZERO_RULES:
            raise ValueError(f"unknown rule for raters with sd 0 {self.sd_zero!r}; expected one of "
                             f"{', '.join(SD_ZERO_RULES)}")

    @classmethod
    def wmt(cls, sd_zero: str = "raw-only") -> ScoreSettings:
        """WMT's path: mean/sd printed at 7 digits, z at 15 (Perl), R means printed at 15, test on those."""
        return cls("wmt", 7, sd_zero, "R mean() (80-bit sum + correction pass) of the z printed at 15 "
                   "significant digits, printed at 15 significant digits")


def compute_scores(table: RatingsTable, passed: Mapping[str, frozenset[str]] | None = None, *,
                   z_digits: int | None = None, settings: ScoreSettings | None = None,
                   worker_stats: Mapping[tuple[str, str], tuple[float, float]] | None = None
                   ) -> dict[str, GroupScores]:
    """Scores per group; ``passed`` maps group → workers who passed QC (None: everyone counts).

    ``settings`` chooses the numeric path and what raters with sd 0 get (``z_digits`` is a shortcut
    for ``ScoreSettings(z_digits=...)``). ``worker_stats`` gives (mean, sd) per (group, worker) as a
    release published them (``ad-*-trk-mean-sd.txt``): z is then computed with those.
    """
    settings = settings or ScoreSettings(z_digits=z_digits)
    workers = group_by(table.group.codes, table.worker.codes)
    group_of_worker = table.group.codes[workers.first]
    worker_name = [table.worker.labels[c] for c in table.worker.codes[workers.first]]
    if table.given_z is not None:
        return _scores_of_given_z(table, passed, settings, workers, group_of_worker, worker_name)
    scores = table.score.astype(np.int64)
    basis = _worker_basis(table, workers, scores, group_of_worker, worker_name, settings.z_digits, worker_stats)
    included, in_z, standardisation = _worker_inclusion(table, passed, settings, basis, group_of_worker,
                                                        worker_name)
    rows = np.flatnonzero(included[workers.index] & _scored_types(table))
    w_rows = workers.index[rows]
    items = group_by(table.group.codes[rows], table.system.codes[rows], table.item.codes[rows])
    z_row = in_z[w_rows]
    if settings.numeric == "wmt":
        item_raw, item_z = _item_means_wmt(items, scores[rows], basis, w_rows, z_row)
    else:
        item_raw, item_z = _item_means_exact(items, scores[rows], basis, w_rows, z_row)
    item_z = np.where(np.bincount(items.index[z_row], minlength=items.n) > 0, item_z, np.nan)
    return _group_scores(table, settings, rows[items.first], items.counts(), item_raw, item_z, standardisation)


@dataclass(frozen=True)
class _WorkerBasis:
    """Per (group, worker): ratings ``n``, integer sum of scores ``total``, and the mean and sd z uses."""

    n: np.ndarray
    total: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    exact: bool  # mean = total / n (neither given nor rounded): deviations are summed in integers


def _worker_basis(table: RatingsTable, workers: Grouping, scores: np.ndarray, group_of_worker: np.ndarray,
                  worker_name: list[str], digits: int | None,
                  worker_stats: Mapping[tuple[str, str], tuple[float, float]] | None) -> _WorkerBasis:
    """Each worker's mean and sample sd from integer sums, or as given (``worker_stats``), or rounded.

    Over the ratings the worker gave: a copy of a rating for another system that gave the same answer
    (``RatingsTable.copies``) is not one, so it does not weigh that rating again; it gets its source's z."""
    given = ~table.copies()
    index, given_scores = workers.index[given], scores[given]
    n = np.bincount(index, minlength=workers.n)
    total = np.bincount(index, weights=given_scores, minlength=workers.n).astype(np.int64)
    squares = np.bincount(index, weights=given_scores * given_scores, minlength=workers.n).astype(np.int64)
    mean = np.array([t / k for t, k in zip(total.tolist(), n.tolist())], dtype=np.float64)
    sd = np.array([math.sqrt((k * q - t * t) / (k * (k - 1))) if k > 1 else math.nan
                   for t, q, k in zip(total.tolist(), squares.tolist(), n.tolist())], dtype=np.float64)
    if worker_stats is not None:
        for w in range(workers.n):
            key = (table.group.labels[group_of_worker[w]], worker_name[w])
            if key not in worker_stats:
                raise ValueError(f"no mean and sd given for worker {key[1]!r} in {key[0]!r}")
            mean[w], sd[w] = worker_stats[key]
    elif digits is not None:
        mean, sd = significant(mean, digits), significant(sd, digits)
    return _WorkerBasis(n, total, mean, sd, exact=worker_stats is None and digits is None)


def _worker_inclusion(table: RatingsTable, passed: Mapping[str, frozenset[str]] | None, settings: ScoreSettings,
                      basis: _WorkerBasis, group_of_worker: np.ndarray, worker_name: list[str]
                      ) -> tuple[np.ndarray, np.ndarray, dict[int, list[WorkerStandardisation]]]:
    """Per worker: counted at all, counted in z-scores, and the record of why (by group code)."""
    included = np.zeros(len(worker_name), dtype=bool)  # counted at all
    in_z = np.zeros(len(worker_name), dtype=bool)  # counted in z-scores
    standardisation: dict[int, list[WorkerStandardisation]] = {}
    for w, name in enumerate(worker_name):
        group = table.group.labels[group_of_worker[w]]
        if passed is not None and name not in passed.get(group, frozenset()):
            ok, z_ok, reason = False, False, "did not pass quality control"
        elif basis.sd[w] > 0:
            ok, z_ok, reason = True, True, "included"
        elif settings.sd_zero == "exclude":
            ok, z_ok, reason = False, False, "standard deviation 0 (or a single rating): excluded"
        elif settings.sd_zero == "zero":
            ok, z_ok, reason = True, True, "standard deviation 0: z = 0 for every rating (WMT22 rule)"
        else:
            ok, z_ok, reason = True, False, "standard deviation 0: counted in raw scores only (WMT21 rule)"
        included[w], in_z[w] = ok, z_ok
        standardisation.setdefault(int(group_of_worker[w]), []).append(
            WorkerStandardisation(name, int(basis.n[w]), float(basis.mean[w]), float(basis.sd[w]), ok, reason))
    return included, in_z, standardisation


def _scored_types(table: RatingsTable) -> np.ndarray:
    """Rows whose slot type counts in scores: ``SYSTEM`` and ``REPEAT``."""
    return (table.slot_type == SYSTEM) | (table.slot_type == REPEAT)


def _item_means_wmt(items: Grouping, scores: np.ndarray, basis: _WorkerBasis, w_rows: np.ndarray,
                    z_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Item raw and z means of the counted rows as WMT's scripts print them (z and means at 15 digits)."""
    positive = basis.sd[w_rows] > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(positive, (scores - basis.mean[w_rows]) / basis.sd[w_rows], 0.0)
    z = significant(z, 15)
    item_raw = significant(r_means(items.index, scores.astype(np.float64), items.n), 15)
    item_z = significant(r_means(items.index[z_row], z[z_row], items.n), 15)
    return item_raw, item_z


def _item_means_exact(items: Grouping, scores: np.ndarray, basis: _WorkerBasis, w_rows: np.ndarray,
                      z_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Item raw means (integer sums: exact) and z means of the counted rows, one correctly rounded term
    per (item, worker): the worker's summed deviations over the item, exact in integers (or from the
    given/rounded mean), divided by the worker's sd."""
    item_raw = items.sums(scores.astype(np.float64)) / items.counts()
    n_workers = len(basis.n)
    key = items.index[z_row].astype(np.int64) * n_workers + w_rows[z_row]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]]) if len(key) else key
    p_item, p_worker = sorted_key[starts] // n_workers, sorted_key[starts] % n_workers
    k = np.diff(np.r_[starts, len(key)])
    s = np.add.reduceat(scores[z_row][order], starts) if len(key) else key
    if basis.exact:
        deviation = (basis.n[p_worker] * s - k * basis.total[p_worker]) / basis.n[p_worker]
    else:
        deviation = s - k * basis.mean[p_worker]
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(basis.sd[p_worker] > 0, deviation / basis.sd[p_worker], 0.0)
        item_z = np.zeros(items.n)
        if len(term):  # p_item is sorted: the terms of one item are consecutive
            first = np.flatnonzero(np.r_[True, p_item[1:] != p_item[:-1]])
            item_z[p_item[first]] = segment_fsums(term, first)
        item_z = item_z / np.bincount(items.index[z_row], minlength=items.n)
    return item_raw, item_z


def _group_scores(table: RatingsTable, settings: ScoreSettings, item_rows: np.ndarray, item_n: np.ndarray,
                  item_raw: np.ndarray, item_z: np.ndarray,
                  standardisation: dict[int, list[WorkerStandardisation]]) -> dict[str, GroupScores]:
    """System scores (means of their item scores), ranked best first, with the item scores, per group."""
    item_group = table.group.codes[item_rows]
    item_system = table.system.codes[item_rows]
    systems = group_by(item_group, item_system)
    has_z = ~np.isnan(item_z)
    mean = r_means if settings.numeric == "wmt" else canonical_means
    sys_raw = mean(systems.index, item_raw, systems.n)
    sys_z = mean(systems.index[has_z], item_z[has_z], systems.n)
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
            key=lambda s: (-s.z if not math.isnan(s.z) else math.inf, s.system))
        mask = item_group == g
        result[table.group.labels[g]] = GroupScores(
            group=table.group.labels[g],
            systems=tuple(ranked),
            items=ItemScores(system_labels[item_system[mask]].astype(str),
                             item_labels[table.item.codes[item_rows[mask]]].astype(str),
                             item_raw[mask], item_z[mask], item_n[mask]),
            workers=tuple(standardisation.get(g, [])),
        )
    return result


def _scores_of_given_z(table: RatingsTable, passed: Mapping[str, frozenset[str]] | None,
                       settings: ScoreSettings, workers: Grouping, group_of_worker: np.ndarray,
                       worker_name: list[str]) -> dict[str, GroupScores]:
    """Scores of a table whose z-scores are given (raw scores unknown: NaN): item and system z only."""
    included = np.array([passed is None or worker_name[w] in passed.get(table.group.labels[group_of_worker[w]],
                                                                        frozenset()) for w in range(workers.n)],
                        dtype=bool)
    n = workers.counts()
    standardisation: dict[int, list[WorkerStandardisation]] = {}
    for w in range(workers.n):
        reason = "z-scores given by the source" if included[w] else "did not pass quality control"
        standardisation.setdefault(int(group_of_worker[w]), []).append(
            WorkerStandardisation(worker_name[w], int(n[w]), math.nan, math.nan, bool(included[w]), reason))
    rows = np.flatnonzero(included[workers.index] & _scored_types(table))
    items = group_by(table.group.codes[rows], table.system.codes[rows], table.item.codes[rows])
    item_rows = rows[items.first]
    item_n = items.counts()
    assert table.given_z is not None
    z = table.given_z[rows]
    if settings.numeric == "wmt":
        item_z = significant(r_means(items.index, z, items.n), 15)
    else:
        item_z = canonical_sums(items.index, z, items.n) / item_n
    item_group, item_system = table.group.codes[item_rows], table.system.codes[item_rows]
    systems = group_by(item_group, item_system)
    mean = r_means if settings.numeric == "wmt" else canonical_means
    sys_z = mean(systems.index, item_z, systems.n)
    sys_ratings = systems.sums(item_n.astype(np.float64)).astype(np.int64)
    sys_items = systems.counts()
    sys_group = item_group[systems.first]
    system_labels = np.array(table.system.labels, dtype=object)
    item_labels = np.array(table.item.labels, dtype=object)
    result: dict[str, GroupScores] = {}
    for g in np.unique(table.group.codes).tolist():
        ranked = sorted((SystemScore(table.system.labels[item_system[systems.first[s]]], math.nan, float(sys_z[s]),
                                     int(sys_ratings[s]), int(sys_items[s])) for s in np.flatnonzero(sys_group == g)),
                        key=lambda s: (-s.z, s.system))
        mask = item_group == g
        result[table.group.labels[g]] = GroupScores(
            table.group.labels[g], tuple(ranked),
            ItemScores(system_labels[item_system[mask]].astype(str),
                       item_labels[table.item.codes[item_rows[mask]]].astype(str),
                       np.full(int(mask.sum()), np.nan), item_z[mask], item_n[mask]),
            tuple(standardisation.get(g, [])))
    return result
