"""What people do at the check items, as the weights of the weighted check test (``analysis.checks``).

Fitted to real crowd workers' ratings (``people_checks.json`` beside this module says on which, and the command
that refits it). Three families of pairs, each a pair of scores a worker gave in one HIT:

- **damaged copies** (``BAD_REF``, ``MEANING``): d = original − copy;
- **references** (``REF``): d = reference − the original it stands beside;
- **repeats** (``REPEAT``): |repeat − original|.

For a damaged or reference pair the weight of a difference of size x at level m (the larger of the two scores,
in the bands of ``LEVEL_EDGES``) is log(f(+x) / f(−x)): how much more often people make this difference in
the direction a reader makes it than in the other, among the fitted pairs at that level (counts smoothed by a
Gaussian kernel of ``BANDWIDTH`` points, ``PSEUDO_COUNT`` added). A repeat's weight is the log of how often
people's repeats differ from their originals by x (same smoothing). These are the log-likelihood ratios of the
most powerful test against the alternative "a person as the fitted ones", so the test weighs each pair by what
people actually do; its null and its size do not depend on them (``analysis.checks``).
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

LEVEL_EDGES: tuple[int, ...] = (20, 40, 60, 80)
"""A pair's level is the number of these edges at or below the larger of its two scores (0-4)."""
BANDWIDTH = 3.0
PSEUDO_COUNT = 0.5
SCALE = 101  # differences 0..100
WEIGHTS_FILE = Path(__file__).with_name("people_checks.json")


@dataclass(frozen=True)
class PairCounts:
    """How often fitted pairs show each difference: ``damaged`` and ``reference`` of shape (levels, 2, 101)
    (index 0: the reader's direction, 1: the other), ``repeat`` of shape (101,)."""

    damaged: np.ndarray
    reference: np.ndarray
    repeat: np.ndarray

    @classmethod
    def empty(cls) -> PairCounts:
        levels = len(LEVEL_EDGES) + 1
        return cls(np.zeros((levels, 2, SCALE)), np.zeros((levels, 2, SCALE)), np.zeros(SCALE))

    def add(self, damaged: tuple[np.ndarray, np.ndarray], reference: tuple[np.ndarray, np.ndarray],
            repeat: tuple[np.ndarray, np.ndarray]) -> None:
        """Count one worker's pairs: (original, copy), (original, reference), (original, repeat) scores."""
        for counts, (first, second) in ((self.damaged, damaged), (self.reference, (reference[1], reference[0]))):
            a, b = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
            d, level = a - b, levels(np.maximum(a, b))
            for direction, chosen in ((0, d > 0), (1, d < 0)):
                flat = (level[chosen] * 2 + direction) * SCALE + np.abs(d[chosen])  # index into counts, flattened
                counts += np.bincount(flat, minlength=counts.size).reshape(counts.shape)
        np.add.at(self.repeat, np.abs(np.asarray(repeat[0], dtype=np.int64) - np.asarray(repeat[1], dtype=np.int64)),
                  1)

    @property
    def pairs(self) -> dict[str, int]:
        """Fitted pairs per family (zero differences included for repeats, left out of the others)."""
        return {"damaged": int(self.damaged.sum()), "reference": int(self.reference.sum()),
                "repeat": int(self.repeat.sum())}


@dataclass(frozen=True)
class PeopleWeights:
    """The weights of the weighted check test (module docstring), in nats."""

    damaged: np.ndarray  # (levels, 101): weight of d = original - copy of size |d|, signed by d
    reference: np.ndarray  # (levels, 101): the same for d = reference - original
    repeat: np.ndarray  # (101,): log share of people's repeats |repeat - original| = x
    source: str  # what they were fitted to, and the command that refits them

    @classmethod
    def fit(cls, counts: PairCounts, source: str) -> PeopleWeights:
        """The weights from counted pairs (module docstring)."""
        def ratio(table: np.ndarray) -> np.ndarray:
            weights = np.log((_smooth(table[:, 0]) + PSEUDO_COUNT) / (_smooth(table[:, 1]) + PSEUDO_COUNT))
            weights[:, 0] = 0.0
            return weights

        density = _smooth(counts.repeat[None, :])[0] + PSEUDO_COUNT
        return cls(ratio(counts.damaged), ratio(counts.reference), np.log(density / density.sum()), source)

    def dumps(self, **extra: Any) -> str:
        """The JSON file's text: one key a line, each table row on a line of its own (``extra``: more keys)."""
        lines = []
        for key, value in {**self.to_json(), **extra}.items():
            if isinstance(value, list) and value and isinstance(value[0], list):
                rows = ",\n  ".join(json.dumps(row) for row in value)
                lines.append(f"{json.dumps(key)}: [\n  {rows}\n ]")
            else:
                lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
        return "{\n " + ",\n ".join(lines) + "\n}\n"

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "level_edges": list(LEVEL_EDGES), "bandwidth": BANDWIDTH,
                "pseudo_count": PSEUDO_COUNT,
                "damaged": [_rounded(row) for row in self.damaged],
                "reference": [_rounded(row) for row in self.reference], "repeat": _rounded(self.repeat)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PeopleWeights:
        if tuple(data["level_edges"]) != LEVEL_EDGES:
            raise ValueError(f"the weights were fitted with levels {data['level_edges']}, not {list(LEVEL_EDGES)}")
        damaged, reference = np.array(data["damaged"], dtype=np.float64), np.array(data["reference"], dtype=np.float64)
        repeat = np.array(data["repeat"], dtype=np.float64)
        shape = (len(LEVEL_EDGES) + 1, SCALE)
        if damaged.shape != shape or reference.shape != shape or repeat.shape != (SCALE,):
            raise ValueError(f"weights of shape {damaged.shape}, {reference.shape}, {repeat.shape}: expected "
                             f"{shape}, {shape}, ({SCALE},)")
        return cls(damaged, reference, repeat, str(data["source"]))


def levels(scores: np.ndarray) -> np.ndarray:
    """Each score's level (0-4): how many of ``LEVEL_EDGES`` are at or below it."""
    return np.searchsorted(np.asarray(LEVEL_EDGES), np.asarray(scores), side="right")


def count_pairs(workers: Iterable[tuple[tuple[np.ndarray, np.ndarray], ...]]) -> PairCounts:
    """Counts over workers, each given as its (damaged, reference, repeat) pairs of (original, check) scores."""
    counts = PairCounts.empty()
    for damaged, reference, repeat in workers:
        counts.add(damaged, reference, repeat)
    return counts


@cache
def people_weights() -> PeopleWeights:
    """The weights that ship with the platform (``people_checks.json``)."""
    return PeopleWeights.from_json(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")))


def _smooth(rows: np.ndarray) -> np.ndarray:
    """Each row of counts over 0..100 smoothed by a Gaussian kernel of ``BANDWIDTH`` points."""
    x = np.arange(SCALE, dtype=np.float64)
    kernel = np.exp(-0.5 * ((x[:, None] - x[None, :]) / BANDWIDTH) ** 2)
    return np.asarray(rows, dtype=np.float64) @ kernel


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(v), 6) if math.isfinite(v) else 0.0 for v in values]


__all__ = ["BANDWIDTH", "LEVEL_EDGES", "PSEUDO_COUNT", "PairCounts", "PeopleWeights", "count_pairs", "levels",
           "people_weights"]
