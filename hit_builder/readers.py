"""Reading a researcher's table files (JSONL, CSV, TSV, each also gzipped) into records that remember their line.

This module only knows file formats: bytes (gunzipped for a name ending in ``.gz``,
:mod:`da_core.files`) → UTF-8 text → one :class:`Record` per JSON object or table row, each with the
1-based line it starts on. What the fields mean is decided by
:mod:`hit_builder.records`. Every problem raises :class:`~da_core.errors.InputError` naming the
file, the line and (where there is one) the field.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from da_core.errors import InputError
from da_core.files import GZIP, content_suffix, missing_file, open_input, read_input_bytes

#: File name endings and the format each one is read as (each also gzipped: ``.csv.gz``).
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Record:
    """One JSON object or table row: its values by field name and the line it starts on."""

    line: int
    values: dict[str, Any]


@dataclass(frozen=True)
class Table:
    """A whole file: its format, the fields it uses (header order) and its records in file order."""

    file: str
    format: str
    fields: tuple[str, ...]
    records: tuple[Record, ...]
    header_line: int | None = None  # CSV/TSV: the line of the header row

    def error(self, message: str, *, line: int | None = None, field: str | None = None) -> InputError:
        """An :class:`InputError` located in this file."""
        return InputError(message, file=self.file, line=line, field=field)

    def where(self, line: int) -> str:
        """Where the record of ``line`` is, for a message: ``on line 3``."""
        return f"on line {line}"


@dataclass(frozen=True)
class TableStream(Table):
    """A file read one record at a time (:func:`stream_table`): ``records`` is an iterator, read once, that
    raises at the first bad line (nothing after it is read); ``fields`` are the header's (CSV/TSV), or
    empty for JSON lines, whose records name their own fields."""

    records: Iterator[Record]  # type: ignore[assignment]  # an iterator where Table holds a tuple


def read_table(path: str | Path) -> Table:
    """Read a JSONL, CSV or TSV file (chosen by its ending, under a ``.gz``) into a :class:`Table`.

    The file must be UTF-8 (a leading byte-order mark is dropped). Blank lines are skipped. JSON lines
    are read one line at a time (the file's text is never held whole).
    """
    kind = _format_of(Path(path))
    if kind == "jsonl":
        return read_json_lines(path)
    return _read_delimited(read_text(path), str(path), kind)


def stream_table(path: str | Path) -> TableStream:
    """Like :func:`read_table`, but one record at a time: memory stays that of one record (and a CSV/TSV
    header) whatever the file's size, and a bad line stops the reading there, with the same errors.
    An empty file is refused once its end is reached ("the file is empty")."""
    file = str(path)
    kind = _format_of(Path(path))
    lines = _text_lines(path, file)
    if kind == "jsonl":
        return TableStream(file, kind, (), _nonempty(_jsonl_records(lines, file), file))
    header, header_line, records = _delimited(_universal_newlines(lines), file, kind, empty_is="the file is empty")
    return TableStream(file, kind, tuple(header), records, header_line)


def _format_of(path: Path) -> str:
    """The table format the file's name says (its ending under a ``.gz``); a missing file is said first."""
    missing = missing_file(path)
    if missing is not None:
        raise missing
    suffix = content_suffix(path)
    kind = FORMATS.get(suffix)
    if kind is None:
        raise InputError(f"unknown file type {suffix or '(none)'!r}: use one of {accepted_endings()}", file=str(path))
    return kind


def _nonempty(records: Iterator[Record], file: str) -> Iterator[Record]:
    empty = True
    for record in records:
        empty = False
        yield record
    if empty:
        raise InputError("the file is empty", file=file)


_BARE_CR = re.compile(r"(?<=\r)(?!\n)")


def _universal_newlines(lines: Iterator[tuple[int, str]]) -> Iterator[str]:
    """``_text_lines``' lines with their ends, split as ``io.StringIO(text, newline="")`` splits a whole
    text for the csv module: at ``\n``, ``\r\n`` and a bare ``\r``."""
    for _number, text in lines:
        yield from _BARE_CR.split(text + "\n")


def accepted_endings(*others: str) -> str:
    """The file endings a reader accepts, for a message: the table formats', ``others``, and each gzipped."""
    return ", ".join([*sorted(FORMATS), *others]) + f" (each also gzipped, ending in {GZIP})"


def read_json_lines(path: str | Path) -> Table:
    """Read a file as JSON lines whatever its ending (DuReader's end in ``.json``), like ``read_table``."""
    file = str(path)
    table = _read_jsonl(_text_lines(path, file), file)
    if not table.records:
        raise InputError("the file is empty", file=file)
    return table


def _text_lines(path: str | Path, file: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line split on ``\n`` only, decoded as UTF-8 one line at a time
    (a leading byte-order mark dropped), with ``decode_utf8``'s errors."""
    with open_input(path, binary=True) as handle:
        offset = 0
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            try:
                yield number, raw.decode("utf-8").removesuffix("\n")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {offset + exc.start} "
                    f"(byte {exc.start + 1} of the line); save the file as UTF-8",
                    file=file,
                    line=number,
                ) from None
            offset += len(raw)


def read_text(path: str | Path) -> str:
    """The file's text (gunzipped for ``.gz``): UTF-8 (see ``decode_utf8``), not empty; errors name the file, never
    a traceback."""
    file = str(path)
    text = decode_utf8(read_input_bytes(path), file)
    if not text.strip():
        raise InputError("the file is empty", file=file)
    return text


def decode_utf8(data: bytes, file: str) -> str:
    """Decode UTF-8 (dropping a byte-order mark); say on which line and byte it is not UTF-8."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start} "
            f"(byte {column} of the line); save the file as UTF-8",
            file=file,
            line=line,
        ) from None


def _reject_duplicate_keys(file: str, line: int) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise InputError("the field appears twice in one object", file=file, line=line, field=key)
            result[key] = value
        return result

    return hook


def _read_jsonl(lines: Iterator[tuple[int, str]], file: str) -> Table:
    records = tuple(_jsonl_records(lines, file))
    fields = dict.fromkeys(field for record in records for field in record.values)
    return Table(file, "jsonl", tuple(fields), records)


def _jsonl_records(lines: Iterator[tuple[int, str]], file: str) -> Iterator[Record]:
    # Lines split on "\n" only: str.splitlines() would also split inside a string at U+2028, U+0085, ...
    for number, raw in lines:
        if not raw.strip():
            continue
        value = parse_json(raw, file, line=number, object_pairs_hook=_reject_duplicate_keys(file, number))
        if not isinstance(value, dict):
            raise InputError(
                f"each line must be one JSON object {{...}}, not a JSON {type(value).__name__}",
                file=file,
                line=number,
            )
        _check_text(value, file, number)
        yield Record(number, value)


def parse_json(text: str, file: str, *, line: int | None = None,
               object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """One JSON value (a whole file, or the ``line`` of a JSON-lines file) with errors that name the file and
    line, never a traceback: invalid JSON, nesting too deep for Python, integers of more than 4,300 digits."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", file=file,
                         line=exc.lineno if line is None else line) from None
    except InputError:  # from the hook (a duplicate key)
        raise
    except RecursionError:
        raise InputError("not valid here: the JSON is nested too deeply", file=file, line=line) from None
    except ValueError:  # Python refuses integers of more than 4,300 digits
        raise InputError("not valid here: a number in it has too many digits (ids are best quoted as text)",
                         file=file, line=line) from None


