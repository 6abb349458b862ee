"""Ratings files as researchers keep them: gzipped (``ad-latest.csv.gz``), read as the same file unpacked, in every
format; a damaged or missing one is refused with a message naming it."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from analysis.readers import LONG_CSV_COLUMNS, guess_format, read_ratings
from da_core.errors import InputError
from tests.data_paths import WMT21

ROWS = [{"group": "g", "worker": "w1", "hit": "h1", "system": system, "item": f"i{k}", "slot_type": "SYSTEM",
         "slot": f"s{system}{k}", "original_slot": "", "score": 10 * k, "seconds": 2.5}
        for system in ("A", "B") for k in range(1, 4)]
LONG_CSV = ",".join(LONG_CSV_COLUMNS) + "\n" + "".join(",".join(str(row[c]) for c in LONG_CSV_COLUMNS) + "\n"
                                                       for row in ROWS)
JSON_LINES = "".join(json.dumps(row) + "\n" for row in ROWS)


def _gzip(path: Path, data: bytes) -> Path:
    path.write_bytes(gzip.compress(data))
    return path


@pytest.mark.parametrize("name, data, format", [
    ("ratings.csv", LONG_CSV.encode(), "csv"),
    ("ratings.jsonl", JSON_LINES.encode(), "jsonl"),
    ("ad-latest.csv", (WMT21 / "ad-latest.csv").read_bytes(), "wmt"),
])
def test_gzipped_ratings_read_as_the_file_unpacked(tmp_path: Path, name: str, data: bytes, format: str) -> None:
    plain = tmp_path / name
    plain.write_bytes(data)
    packed = _gzip(tmp_path / f"{name}.gz", data)
    assert guess_format(packed) == guess_format(plain) == format
    expected = list(read_ratings(plain).records())
    assert expected and list(read_ratings(packed).records()) == expected


def test_damaged_and_missing_gzipped_ratings_are_refused_by_name(tmp_path: Path) -> None:
    truncated = tmp_path / "cut.csv.gz"
    truncated.write_bytes(gzip.compress(LONG_CSV.encode())[:-12])
    not_gzip = tmp_path / "plain.csv.gz"
    not_gzip.write_bytes(LONG_CSV.encode())
    for path in (truncated, not_gzip):
        with pytest.raises(InputError) as caught:
            read_ratings(path, "csv")
        assert caught.value.file == str(path)
        assert "not a readable gzip file" in caught.value.message
    with pytest.raises(InputError, match="cannot read the file: No such file"):
        read_ratings(tmp_path / "absent.csv.gz", "csv")
