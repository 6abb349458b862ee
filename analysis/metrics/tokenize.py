"""The tokenisations the automatic metrics can use, each with the name its signature records.

- ``words`` (default; the recommendation of Yang et al.'s definition): a whitespace-free run of text
  that holds a Chinese, Japanese or Thai character is split into single characters (so digits and
  Latin letters inside such text are characters too: "8848.86米" is 8 tokens); elsewhere a token is a
  word (letters, digits, combining marks, ``_``; a decimal number such as ``8848.86`` or ``1,000`` stays
  one word) and every other non-space character is a token of its own (punctuation split off: a
  sentence-final period is a token). Case is kept; nothing is lemmatised.
- ``chars``: every character of the text with its whitespace removed, in every script (what the
  official MRC2018 scorer does; meaningful for Chinese, not for English).

Degradation (docs/method.md §3) keeps its own whitespace tokens (``da_core.text.tokenize``).
"""
from __future__ import annotations

from collections.abc import Callable

import regex

from da_core.text import CHARACTER_RANGES

_HAS_CHARACTER = regex.compile(f"[{CHARACTER_RANGES}]")
_WORD = regex.compile(r"\d+(?:[.,]\d+)+|[\p{L}\p{N}\p{M}_]+|[^\p{L}\p{N}\p{M}_\s]")


def word_tokens(text: str) -> list[str]:
    """The ``words`` tokenisation (see the module docstring)."""
    tokens: list[str] = []
    for chunk in text.split():
        if _HAS_CHARACTER.search(chunk):
            tokens.extend(chunk)
        else:
            tokens.extend(_WORD.findall(chunk))
    return tokens


def char_tokens(text: str) -> list[str]:
    """The ``chars`` tokenisation: every non-whitespace character."""
    return [c for c in text if not c.isspace()]


#: Tokenisation name → function; the name is what a metric's signature records as ``tok:``.
TOKENIZATIONS: dict[str, Callable[[str], list[str]]] = {"words": word_tokens, "chars": char_tokens}
DEFAULT_TOKENIZATION = "words"


def get_tokenizer(name: str) -> Callable[[str], list[str]]:
    """The tokenisation called ``name`` (``ValueError`` lists the known ones)."""
    try:
        return TOKENIZATIONS[name]
    except KeyError:
        raise ValueError(f"unknown tokenisation {name!r}; known: {', '.join(TOKENIZATIONS)}") from None
