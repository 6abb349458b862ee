"""Script-aware tokenisation shared by degradation (docs/method.md §3) and the automatic metrics.

Chinese, Japanese and Thai are written without spaces between words, so each of their characters
is one token; every other script is split on whitespace. Mixed text gets both treatments.
"""
from __future__ import annotations

import re

# Ranges whose characters count as one token each: CJK ideographs (with extensions and
# compatibility forms), CJK punctuation, kana, full-width forms, and Thai.
_CHARACTER_RANGES = (
    "\u0e00-\u0e7f"          # Thai
    "\u2e80-\u2fdf"          # CJK radicals, Kangxi radicals
    "\u3000-\u303f"          # CJK symbols and punctuation
    "\u3040-\u30ff"          # Hiragana, Katakana
    "\u31f0-\u31ff"          # Katakana phonetic extensions
    "\u3400-\u4dbf"          # CJK extension A
    "\u4e00-\u9fff"          # CJK unified ideographs
    "\uf900-\ufaff"          # CJK compatibility ideographs
    "\uff00-\uffef"          # half-width and full-width forms
    "\U00020000-\U0003134f"  # CJK extensions B-G and compatibility supplement
)
#: The same ranges, for other modules' character classes (e.g. the metrics' tokenisation).
CHARACTER_RANGES = _CHARACTER_RANGES
_CHARACTER = re.compile(f"[{_CHARACTER_RANGES}]")
_TOKEN = re.compile(f"[{_CHARACTER_RANGES}]|[^\\s{_CHARACTER_RANGES}]+")


def is_character_token(token: str) -> bool:
    """True when the token is a single character of a script written without spaces."""
    return len(token) == 1 and _CHARACTER.match(token) is not None


def tokenize(text: str) -> list[str]:
    """Split text into tokens: one per CJK/Thai character, one per whitespace-separated run otherwise."""
    return _TOKEN.findall(text)


def is_character_script(text: str) -> bool:
    """True when most tokens of the text are CJK/Thai characters (docs/method.md §3 then doubles span lengths)."""
    tokens = tokenize(text)
    if not tokens:
        return False
    return sum(is_character_token(t) for t in tokens) * 2 > len(tokens)


def detokenize(tokens: list[str]) -> str:
    """Join tokens back into text: no space next to a CJK/Thai character, one space elsewhere."""
    parts: list[str] = []
    previous: str | None = None
    for token in tokens:
        if previous is not None and not (is_character_token(previous) or is_character_token(token)):
            parts.append(" ")
        parts.append(token)
        previous = token
    return "".join(parts)