LONE_SURROGATE = "a \\u escape names half of a character (a lone surrogate such as \\ud800), which is not text"


def lone_surrogate(value: Any) -> tuple[str, str | None, str] | None:
    """The first lone surrogate (a ``\\ud800`` escape: valid JSON, but no character, so no database or UTF-8
    file can store it) in a JSON value, as (JSON path, top-level key it is under, the text holding it); a key
    is checked at its object's path. None if there is none. Walks the nesting without recursion."""
    pending: list[tuple[str, str | None, Any]] = [("", None, value)]
    while pending:
        path, top, item = pending.pop()
        texts: tuple[str, ...]
        if isinstance(item, str):
            texts = (item,)
        elif isinstance(item, dict):
            texts = tuple(item)
            pending.extend((f"{path}.{key}" if path else str(key), key if top is None else top, child)
                           for key, child in item.items())
        elif isinstance(item, list):
            texts = ()
            pending.extend((f"{path}[{k}]", top, child) for k, child in enumerate(item))
        else:
            continue
        for text in texts:
            if _SURROGATE.search(text):
                return path, top, text
    return None


def _check_text(record: dict[str, Any], file: str, line: int) -> None:
    """Refuse a lone surrogate in a record, naming the record's field that holds it (or the key itself)."""
    found = lone_surrogate(record)
    if found is not None:
        _path, top, text = found
        raise InputError(LONE_SURROGATE, file=file, line=line, field=top or text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _read_delimited(text: str, file: str, kind: str) -> Table:
    header, header_line, records = _delimited(io.StringIO(text, newline=""), file, kind)
    return Table(file, kind, tuple(header), tuple(records), header_line)


def _delimited(lines: Iterable[str], file: str, kind: str,
               empty_is: str = "") -> tuple[list[str], int, Iterator[Record]]:
    """The header row, its line, and an iterator of the records after it, read as they are asked for.
    ``empty_is``: the message for a file of nothing but white space (``read_text`` refuses one itself)."""
    rows = _Rows(lines, file, kind)
    for start, row in rows:
        if all(not cell.strip() for cell in row):
            if len(row) > 1:  # a header row of empty cells, not a blank line
                raise InputError("the header row has no column names (every cell is empty); the first "
                                 "row must name the columns", file=file, line=start)
            continue
        header = _header(row, file, start)
        return header, start, _records(rows, header, file, kind)
    if empty_is and not rows.text_seen:
        raise InputError(empty_is, file=file)
    # only empty cells (e.g. a lone "" line): not blank text, but no header
    raise InputError("the file has no header row (every cell is empty)", file=file, line=1)


def _records(rows: _Rows, header: list[str], file: str, kind: str) -> Iterator[Record]:
    for start, row in rows:
        if all(not cell.strip() for cell in row):
            continue  # blank lines, and empty rows after the header (spreadsheets add them)
        if len(row) != len(header):
            raise InputError(
                f"the row has {len(row)} cells but the header has {len(header)} "
                f"(is a cell with a {'comma' if kind == 'csv' else 'tab'} missing its quotes?)",
                file=file,
                line=start,
            )
        yield Record(start, dict(zip(header, row)))


class _Rows:
    """The rows of CSV/TSV lines, each with the line it starts on, read once; csv's errors as
    :class:`InputError`. ``text_seen``: whether a line read so far held more than white space."""

    def __init__(self, lines: Iterable[str], file: str, kind: str) -> None:
        self._lines = iter(lines)
        self._reader = csv.reader(self._watched(), delimiter="," if kind == "csv" else "\t", strict=True)
        self._file, self._kind = file, kind
        self._next_line = 1
        self.text_seen = False

    def _watched(self) -> Iterator[str]:
        for text in self._lines:
            self.text_seen = self.text_seen or bool(text.strip())
            yield text

    def __iter__(self) -> Iterator[tuple[int, list[str]]]:
        return self

    def __next__(self) -> tuple[int, list[str]]:
        try:
            row = next(self._reader)
        except csv.Error as exc:
            raise InputError(f"not valid {self._kind.upper()}: {exc}", file=self._file,
                             line=self._reader.line_num) from None
        start, self._next_line = self._next_line, self._reader.line_num + 1
        return start, row


def _header(row: list[str], file: str, line: int) -> list[str]:
    header = [cell.strip() for cell in row]
    seen: set[str] = set()
    for position, name in enumerate(header, start=1):
        if not name:
            raise InputError(f"column {position} of the header has no name", file=file, line=line)
        if name in seen:
            raise InputError("the column appears twice in the header", file=file, line=line, field=name)
        seen.add(name)
    return header
