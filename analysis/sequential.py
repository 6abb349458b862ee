"""Group sequential decisions between systems over the waves of a campaign (docs/method.md §12).

A campaign run in waves looks at its ranking after every wave. Deciding each time with the ordinary p-value
of the rank-sum test (docs/method.md §8) would separate equal systems far more often than α: every look is
another chance. Each pair of systems is therefore tested as a **group sequential test with error spending**
(Lan and DeMets 1983): a spending function α(t) says how much of the pair's α may have been used by the time
a share t of its planned information has been seen, and the critical value of each look is the one that spends
exactly the increment, given the looks before it. The method, its numerical integration and the published
boundaries it reproduces are those of Jennison and Turnbull (2000), *Group Sequential Methods with
Applications to Clinical Trials*, chapters 2, 7, 8 and 19.

Why this method and not an always-valid sequential test (a mixture SPRT, e-values): a campaign has a few
planned looks (its waves) and a maximum budget, which is the case error spending is made for; it pays for
looking only at the looks that happen, where an always-valid test pays for looking after every rating, and so
needs markedly more ratings for the same decision at the end. With the O'Brien-Fleming-type function (the
default) almost nothing is spent early and the last look's critical value stays close to the fixed test's,
so a campaign that runs its whole budget decides almost as the fixed design would; neither the number of
waves nor their sizes need fixing in advance.

The statistic and its information:

* The statistic of a pair at a look is the ranking's own one-sided rank-sum test on the item z-scores
  (docs/method.md §8), turned into a standard normal deviate: ``Z = Φ⁻¹(1 − p(A > B))``; one code path gives
  the p-value of a fixed campaign and of a wave.
* Its information is ``N_A N_B / (N_A + N_B)`` with ``N`` the ratings counted for each system, and the
  information fraction ``t`` is that over the information the pair is planned to reach
  (:class:`SequentialDesign`: the fixed design's ratings, times ``information_ratio``). The sequence of Z's is
  taken to have the canonical joint distribution (independent increments, ``corr(Z_j, Z_k) = √(t_j/t_k)``),
  which holds asymptotically for rank statistics on new items; the size of the whole procedure is measured
  by simulation (docs/benchmarks.md, "Campaigns in waves").
* The test is two-sided with α on each side, as the fixed ranking's pair of one-sided tests at α: A is
  declared better than B at look k when ``Z ≥ c_k`` and A's z-score is the higher (the rule of wins, §8), B
  better than A when ``Z ≤ −c_k``. A decided pair stays decided. A look that adds less than ``MIN_INCREMENT``
  (1 %) of the pair's planned information is no look for it (the last look of a campaign always counts).
* The campaign's last look spends what is left (``t = 1``), whatever share of the planned information a pair
  reached; a pair not decided then is *undecided*, reported with the ratings a decision would likely need.
* The error rate of a decision is its stage-wise adjusted p-value (Jennison and Turnbull 2000, §8.4): the
  chance under equal systems of a crossing at an earlier look, or at this one with a Z at least as large. At
  a single look it is the ordinary p-value.

Every function is pure; results are frozen dataclasses with named fields, as ``scipy.stats`` returns them.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np
from scipy import optimize, special

from analysis.ranking import Ranking
from da_core.enums import StrState

GRID_POINTS = 201  # Simpson's rule over the continuation region of each look (odd)
MAX_CRITICAL = 40.0  # a look that may spend nothing has this critical value (no decision possible)
FRACTION_DIGITS = 4  # information fractions are rounded to this many digits (close looks share boundaries)
MIN_INCREMENT = 0.01  # a look adding less than this share of a pair's planned information is no look for it


class Spending(StrState):
    """Error-spending functions: the share of α a pair may have spent at information fraction t."""

    obrien_fleming = "obrien-fleming"  # Lan-DeMets O'Brien-Fleming type: 2 − 2Φ(Φ⁻¹(1 − α/2)/√t)
    pocock = "pocock"  # Lan-DeMets Pocock type: α · ln(1 + (e − 1)t)


def spent(t: float, alpha: float, spending: Spending = Spending.obrien_fleming) -> float:
    """α(t): the error one side of a test may have spent by information fraction ``t`` (0 ≤ t ≤ 1)."""
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must lie strictly between 0 and 0.5, got {alpha}")
    t = min(max(float(t), 0.0), 1.0)
    if t == 0:
        return 0.0
    if Spending(spending) is Spending.pocock:
        return alpha * math.log1p((math.e - 1) * t)
    return float(2 * special.ndtr(-special.ndtri(1 - alpha / 2) / math.sqrt(t)))


@dataclass(frozen=True)
class SequentialBounds:
    """Critical values of a symmetric two-sided group sequential test, one per look.

    ``critical[k]``: reject at look k when ``|Z_k| ≥ critical[k]``; ``nominal[k]``: the same as a one-sided
    p-value (reject in a direction when its p < nominal); ``cumulative[k]``: α spent on one side by look k."""

    fractions: tuple[float, ...]
    critical: tuple[float, ...]
    nominal: tuple[float, ...]
    cumulative: tuple[float, ...]
    alpha: float
    spending: str


class _Recursion:
    """The sub-density of the score statistic S_k = Z_k √t_k on the continuation region after each look
    (Armitage, McPherson and Rowe 1969; Jennison and Turnbull 2000, ch. 19), on a Simpson grid."""

    def __init__(self) -> None:
        self.t = 0.0
        self.grid: np.ndarray | None = None  # points of the continuation region of the last look
        self.weights: np.ndarray | None = None  # Simpson weights times the sub-density there

    def crossing(self, t: float, critical: float) -> tuple[float, float]:
        """P(no crossing before, Z_t ≥ c) and P(no crossing before, Z_t ≤ −c) for a look at ``t``."""
        b = critical * math.sqrt(t)
        if self.grid is None:
            upper = float(special.ndtr(-critical))
            return upper, upper
        assert self.weights is not None
        sd = math.sqrt(t - self.t)
        upper = float(np.dot(self.weights, special.ndtr((self.grid - b) / sd)))
        lower = float(np.dot(self.weights, special.ndtr((-b - self.grid) / sd)))
        return upper, lower

    def beyond(self, t: float, z: float) -> float:
        """P(no crossing before, Z_t ≥ z)."""
        if self.grid is None:
            return float(special.ndtr(-z))
        assert self.weights is not None
        return float(np.dot(self.weights, special.ndtr((self.grid - z * math.sqrt(t)) / math.sqrt(t - self.t))))

    def advance(self, t: float, critical: float) -> None:
        """Condition on no crossing at the look at ``t`` with this critical value."""
        b = min(critical, 12.0) * math.sqrt(t)
        grid = np.linspace(-b, b, GRID_POINTS)
        simpson = np.ones(GRID_POINTS)
        simpson[1:-1:2], simpson[2:-1:2] = 4.0, 2.0
        simpson *= (grid[1] - grid[0]) / 3
        if self.grid is None:
            density = _phi(grid / math.sqrt(t)) / math.sqrt(t)
        else:
            assert self.weights is not None
            sd = math.sqrt(t - self.t)
            density = _phi((grid[:, None] - self.grid[None, :]) / sd) @ self.weights / sd
        self.t, self.grid, self.weights = t, grid, simpson * density


def _phi(x: np.ndarray) -> np.ndarray:
    """The standard normal density."""
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _checked_fractions(fractions: Sequence[float]) -> tuple[float, ...]:
    values = tuple(float(f) for f in fractions)
    if not values:
        raise ValueError("a sequential test needs at least one look")
    if any(not 0 < f <= 1 for f in values) or any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"information fractions must increase strictly within (0, 1], got {list(values)}")
    return values


def sequential_bounds(fractions: Sequence[float], alpha: float = 0.05,
                      spending: Spending | str = Spending.obrien_fleming) -> SequentialBounds:
    """Critical values of the looks at these information fractions, spending ``alpha`` per side by ``spending``.

    E.g. five equally spaced looks, α = 0.025 per side (0.05 two-sided), O'Brien-Fleming type:
    4.877, 3.357, 2.680, 2.290, 2.031. The last look spends what is left only when its fraction is 1.
    """
    return _bounds(_checked_fractions(fractions), float(alpha), Spending(spending))


@lru_cache(maxsize=4096)
def _bounds(fractions: tuple[float, ...], alpha: float, spending: Spending) -> SequentialBounds:
    recursion = _Recursion()
    critical, cumulative = [], []
    before = 0.0
    for t in fractions:
        target = spent(t, alpha, spending) - before
        c = _solve(partial(_excess, recursion, t, 2 * target)) if target > 1e-15 else MAX_CRITICAL
        critical.append(c)
        before += target
        cumulative.append(before)
        recursion.advance(t, c)
    return SequentialBounds(fractions, tuple(critical), tuple(float(special.ndtr(-c)) for c in critical),
                            tuple(cumulative), alpha, spending.value)


def _excess(recursion: _Recursion, t: float, target: float, critical: float) -> float:
    return sum(recursion.crossing(t, critical)) - target


def _solve(excess: Callable[[float], float]) -> float:
    """The critical value at which ``excess`` (crossing probability minus the target) is 0."""
    if excess(MAX_CRITICAL) > 0:
        return MAX_CRITICAL
    return float(optimize.brentq(excess, 0.0, MAX_CRITICAL, xtol=1e-10))


def classical_bounds(looks: int, alpha: float = 0.025, shape: str = "pocock") -> SequentialBounds:
    """The classical equally spaced designs of Jennison and Turnbull (2000, ch. 2), two-sided, α per side:
    Pocock's constant critical value, or O'Brien and Fleming's ``C √(K/k)``; the constant C solved for so that
    the test's two-sided size is 2α (their Tables 2.1 and 2.3 give C for 2α = 0.05: Pocock 2.178, 2.289, 2.361,
    2.413 for K = 2 … 5; O'Brien-Fleming 1.977, 2.004, 2.024, 2.040)."""
    if looks < 1:
        raise ValueError(f"looks must be at least 1, got {looks}")
    if shape not in ("pocock", "obrien-fleming"):
        raise ValueError(f"shape must be pocock or obrien-fleming, got {shape!r}")
    fractions = tuple((k + 1) / looks for k in range(looks))

    def shaped(constant: float) -> list[float]:
        return [constant if shape == "pocock" else constant * math.sqrt(looks / (k + 1)) for k in range(looks)]

    def size(constant: float) -> float:
        recursion, total = _Recursion(), 0.0
        for t, c in zip(fractions, shaped(constant)):
            total += sum(recursion.crossing(t, c))
            recursion.advance(t, c)
        return total

    constant = float(optimize.brentq(lambda c: size(c) - 2 * alpha, 0.5, 10.0, xtol=1e-10))
    critical = shaped(constant)
    return SequentialBounds(fractions, tuple(critical), tuple(float(special.ndtr(-c)) for c in critical),
                            (), alpha, shape)


