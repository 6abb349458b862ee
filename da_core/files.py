"""Opening a researcher's input files, gzipped or not: a name ending in ``.gz`` is read through gzip.

Every reader of test sets, answers and ratings opens files here, so ``dev.json.gz`` is read wherever
``dev.json`` is, its format told by the ending under ``.gz`` (:func:`content_suffix`). Errors are
:class:`~da_core.errors.InputError` naming the file: it cannot be opened (missing, unreadable), or its
compressed data is damaged (found while reading, so a reader wraps its reading in the ``with`` block).
"""
from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, cast

from da_core.errors import InputError

GZIP = ".gz"
"""The ending of a gzipped file; the ending before it names the format (``ratings.csv.gz``)."""


def is_gzipped(path: str | Path) -> bool:
    """Whether the file's name ends in ``.gz`` (any case)."""
    return Path(path).suffix.lower() == GZIP


def content_suffix(path: str | Path) -> str:
    """The ending that names the file's format, in lower case, under a ``.gz``: ``.json`` for ``dev.json.gz``."""
    path = Path(path)
    if is_gzipped(path):
        path = path.with_suffix("")
    return path.suffix.lower()


def input_stem(path: str | Path) -> str:
    """The file's name without its format's ending, nor a ``.gz`` under it: ``dev`` for ``dev.json.gz``."""
    path = Path(path)
    if is_gzipped(path):
        path = path.with_suffix("")
    return path.stem


def missing_file(path: str | Path) -> InputError | None:
    """The error for a file that is not there (or is a folder), else None: said before anything else about it."""
    path = Path(path)
    if path.is_dir():
        return InputError("cannot read the file: it is a folder", file=str(path))
    if not path.exists():
        return InputError("cannot read the file: No such file (check its name and folder)", file=str(path))
    return None


@contextmanager
def open_input(path: str | Path, *, binary: bool = False, encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """The file open for reading: bytes, or text (UTF-8; newlines as they are, for the csv module), gunzipped
    when its name ends in ``.gz``. An error opening it, or damaged compressed data met while reading inside the
    ``with`` block, raises an :class:`InputError` naming the file."""
    file = str(path)
    missing = missing_file(path)
    if missing is not None:
        raise missing
    try:
        if is_gzipped(path):
            # (typeshed types GzipFile as a BufferedIOBase, not typing.IO: reading it is the same)
            handle: IO[Any] = (cast("IO[Any]", gzip.open(path, "rb")) if binary
                               else gzip.open(path, "rt", encoding=encoding, newline=""))
        else:
            handle = open(path, "rb") if binary else open(path, encoding=encoding, newline="")  # noqa: SIM115
    except OSError as error:
        raise InputError(f"cannot read the file: {error.strerror or error}", file=file) from None
    with handle:
        try:
            yield handle
        except (gzip.BadGzipFile, EOFError, zlib.error) as error:
            raise InputError(f"not a readable gzip file ({error or 'it ends too early'}): a file ending in .gz "
                             "must be gzip-compressed", file=file) from None


def read_input_bytes(path: str | Path) -> bytes:
    """The whole file's bytes (gunzipped when it ends in ``.gz``), with :func:`open_input`'s errors."""
    with open_input(path, binary=True) as handle:
        return handle.read()
