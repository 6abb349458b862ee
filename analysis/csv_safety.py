"""CSV cells that a spreadsheet cannot run as formulas (CSV/formula injection, OWASP).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula (``=HYPERLINK(…)``, ``+cmd|' /C calc'!A0``). Every CSV
the platform writes passes its cells through :func:`cell`, which puts a ``'`` in front of such text
(spreadsheets show the text as typed and hide the quote). Numbers, and text that is a plain number
such as ``-0.25`` or ``-inf``, are left alone, so numeric columns stay numeric. The quote stays in
the file: a system named ``=x`` is read back from an exported CSV as ``'=x`` (rare, and harmless).
"""
from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_STARTS = frozenset(FORMULA_STARTS)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|nan|infinity)", re.IGNORECASE)


def cell(value: Any) -> Any:
    """``value`` safe to write into a CSV cell (only text is ever changed)."""
    if not isinstance(value, str) or not value:
        return value
    if value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def row(values: Iterable[Any]) -> list[Any]:
    """Every cell of a row through :func:`cell` (inlined: exports write millions of cells)."""
    return ["'" + v if v.__class__ is str and v[:1] in _STARTS and not _NUMBER.fullmatch(v) else v for v in values]


class SafeWriter:
    """``csv.writer`` whose every cell goes through :func:`cell` (same ``writerow``/``writerows``)."""

    def __init__(self, stream: TextIO, **options: Any) -> None:
        options.setdefault("lineterminator", "\n")
        self._writer = csv.writer(stream, **options)

    def writerow(self, values: Iterable[Any]) -> Any:
        return self._writer.writerow(row(values))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        self._writer.writerows(map(row, rows))


def writer(stream: TextIO, **options: Any) -> SafeWriter:
    """A CSV writer (``lineterminator="\\n"`` unless given) that neutralises formula cells."""
    return SafeWriter(stream, **options)