def stagewise_pvalue(bounds: SequentialBounds, look: int, z: float) -> float:
    """One-sided p-value of a Z observed at look ``look`` (0-based) under the stage-wise ordering: the chance
    under H0 of crossing the upper boundary at an earlier look, or of reaching this look and a Z ≥ ``z``."""
    recursion, total = _Recursion(), 0.0
    for k in range(look):
        total += recursion.crossing(bounds.fractions[k], bounds.critical[k])[0]
        recursion.advance(bounds.fractions[k], bounds.critical[k])
    return min(1.0, total + recursion.beyond(bounds.fractions[look], z))


@dataclass(frozen=True)
class SequentialDesign:
    """How the pairs of a campaign in waves are tested: α per side (the ranking's α), the spending function,
    and the information each pair is planned to reach: ``planned[s]`` ratings of system s (the fixed design's,
    docs/method.md §12) times ``information_ratio``."""

    planned: Mapping[str, int]
    alpha: float = 0.05
    spending: Spending = Spending.obrien_fleming
    information_ratio: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha must lie strictly between 0 and 0.5, got {self.alpha}")
        if not self.information_ratio > 0:
            raise ValueError(f"information_ratio must be positive, got {self.information_ratio}")
        bad = sorted(s for s, n in self.planned.items() if n < 1)
        if bad:
            raise ValueError(f"every system needs at least one planned rating ({', '.join(bad)} has none)")
        object.__setattr__(self, "spending", Spending(self.spending))

    def planned_information(self, a: str, b: str) -> float:
        """The information the pair (a, b) is planned to reach."""
        return information(self.planned[a], self.planned[b]) * self.information_ratio


