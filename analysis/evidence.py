"""What a ratings table can carry beside the scores: each rating's behaviour record and the text it showed.

One array per field, row-aligned with the ``RatingsTable`` that holds it (``RatingsTable.evidence``).
Only the platform's database loader fills it (files such as WMT releases have no behaviour records and
no answer texts); analysis functions treat a table without evidence as "not applicable", never as bad.

Fields per rating:

- ``record``: code into ``RECORD_STATUSES``: ``unknown`` (recorded before behaviour was stored), ``valid``,
  or why there was no valid record (``missing``, ``invalid``, ``oversized``, ``mismatched``), or
  ``forged``: a well-formed record claiming more time on the item than the server saw (see
  ``SERVER_TIME_TOLERANCE_MS``), which no page can send;
- from a valid or forged record (NaN otherwise): ``first_input_ms``, ``interactions`` (pointer + touch + key events
  on the slider), ``hidden_ms``, ``blur_ms``, ``paste``, ``copy``, ``shown_ms``; ``traces``: one column per
  automation trace of ``AUTOMATION_TRACES`` (1 seen, 0 not, NaN when the record does not report it: pages
  older than the traces);
- from the text shown: ``words`` (tokens of space-separated scripts) and ``characters`` (CJK/Thai
  characters), over the candidate and, when the worker saw it, the reference; ``overlap``: one column
  per measure of ``OVERLAP_MEASURES`` of candidate against reference (NaN without a reference): the
  character-level LCS F-measure, and ROUGE-L and token F1 of ``analysis.metrics``. A bot scores by
  some such measure; several are kept so that it matches one of them closely;
- ``judge``: one column per automatic judge whose per-answer scores the researcher imported (for
  example an LLM judge they ran; NaN where the judge gave no score, and always on check slots, which
  show altered answers the judge never saw);
- ``images_served``: the server's own record, beside the page's (``images_loaded`` of the record): 1 when
  every image the slot shows had been served to the assignment before the rating, 0 when one had not (the
  item was rated without its pictures ever being fetched: not by the platform's page), NaN when unknown
  (rated before the server kept the record, or a file).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

import numpy as np

from analysis.metrics.lcs import lcs_length
from da_core.text import is_character_token, tokenize

OVERLAP_MEASURES: tuple[str, ...] = ("character LCS F1", "ROUGE-L", "token F1")
AUTOMATION_TRACES: tuple[str, ...] = ("webdriver", "headless_ua", "software_gl")
"""The optional automation traces of a behaviour record (``da_platform.rating.behaviour_record.TRACES``), in column
order."""

RECORD_STATUSES: tuple[str, ...] = ("unknown", "valid", "missing", "invalid", "oversized", "mismatched", "forged")
UNKNOWN, VALID, FORGED = 0, 1, 6

SERVER_TIME_TOLERANCE_MS = 2000
"""How much longer than the server's time on an item (served -> rating received) a record may claim the
item was shown. By causality a page's ``shown_ms`` is shorter than the server's time: the server notes
the serving before its answer leaves, the page starts its clock when the answer has arrived and stops
it before the rating is sent, and the server notes the rating after it arrived. What can make it longer:
clocks of several application hosts set apart (NTP keeps them within tens of milliseconds), a clock
step on the server, and browsers that coarsen ``performance.now()`` against fingerprinting (to 100 ms,
at most 1 s). Two seconds cover all of these; a bot that claims a person's 5-30 s while it answered in
a fraction of a second is far beyond them."""

_RECORD_FIELDS = ("first_input_ms", "interactions", "hidden_ms", "blur_ms", "paste", "copy", "shown_ms")


@dataclass(frozen=True)
class RatingEvidence:
    """Per-rating behaviour and text measures (see the module docstring); all arrays have one row per rating."""

    record: np.ndarray  # int8 codes into RECORD_STATUSES
    first_input_ms: np.ndarray
    interactions: np.ndarray
    hidden_ms: np.ndarray
    blur_ms: np.ndarray
    paste: np.ndarray
    copy: np.ndarray
    shown_ms: np.ndarray
    words: np.ndarray  # int64
    characters: np.ndarray  # int64
    overlap: np.ndarray  # float64, shape (ratings, len(OVERLAP_MEASURES))
    judge: np.ndarray  # float64, shape (ratings, judges): imported automatic judges' scores
    traces: np.ndarray  # float64 1/0/NaN, shape (ratings, len(AUTOMATION_TRACES))
    images_served: np.ndarray  # float64 1/0/NaN: the server had served every image of the slot before the rating

    def __len__(self) -> int:
        return len(self.record)

    def take(self, rows: np.ndarray) -> RatingEvidence:
        """The rows selected by an index array."""
        return RatingEvidence(*(getattr(self, f.name)[rows] for f in fields(self)))

    def extended(self, n: int) -> RatingEvidence:
        """These rows followed by ``n`` rows without evidence (``empty``), e.g. for copied ratings."""
        if n == 0:
            return self
        more = RatingEvidence.empty(n, judges=self.judge.shape[1])
        return RatingEvidence(*(np.concatenate([getattr(self, f.name), getattr(more, f.name)]) for f in fields(self)))

    @property
    def valid(self) -> np.ndarray:
        """Rows with a valid behaviour record."""
        return self.record == VALID

    @property
    def well_formed(self) -> np.ndarray:
        """Rows with a record the server accepted as well-formed for its slot: valid or forged."""
        return (self.record == VALID) | (self.record == FORGED)

    @classmethod
    def from_rows(cls, statuses: Sequence[str | None], records: Sequence[Mapping[str, Any] | None],
                  candidates: Sequence[str], references: Sequence[str | None],
                  reference_shown: bool, server_seconds: Sequence[float] | None = None,
                  judge: np.ndarray | None = None,
                  images_served: Sequence[bool | None] | None = None) -> RatingEvidence:
        """Build from each rating's stored status and record and the texts of its slot.

        ``server_seconds``: each rating's time on item as the server saw it (served -> received; NaN
        unknown); a valid record claiming more than that plus ``SERVER_TIME_TOLERANCE_MS`` is ``forged``.
        ``judge``: the imported judges' scores, one column per judge (None: no judge). ``images_served``: the
        server's record per rating (None: unknown)."""
        n = len(statuses)
        code = {name: i for i, name in enumerate(RECORD_STATUSES)}
        record = np.fromiter((code.get(s or "unknown", UNKNOWN) for s in statuses), dtype=np.int8, count=n)
        columns = {name: np.full(n, np.nan) for name in _RECORD_FIELDS}
        traces = np.full((n, len(AUTOMATION_TRACES)), np.nan)
        for i, (status, data) in enumerate(zip(record.tolist(), records)):
            if status == VALID and not data:
                record[i] = code["invalid"]
            if record[i] != VALID or data is None:
                continue
            first = data.get("first_input_ms")
            columns["first_input_ms"][i] = np.nan if first is None else first
            columns["interactions"][i] = data["pointer"] + data["touch"] + data["key"]
            for name in ("hidden_ms", "blur_ms", "paste", "copy", "shown_ms"):
                columns[name][i] = data[name]
            for t, name in enumerate(AUTOMATION_TRACES):
                if data.get(name) is not None:
                    traces[i, t] = data[name]
            if server_seconds is not None and data["shown_ms"] > server_seconds[i] * 1000 + SERVER_TIME_TOLERANCE_MS:
                record[i] = FORGED  # (NaN: unknown server time, never larger)
        words = np.zeros(n, dtype=np.int64)
        characters = np.zeros(n, dtype=np.int64)
        overlap = np.full((n, len(OVERLAP_MEASURES)), np.nan)
        for i, (candidate, reference) in enumerate(zip(candidates, references)):
            shown = [candidate, reference] if reference_shown and reference else [candidate]
            words[i], characters[i] = reading_units(shown)
            if reference:
                overlap[i] = overlaps(candidate, reference)
        judges = np.zeros((n, 0)) if judge is None else np.asarray(judge, dtype=np.float64).reshape(n, -1)
        served = np.fromiter((np.nan if v is None else float(v) for v in (images_served or [None] * n)),
                             dtype=np.float64, count=n)
        return cls(record, **columns, words=words, characters=characters, overlap=overlap, judge=judges,
                   traces=traces, images_served=served)

    @classmethod
    def empty(cls, n: int, judges: int = 0) -> RatingEvidence:
        """No evidence for ``n`` ratings (status unknown, no text, no judge score of ``judges`` judges)."""
        return cls.from_rows([None] * n, [None] * n, [""] * n, [None] * n, False, judge=np.full((n, judges), np.nan))


