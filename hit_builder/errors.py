"""The error type for a campaign that cannot be built as asked (assembly, degradation, fonts, shaping)."""
from __future__ import annotations


class BuildError(ValueError):
    """The campaign cannot be built; the message says what to change (text, font, size of the test set)."""
