"""The one JSON reading path of the importers (``hit_builder.readers.parse_json`` and ``lone_surrogate``),
used by JSON-lines files (errors name the line and the record's field) and whole-JSON formats such as SQuAD
(errors name the JSON path)."""
from __future__ import annotations

from pathlib import Path

import pytest

from da_core.errors import InputError
from hit_builder.formats.source import load_json
from hit_builder.readers import read_table


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_lone_surrogate_in_a_whole_json_file_is_named_by_its_json_path(tmp_path: Path) -> None:
    path = write(tmp_path, "squad.json", '{"data": [{"title": "t"}, {"paragraphs": [{"qas": ["ok", "\\udfff"]}]}]}')
    with pytest.raises(InputError) as raised:
        load_json(path)
    assert raised.value.field == "data[1].paragraphs[0].qas[1]" and raised.value.line is None
    assert "lone surrogate" in str(raised.value) and str(path) in str(raised.value)


def test_a_lone_surrogate_in_a_key_of_a_whole_json_file_names_the_object_holding_it(tmp_path: Path) -> None:
    path = write(tmp_path, "squad.json", '{"data": [{"\\ud83d": 1}]}')
    with pytest.raises(InputError) as raised:
        load_json(path)
    assert raised.value.field == "data[0]"


def test_a_lone_surrogate_in_json_lines_names_the_line_and_the_records_field(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", '{"id": "a"}\n{"id": "b", "references": ["ok", {"x": "\\ud800"}]}\n')
    with pytest.raises(InputError) as raised:
        read_table(path)
    assert (raised.value.line, raised.value.field) == (2, "references")
    key = write(tmp_path, "k.jsonl", '{"id": "a", "\\ud83d": 1}\n')
    with pytest.raises(InputError) as raised:
        read_table(key)
    assert raised.value.line == 1 and raised.value.field == "\ud83d"  # the key itself: the only name it has


@pytest.mark.parametrize("text, message", [
    ('{"a": [1, 2', "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"id": ' + "9" * 5000 + "}", "too many digits"),
])
def test_bad_json_is_one_located_error_in_both_kinds_of_file(tmp_path: Path, text: str, message: str) -> None:
    whole = write(tmp_path, "w.json", "\n" + text)
    with pytest.raises(InputError, match=message) as raised:
        load_json(whole)
    assert raised.value.file == str(whole)
    lines = write(tmp_path, "l.jsonl", '{"id": "a"}\n' + text + "\n")
    with pytest.raises(InputError, match=message) as raised:
        read_table(lines)
    assert (raised.value.file, raised.value.line) == (str(lines), 2)
