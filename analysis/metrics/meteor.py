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


def _stage(hyp: Sequence[str], ref: Sequence[str], key: Callable[[str], str], free_hyp: list[int],
           free_ref: list[int], earlier: list[tuple[int, int]]) -> list[tuple[int, int]]:
    by_key: dict[str, tuple[list[int], list[int]]] = {}
    for i in free_hyp:
        by_key.setdefault(key(hyp[i]), ([], []))[0].append(i)
    for j in free_ref:
        if (entry := by_key.get(key(ref[j]))) is not None:
            entry[1].append(j)
    fixed = list(earlier)
    options: list[list[list[tuple[int, int]]]] = []
    for hyps, refs in by_key.values():
        if not refs:
            continue
        if len(hyps) == len(refs):
            fixed += zip(hyps, refs)
        elif len(hyps) < len(refs):
            options.append([list(zip(hyps, chosen)) for chosen in _subsets(refs, hyps, len(ref), len(hyp))])
        else:
            options.append([list(zip(chosen, refs)) for chosen in _subsets(hyps, refs, len(hyp), len(ref))])
    # Branch and bound: each key's choices in order of their crossings with the fixed mappings (the
    # first complete alignment reached is already good), bounded below by those crossings.
    scored = []
    for choices in options:
        costs = [crossings(option, fixed) for option in choices]
        order = sorted(range(len(choices)), key=costs.__getitem__)
        scored.append([(costs[k], choices[k]) for k in order])
    scored.sort(key=len)
    floor = [0] * (len(scored) + 1)
    for depth in range(len(scored) - 1, -1, -1):
        floor[depth] = floor[depth + 1] + scored[depth][0][0]
    base = fixed[len(earlier):]
    best: list[list[tuple[int, int]]] = []
    best_cost = [math.inf]
    visited = [0]

    def search(depth: int, placed: list[tuple[int, int]], cost: int, chosen: list[list[tuple[int, int]]]) -> None:
        if cost + floor[depth] >= best_cost[0]:
            return
        if depth == len(scored):
            best_cost[0] = cost
            best[:] = chosen
            return
        for fixed_cost, option in scored[depth]:
            visited[0] += 1
            if visited[0] > SEARCH_LIMIT and best_cost[0] < math.inf:
                return
            search(depth + 1, placed + option, cost + fixed_cost + crossings(option, placed[len(fixed):]),
                   chosen + [option])

    search(0, fixed, crossings(base, earlier) + _internal_crossings(base), [])
    return base + [pair for option in best for pair in option]


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


def _internal_crossings(pairs: Sequence[tuple[int, int]]) -> int:
    return sum(1 for a, (i, j) in enumerate(pairs) for k, m in pairs[a + 1:] if (i - k) * (j - m) < 0)


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
