"""Attack suite, importers: a header row whose cells are all empty is named as such, on its own line.

Before, the empty header row was skipped like a blank line and the first data row was read as the
header, so the error blamed a question id (``file:2: field 'q1': unknown column``). On SQLite and
PostgreSQL.
"""
from __future__ import annotations

import pytest

from tests.import_files import database_snapshot, write

EMPTY_HEADERS = {
    "csv": ",,\nq1,Why is the sky blue?,Rayleigh scattering.\n",
    "csv with spaces": " , ,  \nq1,Why is the sky blue?,Rayleigh scattering.\n",
    "quoted csv": '"","",""\nq1,Why is the sky blue?,Rayleigh scattering.\n',
    "tsv": "\t\t\nq1\tWhy is the sky blue?\tRayleigh scattering.\n",
}


@pytest.mark.parametrize("case", list(EMPTY_HEADERS))
def test_an_all_empty_header_row_is_reported_at_its_line(run, sessions, tmp_path, case):
    path = write(tmp_path, "empty-header." + ("tsv" if case == "tsv" else "csv"), EMPTY_HEADERS[case])
    result = run("import", "test-set", str(path))
    assert result.exit_code == 1, result.output
    assert f"{path}:1: the header row has no column names" in result.output
    assert "Traceback" not in result.output and "unknown column" not in result.output
    assert not any(database_snapshot(sessions).values())  # nothing imported


def test_blank_lines_before_the_header_are_still_skipped(run, tmp_path):
    path = write(tmp_path, "blank-first.csv", "\n\nid,question,reference\nq1,Why?,Because.\n")
    result = run("import", "test-set", str(path))
    assert result.exit_code == 0, result.output
