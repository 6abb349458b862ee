"""Answers too long to read in reasonable time: found at import and build, reported with their ids.

Reading time is estimated from :func:`da_core.text.tokenize` tokens: a word at ``WORDS_PER_MINUTE``,
a CJK/Thai character at ``CHARACTERS_PER_MINUTE`` (careful reading, as a rater reads). An item whose
answer takes longer than ``LIMIT_SECONDS`` is too long for a task of 100 items in about 20 minutes.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from da_core.text import is_character_token, tokenize

WORDS_PER_MINUTE = 200
CHARACTERS_PER_MINUTE = 400
LIMIT_SECONDS = 30.0
SHOWN = 5  # longest ids named in the warning


def reading_seconds(text: str) -> float:
    """Estimated seconds to read ``text`` carefully."""
    tokens = tokenize(text)
    characters = sum(is_character_token(t) for t in tokens)
    return 60.0 * characters / CHARACTERS_PER_MINUTE + 60.0 * (len(tokens) - characters) / WORDS_PER_MINUTE


@dataclass(frozen=True)
class LongAnswers:
    """Answers over the limit: how many, and the longest (id, seconds) first."""

    count: int
    total: int
    limit_seconds: float
    longest: tuple[tuple[str, float], ...]

    def record(self) -> dict:
        return {"count": self.count, "answers": self.total, "limit_seconds": self.limit_seconds,
                "words_per_minute": WORDS_PER_MINUTE, "characters_per_minute": CHARACTERS_PER_MINUTE,
                "longest": [{"id": i, "seconds": round(s, 1)} for i, s in self.longest]}

    def warning(self) -> str | None:
        """The warning to show, or None when every answer can be read in time."""
        if not self.count:
            return None
        named = ", ".join(f"{i} ({s:.0f} s)" for i, s in self.longest)
        return (f"warning: {self.count} of {self.total} answers take more than {self.limit_seconds:.0f} s to "
                f"read ({WORDS_PER_MINUTE} words or {CHARACTERS_PER_MINUTE} CJK characters a minute); "
                f"the longest: {named}")


def long_answers(answers: Iterable[tuple[str, str]], limit_seconds: float = LIMIT_SECONDS) -> LongAnswers:
    """Check ``(id, text)`` pairs against the reading-time limit."""
    over = []
    total = 0
    for identifier, text in answers:
        total += 1
        seconds = reading_seconds(text)
        if seconds > limit_seconds:
            over.append((identifier, seconds))
    over.sort(key=lambda pair: (-pair[1], pair[0]))
    return LongAnswers(len(over), total, limit_seconds, tuple(over[:SHOWN]))