def reading_units(texts: Iterable[str]) -> tuple[int, int]:
    """(words of space-separated scripts, CJK/Thai characters) in the texts, by ``da_core.text.tokenize``."""
    words = characters = 0
    for text in texts:
        w, c = _units(text or "")
        words, characters = words + w, characters + c
    return words, characters


@lru_cache(maxsize=1 << 16)
def _units(text: str) -> tuple[int, int]:
    words = characters = 0
    for token in tokenize(text):
        if is_character_token(token):
            characters += 1
        else:
            words += 1
    return words, characters


@lru_cache(maxsize=1 << 16)
def overlaps(candidate: str, reference: str) -> tuple[float, ...]:
    """Each measure of ``OVERLAP_MEASURES`` of the candidate against the reference (0–1).

    About 0.2 ms a pair; remembered per pair of texts (a slot's texts never change), so that the
    dashboard, which reloads a campaign's ratings on every page, computes each pair once per process."""
    from analysis.metrics.rouge import RougeL
    from analysis.metrics.squad import TokenF1

    if not candidate.strip():
        return (character_overlap(candidate, reference), 0.0, 0.0)
    return (character_overlap(candidate, reference),
            float(RougeL().sentence_score(candidate.lower(), [reference.lower()])),
            float(TokenF1().sentence_score(candidate, [reference])))


def character_overlap(candidate: str, reference: str) -> float:
    """Character-level LCS F-measure (F1) of two texts, whitespace removed: 2·LCS / (|c| + |r|); 0–1."""
    a, b = "".join(candidate.split()), "".join(reference.split())
    if not a and not b:
        return 1.0
    return 2.0 * lcs_length(a, b) / (len(a) + len(b))
