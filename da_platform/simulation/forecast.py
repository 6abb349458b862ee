"""How likely a campaign stopped early ranks the systems as the whole campaign would: forecast from the people fitted
to real crowd workers (:mod:`da_platform.simulation.people`), and measured on real releases the same way.

**Recovered** means the same significance clusters, in the same order, as the whole campaign's (every system in the
same cluster with the same others): stopping there would have told the researcher what finishing tells them.

- :func:`subsample_recovery` measures it on ratings that exist (a real release): k HITs drawn at random, analysed,
  compared with the analysis of every HIT; the share over many draws.
- :func:`forecast_recovery` forecasts it for a design (which system and item each slot of each HIT shows, and each
  answer's true quality): simulated people rate every HIT, the whole and k HITs of it are analysed as above; the
  share over many simulated campaigns.

``benchmarks/real_people.py forecast`` compares the two on the WMT21 to-English release, at three sizes.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.report import analyze
from analysis.table import RatingsTable
from da_platform.simulation.people import KIND_OF, PeopleModel, fitted_model, simulate_slots

NO_QC = QCPolicy(QCMethod.none)
"""A release's ratings are the workers it kept: no quality control unless asked."""

Clusters = tuple[tuple[str, ...], ...]


def same_clusters(found: Clusters, whole: Clusters) -> bool:
    """The same clusters in the same order (the order of systems inside a cluster does not matter)."""
    return [frozenset(c) for c in found] == [frozenset(c) for c in whole]


def clusters_of(table: RatingsTable, qc: QCPolicy) -> dict[str, Clusters]:
    """Each group's significance clusters (``analysis.report.analyze`` with quality control ``qc``)."""
    result = analyze(table, qc=qc)
    return {group: analysis.ranking.clusters for group, analysis in result.groups.items()}


def _recovered_after(table: RatingsTable, whole: Mapping[str, Clusters], size: int, rng: np.random.Generator,
                     qc: QCPolicy) -> dict[str, bool]:
    """Per group: do ``size`` of its HITs, drawn at random, give the clusters of the whole?"""
    keep = np.zeros(len(table), dtype=bool)
    for group in whole:
        in_group = table.group.codes == table.group.labels.index(group)
        hits = np.unique(table.hit.codes[in_group])
        chosen = rng.choice(hits, size=min(size, len(hits)), replace=False)
        keep |= in_group & np.isin(table.hit.codes, chosen)
    found = clusters_of(table.select(keep), qc)
    return {group: group in found and same_clusters(found[group], clusters) for group, clusters in whole.items()}


def subsample_recovery(table: RatingsTable, sizes: Sequence[int], draws: int, *, seed: int = 1,
                       qc: QCPolicy = NO_QC) -> dict[str, dict[int, float]]:
    """Per group and size k: the share of ``draws`` random draws of k HITs whose clusters are the whole table's."""
    rng = np.random.default_rng(seed)
    whole = clusters_of(table, qc)
    shares: dict[str, dict[int, float]] = {group: {} for group in whole}
    for size in sizes:
        hits = [_recovered_after(table, whole, size, rng, qc) for _ in range(draws)]
        for group in whole:
            shares[group][size] = float(np.mean([h[group] for h in hits]))
    return shares


@dataclass(frozen=True)
class Design:
    """A campaign's slots laid end to end: per slot its group, HIT, worker (who rates that HIT), slot type, original
    (index of the slot a check copies, -1: none), system and item, and the true quality of its answer (a check's:
    its original's answer's)."""

    group: Sequence[str]
    hit: Sequence[str]
    worker: Sequence[str]
    slot_type: Sequence[str]
    original: np.ndarray
    system: Sequence[str]
    item: Sequence[str]
    quality: np.ndarray

    def rated(self, model: PeopleModel, rng: np.random.Generator) -> RatingsTable:
        """The design rated by simulated people (one per worker; each HIT one state of theirs)."""
        _, hit = np.unique(np.asarray(self.hit), return_inverse=True)
        _, worker = np.unique(np.asarray(self.worker), return_inverse=True)
        kind = np.array([KIND_OF[t] for t in self.slot_type])
        scores = simulate_slots(model, hit, worker, kind, self.original, np.asarray(self.quality, dtype=float), rng)
        slots = [str(i) for i in range(len(scores))]
        return RatingsTable.from_columns(
            group=list(self.group), worker=list(self.worker), hit=list(self.hit), system=list(self.system),
            item=list(self.item), slot_type=list(self.slot_type), slot=slots,
            original_slot=["" if o < 0 else slots[o] for o in self.original.tolist()], score=scores)


def forecast_recovery(design: Design, sizes: Sequence[int], runs: int, *, seed: int = 1, qc: QCPolicy = NO_QC,
                      model: PeopleModel | None = None) -> dict[str, dict[int, float]]:
    """Per group and size k: the forecast share of campaigns whose first k HITs (any k, drawn at random) give the
    clusters the whole campaign gives, over ``runs`` campaigns of simulated people (the fitted ones unless
    ``model``)."""
    rng = np.random.default_rng(seed)
    people = model or fitted_model()
    tallies: dict[str, dict[int, list[bool]]] = {}
    for _ in range(runs):
        table = design.rated(people, rng)
        whole = clusters_of(table, qc)
        for size in sizes:
            for group, held in _recovered_after(table, whole, size, rng, qc).items():
                tallies.setdefault(group, {}).setdefault(size, []).append(held)
    return {group: {size: float(np.mean(v)) for size, v in by_size.items()} for group, by_size in tallies.items()}


__all__ = ["NO_QC", "Clusters", "Design", "clusters_of", "forecast_recovery", "same_clusters",
           "subsample_recovery"]
