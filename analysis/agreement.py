"""Inter-rater agreement on items rated by several workers: Krippendorff's α (interval).

Units are (group, system, item); each worker's ordinary (``SYSTEM``) rating of a unit is one value
(a worker who rated a unit twice in ordinary slots counts with their mean). ``REPEAT`` and checks are
left out (a repeat is the same rater again), and so are copies of merged identical answers
(``RatingsTable.copies``), which would count one rating several times.
α is computed in closed form (:func:`_alpha`; equal to the ``krippendorff`` package's, Castro 2017,
which a test checks) on raw scores and on each worker's z-scores; only units with at least two
raters carry information.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analysis.table import SYSTEM, RatingsTable

LIBRARY = "Krippendorff's α, interval metric, in closed form (equal to the krippendorff package, Castro 2017)"


@dataclass(frozen=True)
class Agreement:
    """Krippendorff's α on the units rated by at least two workers (NaN when there are none)."""

    alpha_raw: float
    alpha_z: float
    units: int  # units with at least two raters
    ratings: int  # ratings in those units
    raters: int

    @property
    def enough(self) -> bool:
        return self.units > 0

    def describe(self) -> str:
        if not self.enough:
            return "not enough data yet: no item has been rated by two workers (rate with more than one pass)"
        return (f"Krippendorff's α (interval) = {self.alpha_raw:.3f} on raw scores, {self.alpha_z:.3f} on z-scores; "
                f"{self.units} items rated by 2+ of {self.raters} workers ({self.ratings} ratings)")


def _alpha(matrix: np.ndarray) -> float:
    """Krippendorff's α (interval) of a raters × units matrix (NaN: not rated), in closed form.

    α = 1 − D_o / D_e over the pairable values (units with 2+ values), with the squared difference as
    δ²: D_o = Σ_u S_u / (m_u − 1) / n, D_e = S / (n (n − 1)), where S_u = Σ_{i≠j} (v_i − v_j)² over the
    ordered pairs of unit u (m_u values) = 2 m_u Σ v² − 2 (Σ v)², and S the same over all n values.
    The same number as ``krippendorff.alpha(..., level_of_measurement="interval")`` (a test checks),
    without its units × raters × distinct-values array, which cannot be allocated for continuous
    z-scores at a million ratings.
    """
    if np.count_nonzero(~np.isnan(matrix)) < 2 or np.nanstd(matrix) == 0:
        return math.nan
    present = ~np.isnan(matrix)
    m = present.sum(axis=0)
    pairable = m >= 2
    values = np.where(present, matrix, 0.0)[:, pairable]
    m = m[pairable].astype(np.float64)
    n = m.sum()
    if n < 2:
        return math.nan
    total, squares = values.sum(axis=0), (values ** 2).sum(axis=0)
    observed = float(((2 * m * squares - 2 * total ** 2) / (m - 1)).sum() / n)
    expected = float((2 * n * squares.sum() - 2 * total.sum() ** 2) / (n * (n - 1)))
    return math.nan if expected == 0 else 1.0 - observed / expected


def agreement(table: RatingsTable, workers: frozenset[str] | None = None) -> Agreement:
    """α over ``table``'s ordinary ratings (of ``workers`` only, when given)."""
    keep = (table.slot_type == SYSTEM) & ~table.copies()
    if workers is not None and len(table):
        keep &= np.array([w in workers for w in table.worker.labels], dtype=bool)[table.worker.codes]
    rows = np.flatnonzero(keep)
    if len(rows) == 0:
        return Agreement(math.nan, math.nan, 0, 0, 0)
    scores = table.score.astype(np.float64)
    worker = table.worker.codes
    # z per worker over all of their ratings in the table (as the analysis standardises)
    z = np.full(len(table), math.nan)
    for w in np.unique(worker[rows]).tolist():
        mine = worker == w
        sd = scores[mine].std(ddof=1) if mine.sum() > 1 else 0.0
        if sd > 0:
            z[mine] = (scores[mine] - scores[mine].mean()) / sd
    units: dict[tuple[int, int, int], dict[int, list[int]]] = {}
    for r in rows.tolist():
        key = (int(table.group.codes[r]), int(table.system.codes[r]), int(table.item.codes[r]))
        units.setdefault(key, {}).setdefault(int(worker[r]), []).append(r)
    shared = [u for u in units.values() if len(u) >= 2]
    if not shared:
        return Agreement(math.nan, math.nan, 0, 0, len(np.unique(worker[rows])))
    raters = sorted({w for u in shared for w in u})
    column = {w: i for i, w in enumerate(raters)}
    raw = np.full((len(raters), len(shared)), np.nan)
    zs = np.full((len(raters), len(shared)), np.nan)
    for j, unit in enumerate(shared):
        for w, members in unit.items():
            raw[column[w], j] = scores[members].mean()
            zs[column[w], j] = z[members].mean()
    return Agreement(_alpha(raw), _alpha(zs), len(shared), int(np.count_nonzero(~np.isnan(raw))), len(raters))