def information(n_a: float, n_b: float) -> float:
    """Information of a two-sample comparison with n_a and n_b ratings: n_a n_b / (n_a + n_b)."""
    return n_a * n_b / (n_a + n_b) if n_a > 0 and n_b > 0 else 0.0


@dataclass(frozen=True)
class Look:
    """What the campaign's ranking said after one wave: the systems by z (best first), their z-scores, the
    one-sided p-values (``pvalues[i, j]`` = p(systems[i] > systems[j])) and the ratings each system had then
    (``SystemScore.n_ratings``)."""

    wave: int
    systems: tuple[str, ...]
    z: tuple[float, ...]
    pvalues: np.ndarray
    ratings: Mapping[str, int]

    @classmethod
    def of(cls, wave: int, ranking: Ranking, ratings: Mapping[str, int]) -> Look:
        return cls(wave, ranking.systems, ranking.z, ranking.pvalues, dict(ratings))

    def pvalue(self, a: str, b: str) -> float:
        """p that system a is better than system b."""
        return float(self.pvalues[self.systems.index(a), self.systems.index(b)])


class PairState(StrState):
    """Where a pair of systems stands in a campaign run in waves."""

    decided = "decided"  # a boundary was crossed: the better system is known
    open = "open"  # not decided, and the campaign may still look again
    undecided = "undecided"  # the last look is past without a decision


