"""CSV cells that a spreadsheet cannot run as formulas (CSV/formula injection, OWASP).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula (``=HYPERLINK(…)``, ``+cmd|' /C calc'!A0``); a line feed is
treated alike (a reader that ends a row there would see the rest start one). Every CSV
the platform writes passes its cells through :func:`cell`, which puts a ``'`` in front of such text
(spreadsheets show the text as typed and hide the quote). Numbers, and text that is a plain number
such as ``-0.25`` or ``-inf``, are left alone, so numeric columns stay numeric. The quote stays in
the file: a system named ``=x`` is read back from an exported CSV as ``'=x`` (rare, and harmless).

:class:`SafeWriter` also quotes every cell holding a line break, a bare carriage return included: the
csv module quotes only the characters of its line terminator (``\n`` here), so ``a\r=HYPERLINK(…)``
was written bare, and a spreadsheet, which ends a row at a bare ``\r``, read the rest as the next row,
whose first cell was then an un-neutralised formula. No importer lets a ``\r`` into a name today; the
writer does not rely on that.
"""
from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
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
    """``csv.writer`` whose every cell goes through :func:`cell` (same ``writerow``/``writerows``), and
    whose cells holding a carriage return are quoted (as cells holding a ``\n`` always are)."""

    def __init__(self, stream: TextIO, **options: Any) -> None:
        end = options.pop("lineterminator", "\n")
        # The csv module quotes a cell holding any character of its terminator: "\r\n" makes it quote
        # every cell with a \r or a \n; each row's terminator is then replaced with the one asked for.
        self._writer = csv.writer(_Terminated(stream, end), lineterminator="\r\n", **options)

    def writerow(self, values: Iterable[Any]) -> Any:
        return self._writer.writerow(row(values))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        self._writer.writerows(map(row, rows))


class _Terminated:
    """A stream the csv module writes its rows to (one ``write`` per row, ending in ``\r\n``), passing each
    on to ``stream`` with ``end`` as its terminator."""

    def __init__(self, stream: TextIO, end: str) -> None:
        self.stream, self.end = stream, end

    def write(self, line: str) -> Any:
        return self.stream.write(line[:-2] + self.end)


def writer(stream: TextIO, **options: Any) -> SafeWriter:
    """A CSV writer (``lineterminator="\\n"`` unless given) that neutralises formula cells."""
    return SafeWriter(stream, **options)
