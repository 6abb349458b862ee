"""Readers of standard QA formats, and the choice of reader for a file (``--format``, guessed by default).

``platform`` is the import format of docs/input-formats.md (JSONL, CSV, TSV); ``squad`` (v1.1/v2.0)
and ``cmrc`` (CMRC 2018, the same layout) are whole JSON files; ``dureader`` and ``msmarco`` are JSON
lines; each may be gzipped (``dev.json.gz``: its format told by the ending before ``.gz``). Every
reader returns a :class:`~hit_builder.readers.Table` of records in the platform's field names, which
:mod:`hit_builder.records` then checks; errors name the file, the line (or JSON path) and the source's
own field.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from da_core.errors import InputError
from da_core.files import content_suffix, missing_file, open_input
from hit_builder.formats import dureader, msmarco, squad
from hit_builder.readers import FORMATS as PLATFORM_ENDINGS
from hit_builder.readers import Table, accepted_endings, read_table

#: Format names accepted by ``--format`` (``auto`` guesses).
FORMAT_NAMES = ("platform", "squad", "cmrc", "dureader", "msmarco")

_TEST_SET: dict[str, Callable[[Path], Table]] = {
    "platform": lambda path: _platform(path),
    "squad": lambda path: squad.read_test_set(path, "squad"),
    "cmrc": lambda path: squad.read_test_set(path, "cmrc"),
    "dureader": dureader.read_test_set,
    "msmarco": msmarco.read_test_set,
}
_ANSWERS: dict[str, Callable[[Path], Table]] = {
    "platform": lambda path: _platform(path),
    "squad": lambda path: squad.read_answers(path, "squad"),
    "cmrc": lambda path: squad.read_answers(path, "cmrc"),
    "dureader": dureader.read_answers,
    "msmarco": msmarco.read_answers,
}


#: The standard formats' ending, for messages.
JSON_ENDING = ".json (SQuAD, CMRC, DuReader, MS MARCO)"


def guess_format(path: str | Path) -> str:
    """The format of a file from its ending (under a ``.gz``) and its first record; ``InputError`` when it cannot
    tell, or the file is missing."""
    path = Path(path)
    suffix = content_suffix(path)
    if suffix in PLATFORM_ENDINGS and PLATFORM_ENDINGS[suffix] != "jsonl":
        return "platform"
    with open_input(path, binary=True) as stream:
        head = stream.read(1 << 16)
    text = head.decode("utf-8", errors="ignore").lstrip("\ufeff \t\r\n")  # a cut character is no error here
    keys: set[str] = set()
    try:
        first = json.loads(text.split("\n", 1)[0])
        keys = set(first) if isinstance(first, dict) else set()
    except (ValueError, RecursionError):
        pass
    if "question_id" in keys and keys & {"question_type", "yesno_answers", "entity_answers", "answers"}:
        return "dureader"
    if "query_id" in keys:
        return "msmarco"
    if suffix != ".json":
        if suffix not in PLATFORM_ENDINGS:
            raise InputError(f"unknown file type {suffix or '(none)'!r}: use one of {accepted_endings(JSON_ENDING)}",
                             file=str(path))
        return "platform"  # JSON lines
    if text.startswith("{") and not keys & {"id", "question", "answer", "references"}:
        return "squad"  # SQuAD and CMRC share the layout and the reader
    raise InputError("cannot tell the file's format; give --format "
                     f"({', '.join(FORMAT_NAMES)}; the platform's own JSON lines end in .jsonl)", file=str(path))


def _platform(path: Path) -> Table:
    """The platform's own table formats; a ``.json`` file is one of the standard formats' (said so)."""
    if content_suffix(path) == ".json" and missing_file(path) is None:
        raise InputError("a .json file is SQuAD, CMRC, DuReader or MS MARCO, not the platform's own format (JSON "
                         f"lines end in .jsonl): give --format squad, cmrc, dureader or msmarco, or use one of "
                         f"{accepted_endings()}", file=str(path))
    return read_table(path)


def read_test_set_input(path: str | Path, format: str = "auto") -> Table:
    """A test-set file in any supported format as a platform table."""
    return _read(_TEST_SET, path, format)


def read_answers_input(path: str | Path, format: str = "auto") -> Table:
    """An answers (predictions) file in any supported format as a platform table."""
    return _read(_ANSWERS, path, format)


def notes_of(table: Table) -> tuple[str, ...]:
    """What a converted table says was left out (nothing for the platform's own formats)."""
    return tuple(getattr(table, "notes", ()))


def _read(readers: dict[str, Callable[[Path], Table]], path: str | Path, format: str) -> Table:
    name = guess_format(path) if format == "auto" else format
    if name not in readers:
        raise InputError(f"unknown format {format!r}: use auto or one of {', '.join(FORMAT_NAMES)}", file=str(path))
    return readers[name](Path(path))