@dataclass(frozen=True)
class PairLook:
    """One look at one pair: its statistic, information fraction and critical value."""

    wave: int
    z: float  # Φ⁻¹(1 − p(first > second)); positive: the first system ahead
    fraction: float
    critical: float


@dataclass(frozen=True)
class PairDecision:
    """The sequential decision about one pair of systems (``first`` and ``second`` in name order, or better
    first once decided)."""

    first: str
    second: str
    state: PairState
    wave: int | None  # the wave the pair was decided at (None: not decided)
    better: str | None
    pvalue: float | None  # stage-wise adjusted one-sided p-value of the decision (its error rate)
    nominal: float | None  # the one-sided p the decisive look needed to be below
    fraction: float  # the share of the planned information reached (at the decision, or the latest look)
    ratings: tuple[int, int]  # ratings of first and second at the decision or the latest look
    more_ratings: int | None  # undecided / open: both systems together, to likely decide (None: no effect seen)
    looks: tuple[PairLook, ...] = field(default=())
    conditional_power: float | None = None  # open: chance of a decision by the planned information, on the trend

    @property
    def pair(self) -> tuple[str, str]:
        return self.first, self.second


@dataclass(frozen=True)
class SequentialResult:
    """Every pair's decision after the looks so far, with the design they were made under."""

    design: SequentialDesign
    waves: tuple[int, ...]
    final: bool
    pairs: tuple[PairDecision, ...]

    def decision(self, a: str, b: str) -> PairDecision:
        for pair in self.pairs:
            if {pair.first, pair.second} == {a, b}:
                return pair
        raise KeyError(f"no pair {a!r}, {b!r}")

    def in_contention(self, futility: float = 0.0) -> frozenset[str]:
        """Systems of the pairs still open (the ones a next wave should rate more), leaving out the pairs whose
        conditional power is below ``futility`` (set aside: their decision would likely need more than planned)."""
        return frozenset(s for p in self.contended(futility) for s in p.pair)

    def contended(self, futility: float = 0.0) -> tuple[PairDecision, ...]:
        """The open pairs whose conditional power is at least ``futility``."""
        return tuple(p for p in self.pairs if p.state is PairState.open
                     and (p.conditional_power is None or p.conditional_power >= futility))

    @property
    def settled(self) -> bool:
        """No pair is open: every one is decided or past its last look."""
        return all(p.state is not PairState.open for p in self.pairs)


POWER_FOR_PROJECTION = 0.8


