"""The ``da-platform import`` commands: summaries on success, file:line: field errors and an unchanged
database on failure."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.db.models import System
from tests.import_files import BASE_TEST_SET, database_snapshot, write


def test_import_test_set_answers_and_human(run, sessions, tmp_path: Path) -> None:
    test_set = write(tmp_path, "leaves.jsonl", BASE_TEST_SET.replace('"references": ["Yes, in moderation."]',
                                                                      '"references": ["Yes.", "In moderation."]'))
    result = run("import", "test-set", str(test_set))
    assert result.exit_code == 0, result.output
    assert result.output == ("imported test set 'leaves': 3 questions; references per question: 2×3; "
                             "0 with context; answer types: description 1, unset 1, yes_no 1\n")

    one = write(tmp_path, "one.csv", "id,answer\na1,x\na2,是\na3,y\n")
    long = write(tmp_path, "long.tsv", "system\tid\tanswer\n" + "".join(
        f"{s}\t{i}\t{s}{i}\n" for s in ("P", "Q") for i in ("a1", "a2", "a3")))
    result = run("import", "answers", "--test-set", "leaves", str(one), str(long))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"imported system 'one': 3 answers from {one}",
        f"imported system 'P': 3 answers from {long}",
        f"imported system 'Q': 3 answers from {long}",
    ]
    result = run("import", "answers", "--test-set", "leaves", "--system", "renamed", str(one))
    assert result.exit_code == 0 and "system 'renamed'" in result.output

    result = run("import", "human", "--test-set", "leaves")
    assert result.exit_code == 0, result.output
    assert result.output == "imported system 'HUMAN' (human): 3 answers into test set 'leaves'\n"
    with sessions() as s:
        names = s.scalars(select(System.name).order_by(System.id)).all()
    assert names == ["one", "P", "Q", "renamed", "HUMAN"]


def test_an_error_in_any_file_imports_none_of_them(run, sessions, tmp_path: Path) -> None:
    assert run("import", "test-set", str(write(tmp_path, "base.jsonl", BASE_TEST_SET))).exit_code == 0
    good = write(tmp_path, "good.csv", "id,answer\na1,x\na2,y\na3,z\n")
    bad = write(tmp_path, "bad.csv", "id,answer\na1,x\na2,\na3,z\n")
    before = database_snapshot(sessions)
    result = run("import", "answers", "--test-set", "base", str(good), str(bad))
    assert result.exit_code == 1
    assert result.output == f"Error: {bad}:3: field 'answer': is empty\nnothing was imported\n"
    assert database_snapshot(sessions) == before


def test_errors_for_a_bad_test_set_and_unknown_names(run, sessions, tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.csv", "id,question,reference\nq1,Q,R\nq1,Q,R\n")
    result = run("import", "test-set", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:3: field 'id': duplicate id 'q1' (first on line 2)" in result.output
    result = run("import", "human", "--test-set", "nope")
    assert result.exit_code == 1 and "no test set named 'nope' (test sets: none yet)" in result.output
    two = [str(write(tmp_path, f"{n}.csv", "id,answer\n")) for n in ("a", "b")]
    result = run("import", "answers", "--test-set", "x", "--system", "S", *two)
    assert result.exit_code == 2 and "--system names the system of a single file" in result.output
    assert database_snapshot(sessions) == {t: [] for t in database_snapshot(sessions)}


def test_import_sample(run, sessions) -> None:
    result = run("import", "sample")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("imported test set 'sample': 300 questions; references per question: 2×300")
    assert "imported system 'HUMAN' (human): 300 answers" in result.output
    again = run("import", "sample")
    assert again.exit_code == 1 and "a test set named 'sample' already exists" in again.output


@pytest.mark.parametrize("command", [[], ["test-set"], ["answers"], ["human"], ["sample"]])
def test_every_import_command_has_help(command: list[str]) -> None:
    result = CliRunner().invoke(main, ["import", *command, "--help"])
    assert result.exit_code == 0 and "Usage: main import" in result.output
    assert len(result.output.splitlines()) > 4
