"""One worker's plots (PNG bytes, matplotlib Agg): original vs degraded scores, and their timeline."""
from __future__ import annotations

import io

import numpy as np

from analysis.table import BAD_REF, NO_LINK, RatingsTable


def worker_rows(table: RatingsTable, worker: str) -> np.ndarray:
    """Row indices of the ratings ``worker`` gave (not the copies for merged answers), in the order given."""
    if worker not in table.worker.labels:
        return np.array([], dtype=np.int64)
    return np.flatnonzero((table.worker.codes == table.worker.labels.index(worker)) & ~table.copies())


def check_pairs(table: RatingsTable, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(original row, degraded row) of each BAD_REF pair among ``rows``."""
    bad = rows[(table.slot_type[rows] == BAD_REF) & (table.original[rows] != NO_LINK)]
    return table.original[bad], bad


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def _png(figure) -> bytes:
    out = io.BytesIO()
    figure.tight_layout()
    figure.savefig(out, format="png")
    return out.getvalue()


def scatter_png(table: RatingsTable, worker: str) -> bytes:
    """Each BAD_REF pair as a point: original score (x) against degraded score (y), with the diagonal."""
    originals, degraded = check_pairs(table, worker_rows(table, worker))
    figure = _figure(4.2, 4.0)
    ax = figure.subplots()
    ax.plot([0, 100], [0, 100], color="#999999", linewidth=0.8, linestyle="--", label="degraded = original")
    ax.scatter(table.score[originals], table.score[degraded], s=22, color="#1a5fb4", alpha=0.75,
               label=f"{len(degraded)} pairs")
    ax.set_xlim(-3, 103)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("original answer's score")
    ax.set_ylabel("degraded copy's score")
    ax.set_title("Below the diagonal: the damage was noticed", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    return _png(figure)


def timeline_png(table: RatingsTable, worker: str) -> bytes:
    """Every rating in the order given (grey), originals (blue) and degraded copies (red) linked."""
    rows = worker_rows(table, worker)
    order = {row: i for i, row in enumerate(rows.tolist())}
    originals, degraded = check_pairs(table, rows)
    figure = _figure(8.0, 3.0)
    ax = figure.subplots()
    ax.scatter(np.arange(len(rows)), table.score[rows], s=6, color="#bbbbbb", label="all ratings")
    for o, d in zip(originals.tolist(), degraded.tolist()):
        ax.plot([order[o], order[d]], [table.score[o], table.score[d]], color="#dddddd", linewidth=0.6, zorder=1)
    ax.scatter([order[o] for o in originals.tolist()], table.score[originals], s=16, color="#1a5fb4",
               label="original", zorder=2)
    ax.scatter([order[d] for d in degraded.tolist()], table.score[degraded], s=16, color="#c01c28",
               label="degraded copy", zorder=2)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("rating number (order given)")
    ax.set_ylabel("score")
    ax.legend(loc="lower right", fontsize=7, ncol=3)
    return _png(figure)
