"""``hit_builder.readers.stream_table``: a file read one record at a time gives what ``read_table`` gives
(the same records, lines and errors) and reads no further than its first bad line."""
from __future__ import annotations

from pathlib import Path

import pytest

from da_core.errors import InputError
from hit_builder.readers import read_table, stream_table

BOM = "\ufeff".encode()

FILES = {
    "plain.csv": b"system,id,score\nalpha,q1,1\nalpha,q2,2\n",
    "crlf.csv": b"system,id,score\r\nalpha,q1,1\r\n\r\nalpha,q2,2\r\n",
    "bare-cr.csv": b"system,id,score\ralpha,q1,1\ralpha,q2,2",
    "quoted-breaks.csv": b'system,id,score\nalpha,"q\n1",1\nalpha,"q\r\n2","2\r3"\nalpha,q3,"4\r"\n',
    "bom.tsv": BOM + b"system\tid\tscore\nalpha\tq1\t1\n",
    "blank-rows.csv": b"\n\nsystem,id,score\n,,\nalpha,q1,1\n\n",
    "no-end.tsv": b"system\tid\tscore\nalpha\tq1\t1",
    "unicode-breaks.csv": "system,id,score\nalpha,q\u2028x\u0085,1\n".encode(),
    "ragged.csv": b"system,id,score\nalpha,q1,1\nalpha,q2\n",
    "empty-header.csv": b",,\nalpha,q1,1\n",
    "quoted-empty.csv": b'""\n',
    "white.csv": b"  \n\t\n",
    "unclosed.csv": b'system,id,score\nalpha,"q1,1\n',
    "bad-utf8.csv": b"system,id,score\nalpha,q1,1\nalpha,\xe9t\xe9,2\n",
    "twice.csv": b"system,id,system\nalpha,q1,1\n",
    "header-only.csv": b"system,id,score\n",
    "plain.jsonl": b'{"system": "alpha", "id": "q1", "score": 1}\n\n{"system": "alpha", "id": "q2", "score": 2}',
    "bom.jsonl": BOM + b'{"system": "alpha", "id": "q1", "score": 1}\n',
    "array.jsonl": b'{"id": "q1"}\n[1, 2]\n',
    "dup-key.jsonl": b'{"id": "q1", "id": "q2"}\n',
    "surrogate.jsonl": b'{"id": "q1"}\n{"id": "\\udc00"}\n',
    "bad-utf8.jsonl": b'{"id": "q1"}\n{"id": "\xc3("}\n',
    "empty.jsonl": b"\n \n",
    "separators.jsonl": '{"id": "a\u2028b\u0085c\rd"}\n'.encode(),
}


def _outcome(read, path: Path):
    """The records as (line, values) and the error as (message, line, field), whichever the reading gave."""
    try:
        table = read(path)
        return [(r.line, r.values) for r in table.records], (table.format, table.header_line), None
    except InputError as error:
        return None, None, (str(error), error.line, error.field)


@pytest.mark.parametrize("name", FILES)
def test_a_stream_reads_what_the_whole_file_reading_reads(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(FILES[name])
    assert _outcome(stream_table, path) == _outcome(read_table, path)


def test_the_fields_of_a_stream_are_the_headers(tmp_path: Path) -> None:
    path = tmp_path / "s.tsv"
    path.write_bytes(b"\nsystem\tid\tscore\nalpha\tq1\t1\n")
    stream = stream_table(path)
    assert (stream.fields, stream.header_line) == (("system", "id", "score"), 2)
    lines = tmp_path / "s.jsonl"
    lines.write_text('{"id": "q"}\n', encoding="utf-8")
    assert stream_table(lines).fields == ()  # JSON lines name their fields record by record


def test_a_stream_stops_at_its_first_bad_line(tmp_path: Path) -> None:
    """A whole-file reading decodes the file first and finds the invalid UTF-8 at its end before anything
    else; the stream reports the short row on line 3 and reads no further."""
    path = tmp_path / "s.csv"
    path.write_bytes(b"system,id,score\nalpha,q1,1\nalpha,q2\n" + b"alpha,q,1\n" * 1000 + b"\xff\n")
    with pytest.raises(InputError, match=":1004: not valid UTF-8"):
        read_table(path)
    with pytest.raises(InputError, match=r"s\.csv:3: the row has 2 cells but the header has 3"):
        list(stream_table(path).records)
