"""METEOR (Banerjee & Lavie 2005) with exact and stem matching, fully offline.

Alignment runs in stages: exact tokens first, then Snowball stems among the tokens still unmatched.
Within a stage the alignment is Banerjee & Lavie's: the most mappings, and among alignments with that
many, the one with the fewest crossing mappings (not a greedy left-to-right pairing, which misorders
near ties); the signature names it ``align:fewest-crossings``. With m matches, P = m/|hyp|,
R = m/|ref|, Fmean = P·R / (α·P + (1−α)·R), penalty = γ·(chunks/m)^β where a chunk is a run of
matches adjacent in both hypothesis and reference, and the score is Fmean·(1 − penalty); defaults
α = 0.9, β = 3, γ = 0.5. The best reference counts; the corpus score is the mean of the sentences.

``MeteorWordNet`` is the optional backend with WordNet synonyms: NLTK's ``meteor_score``, used only
when NLTK and its WordNet data are already installed (``pip install nltk`` and
``python -m nltk.downloader wordnet``); nothing is ever downloaded at run time.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np

from analysis.metrics.base import (
    Metric,
    MetricUnavailable,
    QuestionInfo,
    check_references,
    number,
)
from analysis.metrics.tokenize import DEFAULT_TOKENIZATION


def count_chunks(matches: Sequence[tuple[int, int]]) -> int:
    """Number of runs of matches (hypothesis index, reference index) adjacent on both sides."""
    ordered = sorted(matches)
    chunks = 0
    previous: tuple[int, int] | None = None
    for i, j in ordered:
        if previous is None or (i, j) != (previous[0] + 1, previous[1] + 1):
            chunks += 1
        previous = (i, j)
    return chunks


#: One way to pair a key's free tokens: its (hypothesis position, reference position) pairs.
Option = list[tuple[int, int]]
#: Search nodes one stage may visit looking for the fewest crossings; past it the best found counts.
SEARCH_LIMIT = 20_000
#: Ways to place one repeated word that a stage enumerates; past it, three candidates (``_subsets``).
CHOICE_LIMIT = 2_000


def crossings(pairs: Sequence[tuple[int, int]], others: Sequence[tuple[int, int]]) -> int:
    """How many (pair, other) combinations cross: (i − i')·(j − j') < 0."""
    return sum(1 for i, j in pairs for k, m in others if (i - k) * (j - m) < 0)


def align(hyp: Sequence[str], ref: Sequence[str],
          stages: Sequence[Callable[[str], str]]) -> list[tuple[int, int]]:
    """Banerjee & Lavie's alignment: per stage, the most matches, and among those the fewest crossings.

    Each stage maps the tokens still unmatched to keys (exact form, stem, ...) and pairs equal keys.
    A key with as many free tokens on both sides pairs them in order; one with more on a side
    chooses which of them to pair, and the choice that crosses the fewest mappings (those of this
    stage and of the earlier ones) wins; equal counts keep the leftmost tokens. (A word repeated so
    often that its placements pass ``CHOICE_LIMIT``, or a stage whose search passes ``SEARCH_LIMIT``,
    gets the best of the candidates tried.)
    """
    matches: list[tuple[int, int]] = []
    free_hyp = list(range(len(hyp)))
    free_ref = list(range(len(ref)))
    for key in stages:
        matches += _stage(hyp, ref, key, free_hyp, free_ref, matches)
        used_hyp = {i for i, _ in matches}
        used_ref = {j for _, j in matches}
        free_hyp = [i for i in free_hyp if i not in used_hyp]
        free_ref = [j for j in free_ref if j not in used_ref]
    return matches


def _pairings(hyp: Sequence[str], ref: Sequence[str], key: Callable[[str], str], free_hyp: list[int],
              free_ref: list[int]) -> tuple[list[tuple[int, int]], list[tuple[list[int], list[int], list[Option]]]]:
    """A stage's keys: the pairs of every key with as many free tokens on both sides (in order), and for
    each key with more on one side its free positions and the ways to pair them (``_subsets``)."""
    by_key: dict[str, tuple[list[int], list[int]]] = {}
    for i in free_hyp:
        by_key.setdefault(key(hyp[i]), ([], []))[0].append(i)
    for j in free_ref:
        if (entry := by_key.get(key(ref[j]))) is not None:
            entry[1].append(j)
    pairs: list[tuple[int, int]] = []
    choices: list[tuple[list[int], list[int], list[Option]]] = []
    for hyps, refs in by_key.values():
        if not refs:
            continue
        if len(hyps) == len(refs):
            pairs += zip(hyps, refs)
        elif len(hyps) < len(refs):
            ways = [list(zip(hyps, chosen)) for chosen in _subsets(refs, hyps, len(ref), len(hyp))]
            choices.append((hyps, refs, ways))
        else:
            ways = [list(zip(chosen, refs)) for chosen in _subsets(hyps, refs, len(hyp), len(ref))]
            choices.append((hyps, refs, ways))
    return pairs, choices


def _stage(hyp: Sequence[str], ref: Sequence[str], key: Callable[[str], str], free_hyp: list[int],
           free_ref: list[int], earlier: list[tuple[int, int]]) -> list[tuple[int, int]]:
    base, ways = _pairings(hyp, ref, key, free_hyp, free_ref)
    if not ways:
        return base
    fixed = earlier + base
    keys = [_Choices(hyps, refs, options) for hyps, refs, options in ways]
    # Branch and bound: each key's choices in order of their crossings with the fixed mappings (the
    # first complete alignment reached is already good), bounded below by those crossings. Crossings
    # with the fixed mappings and with the choices on the search path are counted for all of a key's
    # choices at once (``_Choices.crossings``); the search visits the choices in the same order and
    # stops at the same ``SEARCH_LIMIT``, whatever the counting. (Every alignment also crosses the
    # fixed mappings of this stage and the earlier ones alike: a constant, left out of the costs.)
    for key_choices in keys:
        key_choices.order_by(key_choices.crossings([i for i, _ in fixed], [j for _, j in fixed]))
    keys.sort(key=lambda key_choices: len(key_choices.options))
    floor = [0] * (len(keys) + 1)
    for depth in range(len(keys) - 1, -1, -1):
        floor[depth] = floor[depth + 1] + keys[depth].costs[0]
    best: list[Option] = []
    best_cost = [math.inf]
    visited = [0]
    path: list[int] = []  # the index of the choice taken at each depth above the current one
    placed_hyp: list[int] = []  # their pairs' hypothesis positions
    placed_ref: list[int] = []  # and reference positions

    def search(depth: int, cost: int) -> None:
        if depth == len(keys):
            best_cost[0] = cost
            best[:] = [keys[d].options[k] for d, k in enumerate(path)]
            return
        choices = keys[depth]
        increments = choices.crossings(placed_hyp, placed_ref)
        bound = floor[depth + 1]
        for k, fixed_cost in enumerate(choices.costs):
            visited[0] += 1
            if visited[0] > SEARCH_LIMIT and best_cost[0] < math.inf:
                return
            child = cost + fixed_cost + increments[k]
            if child + bound >= best_cost[0]:  # the bound: this choice cannot lead to fewer crossings
                continue
            path.append(k)
            placed_hyp.extend(i for i, _ in choices.options[k])
            placed_ref.extend(j for _, j in choices.options[k])
            search(depth + 1, child)
            del placed_hyp[len(placed_hyp) - len(choices.options[k]):]
            del placed_ref[len(placed_ref) - len(choices.options[k]):]
            path.pop()

    search(0, 0)
    return base + [pair for option in best for pair in option]


class _Choices:
    """The ways to pair one key's free tokens (``options``), each a list of (hypothesis, reference) pairs.

    Every pair of every option is (``hyps[x]``, ``refs[y]``) for some x and y, so on large inputs the
    crossings of all options with a set of mappings come from one table of crossings per (x, y) cell;
    on small ones counting pair by pair is quicker. Both count exactly, so both give the same numbers.
    """

    #: Pair comparisons (options × their pairs × mappings) below which the pairs are counted one by one.
    SMALL = 300

    def __init__(self, hyps: list[int], refs: list[int], options: list[Option]) -> None:
        self.hyps, self.refs = hyps, refs
        self.options = options
        self.costs: list[int] = []
        self._cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def crossings(self, hyp_positions: list[int], ref_positions: list[int]) -> list[int]:
        """How many of the mappings (``hyp_positions[n]``, ``ref_positions[n]``) each option crosses:
        (i − k)·(j − m) < 0."""
        if len(self.options) * len(self.options[0]) * len(hyp_positions) <= self.SMALL:
            mappings = list(zip(hyp_positions, ref_positions))
            return [crossings(option, mappings) for option in self.options]
        if self._cells is None:
            at_hyp = {position: x for x, position in enumerate(self.hyps)}
            at_ref = {position: y for y, position in enumerate(self.refs)}
            self._cells = (np.array(self.hyps), np.array(self.refs),
                           np.array([[at_hyp[i] for i, _ in option] for option in self.options], dtype=np.intp),
                           np.array([[at_ref[j] for _, j in option] for option in self.options], dtype=np.intp))
        hyps, refs, x, y = self._cells
        hyp_side = np.sign(hyps[:, None] - np.array(hyp_positions)[None, :])
        ref_side = np.sign(refs[:, None] - np.array(ref_positions)[None, :])
        # cell (x, y) crosses a mapping when its two positions lie on opposite sides of the mapping's
        table = ((hyp_side > 0).astype(np.float64) @ (ref_side < 0).T.astype(np.float64)
                 + (hyp_side < 0).astype(np.float64) @ (ref_side > 0).T.astype(np.float64))
        return np.rint(table).astype(np.int64)[x, y].sum(axis=1).tolist()

    def order_by(self, costs: list[int]) -> None:
        """Keep the options in order of ``costs`` (stable: equal costs keep their order)."""
        order = sorted(range(len(self.options)), key=costs.__getitem__)
        self.options = [self.options[k] for k in order]
        self.costs = [costs[k] for k in order]
        if self._cells is not None:
            hyps, refs, x, y = self._cells
            self._cells = (hyps, refs, x[order], y[order])


def _subsets(positions: list[int], partners: list[int], own_length: int,
             partner_length: int) -> list[tuple[int, ...]]:
    """The ways to choose one of ``positions`` for each of the fewer ``partners`` (in order).

    All of them, or, past ``CHOICE_LIMIT``, three candidates for a word repeated very often: the
    leftmost positions, the rightmost, and those nearest to where the partners sit in relative terms.
    """
    size = len(partners)
    if math.comb(len(positions), size) <= CHOICE_LIMIT:
        return list(combinations(positions, size))
    nearest: list[int] = []
    for k, partner in enumerate(partners):
        target = partner / max(partner_length, 1) * own_length
        free = [p for p in positions if not nearest or p > nearest[-1]]
        room = free[:len(free) - (size - k - 1)]
        nearest.append(min(room, key=lambda p: abs(p - target)))
    return list(dict.fromkeys([tuple(positions[:size]), tuple(nearest), tuple(positions[-size:])]))


class Meteor(Metric):
    """METEOR with exact and stem stages (no synonyms; see ``MeteorWordNet``)."""

    name = "meteor"
    label = "METEOR"

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                 language: str = "english", lowercase: bool = True, stem: bool = True,
                 tokenization: str = DEFAULT_TOKENIZATION) -> None:
        import snowballstemmer

        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.lowercase = lowercase
        self.tokenization = tokenization
        self.language = language
        self.stages = "exact+stem" if stem else "exact"
        self._stages: tuple[Callable[[str], str], ...] = (str, self.stem) if stem else (str,)
        self._stemmer = snowballstemmer.stemmer(language)
        self._stems: dict[str, str] = {}

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "align": "fewest-crossings",
                "stages": self.stages + (f"-snowball-{self.language}" if self.stages != "exact" else ""),
                "alpha": number(self.alpha), "beta": number(self.beta), "gamma": number(self.gamma)}

    def stem(self, token: str) -> str:
        """Snowball stem of a token (cached)."""
        stem = self._stems.get(token)
        if stem is None:
            stem = self._stems[token] = self._stemmer.stemWord(token)
        return stem

    def align(self, hyp: Sequence[str], ref: Sequence[str]) -> list[tuple[int, int]]:
        """Exact matches, then (unless ``stem=False``) stem matches among the rest."""
        return align(hyp, ref, self._stages)

    def score_tokens(self, hyp: Sequence[str], ref: Sequence[str]) -> float:
        """METEOR of one tokenised hypothesis against one tokenised reference."""
        matches = self.align(hyp, ref)
        m = len(matches)
        if m == 0:
            return 0.0
        precision, recall = m / len(hyp), m / len(ref)
        fmean = precision * recall / (self.alpha * precision + (1 - self.alpha) * recall)
        penalty = self.gamma * (count_chunks(matches) / m) ** self.beta
        return fmean * (1 - penalty)

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        check_references(references)
        hyp = self.tokens(hypothesis)
        return max(self.score_tokens(hyp, self.tokens(reference)) for reference in references)


class MeteorWordNet(Metric):
    """METEOR with WordNet synonyms through NLTK (optional: needs NLTK and its WordNet data locally)."""

    name = "meteor-wordnet"
    label = "METEOR (WordNet)"

    def signature_fields(self) -> dict[str, str]:
        return {**super().signature_fields(), "align": "nltk-greedy", "stages": "exact+stem+wordnet",
                "alpha": number(self.alpha), "beta": number(self.beta), "gamma": number(self.gamma)}

    INSTALL_HINT = ("METEOR with WordNet synonyms needs NLTK and its WordNet data installed locally: "
                    "'pip install nltk' and 'python -m nltk.downloader wordnet' (the platform never "
                    "downloads at run time); the offline metric 'meteor' needs neither")

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> None:
        self.check_available()
        from nltk.translate.meteor_score import meteor_score

        self.lowercase = True  # NLTK lowercases (its preprocess=str.lower)
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self._meteor_score = meteor_score

    @classmethod
    def check_available(cls) -> None:
        try:
            import nltk
        except ImportError:
            raise MetricUnavailable(f"NLTK is not installed. {cls.INSTALL_HINT}") from None
        try:
            nltk.data.find("corpora/wordnet")
        except LookupError:
            try:
                nltk.data.find("corpora/wordnet.zip")
            except LookupError:
                raise MetricUnavailable(f"NLTK's WordNet data is not installed. {cls.INSTALL_HINT}") from None

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        check_references(references)
        return float(self._meteor_score([self.tokens(r) for r in references], self.tokens(hypothesis),
                                        alpha=self.alpha, beta=self.beta, gamma=self.gamma))
