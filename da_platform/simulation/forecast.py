"""How likely a campaign stopped early ranks the systems as the whole campaign would: forecast from the people fitted
to real crowd workers (:mod:`da_platform.simulation.people`), and measured on real releases the same way.

**Recovered** means the same significance clusters, in the same order, as the whole campaign's (every system in the
same cluster with the same others): stopping there would have told the researcher what finishing tells them.

- :func:`subsample_recovery` measures it on ratings that exist (a real release): k HITs drawn at random, analysed,
  compared with the analysis of every HIT; the share over many draws.
- :func:`forecast_recovery` forecasts it for a design (which system and item each slot of each HIT shows, and each
  answer's true quality): simulated people rate every HIT, the whole and k HITs of it are analysed as above; the
  share over many simulated campaigns.

- :func:`forecast_given` forecasts what subsampling one finished campaign measures: the same share among simulated
  campaigns whose whole gives the clusters that one gave.
- :func:`system_estimates` estimates, from a release, each system's true quality for such a design: its z-score
  shrunk towards the systems' mean by its sampling error (most of a small spread between systems is noise).

``benchmarks/real_people.py forecast`` compares the two on the WMT21 to-English release, at three sizes.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.report import analyze
from analysis.table import REPEAT, SYSTEM, RatingsTable
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
class SystemEstimates:
    """Systems' observed scores with their standard errors, and what they say of the true scores (normal means,
    method of moments; docs/quality-control.md, "Forecasts against reality"): the true scores spread with SD
    ``spread`` around ``mean``, spread² = max(0, sample variance of the observed scores − mean squared standard
    error); a system's best estimate is its observed score shrunk towards the mean by its reliability
    spread² / (spread² + se²), and its posterior is normal around that with variance reliability · se².
    ``design_effect``: the mean squared standard error over what it would be were every item rated independently
    (how alike one HIT's ratings are; 1 when :func:`shrink` is not told)."""

    observed: Mapping[str, float]
    standard_error: Mapping[str, float]
    mean: float
    spread: float
    design_effect: float = 1.0

    def reliability(self, system: str) -> float:
        """The share of the system's observed deviation from the mean that is true (1: no sampling error)."""
        true, error = self.spread ** 2, self.standard_error[system] ** 2
        return true / (true + error) if true + error > 0 else 1.0

    def shrunk(self) -> dict[str, float]:
        """Each system's estimate of its true score (posterior mean)."""
        return {s: self.mean + self.reliability(s) * (x - self.mean) for s, x in self.observed.items()}

    def drawn(self, rng: np.random.Generator) -> dict[str, float]:
        """True scores drawn from the posterior (one normal draw per system, in the order of ``observed``)."""
        centre = self.shrunk()
        return {s: centre[s] + math.sqrt(self.reliability(s)) * self.standard_error[s] * float(rng.standard_normal())
                for s in self.observed}


def shrink(observed: Mapping[str, float], standard_error: Mapping[str, float], design_effect: float = 1.0
           ) -> SystemEstimates:
    """The :class:`SystemEstimates` of systems' observed scores and their standard errors (the same systems)."""
    if set(observed) != set(standard_error):
        raise ValueError("shrink: observed scores and standard errors must name the same systems")
    values = np.array(list(observed.values()), dtype=float)
    errors = np.array([standard_error[s] for s in observed], dtype=float)
    variance = float(np.var(values, ddof=1)) if len(values) > 1 else 0.0
    true = max(0.0, variance - float(np.mean(errors ** 2))) if len(values) else 0.0
    return SystemEstimates(dict(observed), dict(standard_error), float(np.mean(values)) if len(values) else 0.0,
                           math.sqrt(true), design_effect)


def system_estimates(table: RatingsTable) -> dict[str, SystemEstimates]:
    """Per group: each system's z-score (``analysis.report.analyze`` without quality control: a release's ratings
    are the workers it kept) with its standard error, HITs taken as the units drawn (a worker's day and a document
    make the ratings of one HIT alike), and what they say of the true scores (:func:`shrink`)."""
    result = analyze(table, qc=NO_QC)
    score = table.score.astype(float)
    given = ~table.copies()
    workers = np.unique(table.group.codes.astype(np.int64) * len(table.worker.labels) + table.worker.codes,
                        return_inverse=True)[1]
    n = np.bincount(workers[given], minlength=int(workers.max()) + 1)
    mean = np.bincount(workers[given], weights=score[given], minlength=len(n)) / np.maximum(n, 1)
    squares = np.bincount(workers[given], weights=score[given] ** 2, minlength=len(n))
    sd = np.sqrt(np.maximum(squares - n * mean ** 2, 0) / np.maximum(n - 1, 1))
    scored = ((table.slot_type == SYSTEM) | (table.slot_type == REPEAT)) & (sd[workers] > 0) & (n[workers] > 1)
    z = np.where(scored, (score - mean[workers]) / np.where(sd[workers] > 0, sd[workers], 1.0), 0.0)
    estimates = {}
    for label, analysis in result.groups.items():
        errors, independent = {}, []
        for system_score in analysis.system_scores:
            rows = np.flatnonzero(scored & (table.group.codes == table.group.labels.index(label))
                                  & (table.system.codes == table.system.labels.index(system_score.system)))
            item = table.item.codes[rows]
            errors[system_score.system] = _standard_error(z[rows], item, table.hit.codes[rows])
            independent.append(_standard_error(z[rows], item, item))
        squared = float(np.mean(np.square(independent)))
        effect = float(np.mean(np.square(list(errors.values())))) / squared if squared > 0 else 1.0
        estimates[label] = shrink({s.system: s.z for s in analysis.system_scores}, errors, effect)
    return estimates


def _standard_error(z: np.ndarray, item: np.ndarray, hit: np.ndarray) -> float:
    """The standard error of the mean over items of each item's mean z, HITs the independent units: the score is
    Σ w·z with w = 1 / (items · the item's ratings), so its variance is C/(C−1) · Σ over the C HITs of
    (Σ w·(z − score))² (the cluster-robust variance of a weighted mean); infinite with fewer than two HITs. Given
    each item as its own ``hit``, it is the standard error were items independent (SD of the item means / √items)."""
    items, of_item = np.unique(item, return_inverse=True)
    weight = 1.0 / (len(items) * np.bincount(of_item)[of_item])
    centred = weight * (z - float(np.sum(weight * z)))
    hits, of_hit = np.unique(hit, return_inverse=True)
    if len(hits) < 2:
        return math.inf
    return math.sqrt(float(np.sum(np.bincount(of_hit, weights=centred) ** 2)) * len(hits) / (len(hits) - 1))


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


SlotRow = tuple[str, int, int, str, "int | None", str, str]
"""A stored slot: its HIT, the HIT's assignments, its id, slot type, original slot's id (None: none), system and
item, in the order of HITs and of slots in each."""


def campaign_design(group: str, slots: Sequence[SlotRow], quality: Mapping[str, Mapping[str, float]]
                    ) -> tuple[Design, int]:
    """The design of a stored campaign (``group``) and its number of assignments: each assignment of each HIT
    (``<HIT>/<copy>``) its own HIT and worker, every answer's true quality from ``quality[system][item]``."""
    by_hit: dict[str, list[SlotRow]] = {}
    for row in slots:
        by_hit.setdefault(row[0], []).append(row)
    columns: dict[str, list] = {c: [] for c in ("hit", "slot_type", "original", "system", "item", "quality")}
    places = 0
    for hit, mine in by_hit.items():
        index = {row[2]: k for k, row in enumerate(mine)}
        for copy in range(max(1, mine[0][1])):
            start = len(columns["hit"])
            places += 1
            for _, _, _, slot_type, original, system, item in mine:
                for column, value in (("hit", f"{hit}/{copy}"), ("slot_type", slot_type), ("system", system),
                                      ("item", item), ("quality", quality[system][item]),
                                      ("original", -1 if original is None else start + index[original])):
                    columns[column].append(value)
    return Design([group] * len(columns["hit"]), columns["hit"], columns["hit"], columns["slot_type"],
                  np.array(columns["original"], dtype=np.int64), columns["system"], columns["item"],
                  np.array(columns["quality"], dtype=np.float64)), places


def forecast_recovery(design: Design | Callable[[np.random.Generator], Design], sizes: Sequence[int], runs: int, *,
                      seed: int = 1, qc: QCPolicy = NO_QC, model: PeopleModel | None = None
                      ) -> dict[str, dict[int, float]]:
    """Per group and size k: the forecast share of campaigns whose first k HITs (any k, drawn at random) give the
    clusters the whole campaign gives, over ``runs`` campaigns of simulated people (the fitted ones unless
    ``model``). ``design`` is the campaign's, or a function drawing each campaign's from the run's generator (true
    qualities drawn from what is known of them, :meth:`SystemEstimates.drawn`)."""
    rng = np.random.default_rng(seed)
    people = model or fitted_model()
    tallies: dict[str, dict[int, list[bool]]] = {}
    for _ in range(runs):
        table = (design if isinstance(design, Design) else design(rng)).rated(people, rng)
        whole = clusters_of(table, qc)
        for size in sizes:
            for group, held in _recovered_after(table, whole, size, rng, qc).items():
                tallies.setdefault(group, {}).setdefault(size, []).append(held)
    return {group: {size: float(np.mean(v)) for size, v in by_size.items()} for group, by_size in tallies.items()}


@dataclass(frozen=True)
class GivenForecast:
    """A forecast given the whole campaign's clusters: per size k the share of the ``matched`` simulated campaigns
    (of ``tried``) whose whole gave those clusters and whose k HITs gave them too (empty when none matched)."""

    shares: dict[int, float]
    matched: int
    tried: int


def forecast_given(design: Design | Callable[[np.random.Generator], Design], group: str, clusters: Clusters,
                   sizes: Sequence[int], runs: int, tries: int, *, seed: int = 1, qc: QCPolicy = NO_QC,
                   model: PeopleModel | None = None) -> GivenForecast:
    """The forecast of what subsampling one finished campaign measures: the chance that k of its HITs give its
    clusters, given that all of them gave ``clusters`` (in ``group``). Simulated campaigns whose whole gives other
    clusters are passed over (at most ``tries`` simulated, until ``runs`` matched)."""
    rng = np.random.default_rng(seed)
    people = model or fitted_model()
    held: dict[int, list[bool]] = {size: [] for size in sizes}
    matched = tried = 0
    while matched < runs and tried < tries:
        tried += 1
        table = (design if isinstance(design, Design) else design(rng)).rated(people, rng)
        whole = clusters_of(table, qc)
        if group not in whole or not same_clusters(whole[group], clusters):
            continue
        matched += 1
        for size in sizes:
            held[size].append(_recovered_after(table, {group: clusters}, size, rng, qc)[group])
    return GivenForecast({size: float(np.mean(v)) for size, v in held.items() if v}, matched, tried)


__all__ = ["NO_QC", "Clusters", "Design", "GivenForecast", "SlotRow", "SystemEstimates", "campaign_design",
           "clusters_of", "forecast_given", "forecast_recovery", "same_clusters", "shrink", "subsample_recovery",
           "system_estimates"]
