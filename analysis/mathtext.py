"""Text from the data as matplotlib draws it literally (no mathtext), for every plot label."""
from __future__ import annotations


def plain_text(text: object) -> str:
    """``text`` as matplotlib shows it literally: every ``$`` escaped, so names from the data are
    never parsed as mathtext (an unbalanced ``$...`` would fail the whole plot)."""
    return str(text).replace("$", r"\$")
