"""Degraded answers for ``BAD_REF`` slots (docs/method.md §3): a span of the system answer is replaced.

Pure: the caller passes the answer, a :class:`DonorPool` of other questions' references and a seeded
``random.Random``; the same inputs and generator state give the same result.

* Tokens come from :func:`da_core.text.tokenize`: whitespace words, and one token per character of
  Chinese, Japanese and Thai. When most tokens are such characters (:func:`is_character_script`) the
  span length of the table is doubled, capped at the answer's length (so a short CJK answer is replaced
  entirely, as a 1- or 2-word answer is).
* The replacement is a span of the same number of tokens from the reference of a *different* question.
  When no reference in the answer's script class is long enough (a few long English answers in a
  mostly Chinese test set), system answers to other questions in that script class are the donors
  (``DonorPool(..., answers=...)``; the record says ``donor_source``).
  Donors of the same script class (character script or not) are drawn first, and a donor span is
  only taken when it adds no script the answer does not already have (:func:`scripts`: Latin, CJK,
  Cyrillic, ...), so a Latin answer never gets Chinese characters nor a Chinese answer Latin words
  (unless it had some): a worker could spot such a check at a glance. :func:`check_scripts` is the
  build-time check of every degraded answer.
* Text outside the span is kept byte for byte (spacing and line breaks included); the donor span is
  copied with its own inner spacing.
* The result must differ from the original: a candidate that does not is dropped and another donor
  (and span) is drawn; when no donor can change the answer, :class:`DegradationError` says so.
"""
from __future__ import annotations

import bisect
import random
import unicodedata
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import TypeVar

from da_core.errors import BuildError
from da_core.text import is_character_script, tokenize

METHOD_NAME = "span-replacement"
METHOD_VERSION = 2  # 2: a donor span may not add a script the answer lacks
RANDOM_DRAWS = 20  # random donor draws before falling back to a full scan of the pool

# (smallest, largest) answer length in tokens -> span replaced; the last row is length // 4.
SPAN_TABLE = ((1, 1, 1), (2, 5, 2), (6, 8, 3), (9, 15, 4), (16, 20, 5))


class DegradationError(BuildError):
    """An answer could not be degraded (empty, or no donor changes it)."""


