"""METEOR (Banerjee & Lavie 2005) with exact and stem matching, fully offline.

Alignment runs in stages: exact tokens first, then Snowball stems among the tokens still unmatched.
Within a stage each hypothesis token, left to right, takes the leftmost unmatched reference token
with the same key (so repeated words pair in order, without crossing). With m matches, P = m/|hyp|,
R = m/|ref|, Fmean = P·R / (α·P + (1−α)·R), penalty = γ·(chunks/m)^β where a chunk is a run of
matches adjacent in both hypothesis and reference, and the score is Fmean·(1 − penalty); defaults
α = 0.9, β = 3, γ = 0.5. The best reference counts; the corpus score is the mean of the sentences.

``MeteorWordNet`` is the optional backend with WordNet synonyms: NLTK's ``meteor_score``, used only
when NLTK and its WordNet data are already installed (``pip install nltk`` and
``python -m nltk.downloader wordnet``); nothing is ever downloaded at run time.
"""
from __future__ import annotations

from typing import Callable, Sequence

from analysis.metrics.base import Metric, MetricUnavailable, QuestionInfo, check_references, tokens


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


def align(hyp: Sequence[str], ref: Sequence[str],
          stages: Sequence[Callable[[str], str]]) -> list[tuple[int, int]]:
    """Staged greedy alignment: each stage maps tokens to keys and pairs equal keys left to right."""
    matches: list[tuple[int, int]] = []
    free_hyp = list(range(len(hyp)))
    free_ref = list(range(len(ref)))
    for key in stages:
        positions: dict[str, list[int]] = {}
        for j in free_ref:
            positions.setdefault(key(ref[j]), []).append(j)
        taken_hyp = set()
        taken_ref = set()
        for i in free_hyp:
            candidates = positions.get(key(hyp[i]))
            if candidates:
                j = candidates.pop(0)
                matches.append((i, j))
                taken_hyp.add(i)
                taken_ref.add(j)
        free_hyp = [i for i in free_hyp if i not in taken_hyp]
        free_ref = [j for j in free_ref if j not in taken_ref]
    return matches


class Meteor(Metric):
    """METEOR with exact and stem stages (no synonyms; see ``MeteorWordNet``)."""

    name = "meteor"
    label = "METEOR"

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                 language: str = "english", lowercase: bool = True, stem: bool = True) -> None:
        import snowballstemmer

        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.lowercase = lowercase
        self._stages: tuple[Callable[[str], str], ...] = (str, self.stem) if stem else (str,)
        self._stemmer = snowballstemmer.stemmer(language)
        self._stems: dict[str, str] = {}

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
        hyp = tokens(hypothesis, self.lowercase)
        return max(self.score_tokens(hyp, tokens(reference, self.lowercase)) for reference in references)


class MeteorWordNet(Metric):
    """METEOR with WordNet synonyms through NLTK (optional: needs NLTK and its WordNet data locally)."""

    name = "meteor-wordnet"
    label = "METEOR (WordNet)"

    INSTALL_HINT = ("METEOR with WordNet synonyms needs NLTK and its WordNet data installed locally: "
                    "'pip install nltk' and 'python -m nltk.downloader wordnet' (the platform never "
                    "downloads at run time); the offline metric 'meteor' needs neither")

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> None:
        self.check_available()
        from nltk.translate.meteor_score import meteor_score

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
        return float(self._meteor_score([tokens(r) for r in references], tokens(hypothesis),
                                        alpha=self.alpha, beta=self.beta, gamma=self.gamma))