def sequential_decisions(looks: Sequence[Look], design: SequentialDesign, *, final: bool = False) -> SequentialResult:
    """Each pair's decision after ``looks`` (in wave order). ``final``: the last look is the campaign's last,
    which spends what is left of α whatever the share of the planned information reached."""
    if not looks:
        raise ValueError("no look to decide from")
    systems = sorted(set().union(*(look.systems for look in looks)))
    missing = sorted(set(systems) - set(design.planned))
    if missing:
        raise ValueError(f"the design plans no ratings for {', '.join(missing)}")
    pairs = [_decide(a, b, looks, design, final) for i, a in enumerate(systems) for b in systems[i + 1:]]
    return SequentialResult(design, tuple(look.wave for look in looks), final, tuple(pairs))


def _decide(a: str, b: str, looks: Sequence[Look], design: SequentialDesign, final: bool) -> PairDecision:
    planned = design.planned_information(a, b)
    taken: list[PairLook] = []
    last = len(looks) - 1
    n_a = n_b = 0
    for index, look in enumerate(looks):
        if a not in look.systems or b not in look.systems:
            continue
        n_a, n_b = look.ratings.get(a, 0), look.ratings.get(b, 0)
        fraction = round(min(1.0, information(n_a, n_b) / planned), FRACTION_DIGITS)
        if final and index == last:
            fraction = 1.0
        closing = final and index == last
        previous = taken[-1].fraction if taken else 0.0
        if fraction <= previous or (taken and fraction < previous + MIN_INCREMENT and not closing):
            continue  # (almost) no new information: no look
        p = look.pvalue(a, b)
        z = 0.0 if math.isnan(p) else float(special.ndtri(1 - p))
        bounds = _bounds(tuple(t.fraction for t in taken) + (fraction,), design.alpha, design.spending)
        critical = bounds.critical[-1]
        taken.append(PairLook(look.wave, z, fraction, critical))
        ahead = dict(zip(look.systems, look.z))
        better = a if z >= critical and ahead[a] > ahead[b] else b if z <= -critical and ahead[b] > ahead[a] else None
        if better is not None:
            pvalue = stagewise_pvalue(bounds, len(taken) - 1, abs(z))
            first, second = (a, b) if better == a else (b, a)
            ratings = (n_a, n_b) if better == a else (n_b, n_a)
            return PairDecision(first, second, PairState.decided, look.wave, better, pvalue, bounds.nominal[-1],
                                fraction, ratings, 0, tuple(taken))
    state = PairState.undecided if final or (taken and taken[-1].fraction >= 1.0) else PairState.open
    fraction = taken[-1].fraction if taken else 0.0
    more = _more_ratings(taken, planned, n_a, n_b, design) if taken else None
    power = _conditional_power(taken, design) if taken and state is PairState.open else None
    return PairDecision(a, b, state, None, None, None, None, fraction, (n_a, n_b), more, tuple(taken), power)


def _conditional_power(taken: list[PairLook], design: SequentialDesign) -> float:
    """The chance that the pair is decided at the planned information if the drift seen so far is the true one:
    Φ((|Z_t|/√t − c)/√(1 − t)) with c the critical value of a last look at t = 1 (Lan and Wittes 1988; Jennison
    and Turnbull 2000, §10.6)."""
    latest = taken[-1]
    final = _bounds(tuple(t.fraction for t in taken) + (1.0,), design.alpha, design.spending).critical[-1]
    t = latest.fraction
    return float(special.ndtr((abs(latest.z) / math.sqrt(t) - final) / math.sqrt(1 - t)))


def _more_ratings(taken: list[PairLook], planned: float, n_a: int, n_b: int, design: SequentialDesign) -> int | None:
    """Ratings of both systems together that would likely decide the pair: the information at which a test at
    the last look's critical value has power ``POWER_FOR_PROJECTION`` for the drift seen so far, less what the
    pair has (equal ratings of the two assumed for what is added)."""
    latest = taken[-1]
    seen = latest.fraction * planned
    drift = abs(latest.z) / math.sqrt(seen) if seen > 0 else 0.0
    if drift <= 0:
        return None
    final_critical = _bounds((1.0,), design.alpha, design.spending).critical[0]
    needed = ((final_critical + float(special.ndtri(POWER_FOR_PROJECTION))) / drift) ** 2
    if needed <= seen:
        return 0
    per_system = 2 * needed  # information n/2 with n ratings of each
    return max(0, math.ceil(max(per_system - n_a, 0) + max(per_system - n_b, 0)))