def span_length(tokens: int, *, character_script: bool = False) -> int:
    """Number of tokens to replace in an answer of ``tokens`` tokens (docs/method.md §3 table)."""
    if tokens < 1:
        raise DegradationError("an empty answer cannot be degraded")
    length = next((span for low, high, span in SPAN_TABLE if low <= tokens <= high), tokens // 4)
    if character_script:
        length *= 2
    return min(length, tokens)


def method_description() -> dict:
    """What goes into ``Campaign.settings["degradation"]``: the method and all its parameters."""
    return {
        "method": METHOD_NAME,
        "version": METHOD_VERSION,
        "replaces": "the system answer (never the reference)",
        "tokenizer": "da_core.text.tokenize (whitespace words; one token per CJK/Thai character)",
        "span_table": [{"tokens_from": lo, "tokens_to": hi, "span": span} for lo, hi, span in SPAN_TABLE]
        + [{"tokens_from": SPAN_TABLE[-1][1] + 1, "tokens_to": None, "span": "tokens // 4"}],
        "character_script": "span doubled (capped at the answer length) when most tokens are CJK/Thai",
        "donor_pool": "reference 0 of every other question of the test set; same script class first, then "
                      "system answers to other questions of that class; only spans that add no script the "
                      "answer lacks",
        "must_differ": True,
        "random_draws_before_scan": RANDOM_DRAWS,
    }


def scripts(text: str) -> frozenset[str]:
    """The scripts of the letters of ``text`` (first word of each letter's Unicode name: LATIN, CJK,
    HIRAGANA, CYRILLIC, ARABIC, ...); digits, punctuation and spaces belong to none."""
    found = set()
    for character in text:
        if unicodedata.category(character)[0] == "L":
            name = unicodedata.name(character, "")
            found.add("LATIN" if name.startswith("FULLWIDTH LATIN") else name.split(" ", 1)[0])
    return frozenset(found)


class MixedScriptError(DegradationError):
    """A degraded answer has a script its original did not have."""


def check_scripts(original: str, degraded: str, where: str) -> None:
    """Fail when ``degraded`` mixes in a script that ``original`` did not have."""
    added = scripts(degraded) - scripts(original)
    if added:
        raise MixedScriptError(f"{where}: the degraded answer adds {', '.join(sorted(added))} text to an answer "
                               f"without it ({degraded[:60]!r}); checks must keep the answer's script")


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets (start, end) of each token of :func:`tokenize`, in order."""
    spans = []
    position = 0
    for token in tokenize(text):
        start = text.index(token, position)
        position = start + len(token)
        spans.append((start, position))
    return spans


@dataclass(frozen=True)
class _Donor:
    key: Hashable
    text: str
    spans: tuple[tuple[int, int], ...]
    source: str = "reference"


Key = TypeVar("Key", bound=Hashable)
"""A question's key in a :class:`DonorPool` (any hashable id; one kind per pool)."""


class DonorPool:
    """References of the test set's questions (and, as a fallback, system answers to them), indexed
    for drawing a donor of a given length."""

    def __init__(self, references: Mapping[Key, str], answers: Mapping[Key, Iterable[str]] | None = None) -> None:
        groups: dict[tuple[str, bool], list[_Donor]] = {(source, script): [] for source in ("reference", "answer")
                                                         for script in (True, False)}
        texts = [(key, text, "reference") for key, text in references.items()]
        texts += [(key, text, "answer") for key, many in (answers or {}).items() for text in dict.fromkeys(many)]
        for key, text, source in texts:
            spans = tuple(token_spans(text))
            if spans:
                groups[source, is_character_script(text)].append(_Donor(key, text, spans, source))
        # Sorted by length (stable, so ties keep the caller's order): donors of at least n tokens
        # are a suffix found by bisection.
        self._groups = {group: sorted(donors, key=lambda d: len(d.spans)) for group, donors in groups.items()}
        self._lengths = {group: [len(d.spans) for d in donors] for group, donors in self._groups.items()}

    def __len__(self) -> int:
        return sum(len(donors) for (source, _), donors in self._groups.items() if source == "reference")

    def _eligible(self, group: tuple[str, bool], tokens: int) -> list[_Donor]:
        donors = self._groups[group]
        return donors[bisect.bisect_left(self._lengths[group], tokens):]

    def candidates(self, *, exclude: Hashable, tokens: int, character_script: bool,
                   rng: random.Random) -> Iterator[_Donor]:
        """Donors of at least ``tokens`` tokens other than ``exclude``: random draws, then every one;
        references of the same script class, then answers of that class, then the other class."""
        order = [("reference", character_script), ("answer", character_script),
                 ("reference", not character_script), ("answer", not character_script)]
        for group in order:
            eligible = self._eligible(group, tokens)
            if not eligible:
                continue
            for _ in range(RANDOM_DRAWS):
                donor = eligible[rng.randrange(len(eligible))]
                if donor.key != exclude:
                    yield donor
            for index in rng.sample(range(len(eligible)), len(eligible)):
                if eligible[index].key != exclude:
                    yield eligible[index]


@dataclass(frozen=True)
class Degradation:
    """A degraded answer and how it was made (stored as ``Slot.degradation``)."""

    text: str
    tokens: int
    character_script: bool
    span_start: int  # first replaced token of the answer
    span_length: int  # tokens replaced
    donor_question: Hashable
    donor_span_start: int  # first token of the donor reference copied in
    attempts: int
    donor_source: str = "reference"  # or "answer": a system answer to the donor question

    def record(self) -> dict:
        record = asdict(self)
        del record["text"]
        return {"method": METHOD_NAME, **record}


def degrade(answer: str, *, question: Hashable, donors: DonorPool, rng: random.Random) -> Degradation:
    """Replace a span of ``answer`` (the answer to ``question``) with a span of another reference."""
    spans = token_spans(answer)
    if not spans:
        raise DegradationError(f"the answer to question {question!r} is empty and cannot be degraded")
    character_script = is_character_script(answer)
    length = span_length(len(spans), character_script=character_script)
    own_scripts = scripts(answer)
    attempts = 0
    for donor in donors.candidates(exclude=question, tokens=length, character_script=character_script,
                                   rng=rng):
        attempts += 1
        start = rng.randrange(len(spans) - length + 1)
        donor_start = rng.randrange(len(donor.spans) - length + 1)
        replacement = donor.text[donor.spans[donor_start][0]:donor.spans[donor_start + length - 1][1]]
        if not scripts(replacement) <= own_scripts:
            continue
        text = answer[:spans[start][0]] + replacement + answer[spans[start + length - 1][1]:]
        if text != answer:
            return Degradation(text, len(spans), character_script, start, length, donor.key,
                               donor_start, attempts, donor.source)
    raise DegradationError(
        f"no reference of another question has {length} token(s) in the answer's script that change the "
        f"answer to question "
        f"{question!r} ({answer[:60]!r}); the donor pool holds {len(donors)} reference(s)"
    )
