"""Files as researchers have them: gzipped test sets and answers (DuReader and SQuAD are often kept so) import as
the files unpacked, named without their endings; a mistyped name says the file is missing (not that its type is
unknown); an unknown ending lists every accepted one, .json and .gz included."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from da_platform.db.models import Answer, Question, System, TestSet
from tests.import_files import BASE_TEST_SET, DUREADER, DUREADER_PREDICTIONS, database_snapshot


def _gzip(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    return path


def _contents(sessions, test_set: str) -> tuple[list, list]:
    with sessions() as s:
        found = s.scalars(select(TestSet).where(TestSet.name == test_set)).one()
        questions = [(q.external_id, q.text, [r.text for r in q.references]) for q in found.questions]
        answers = sorted(s.execute(select(System.name, Question.external_id, Answer.text)
                                   .join(Answer, Answer.system_id == System.id)
                                   .join(Question, Question.id == Answer.question_id)
                                   .where(System.test_set_id == found.id)).all())
    return questions, answers


def test_gzipped_dureader_imports_as_the_file_unpacked(run, sessions, tmp_path: Path) -> None:
    questions = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in DUREADER)
    predictions = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in DUREADER_PREDICTIONS)
    (tmp_path / "dev.json").write_text(questions, encoding="utf-8")
    (tmp_path / "bidaf.json").write_text(predictions, encoding="utf-8")
    (tmp_path / "packed").mkdir()
    _gzip(tmp_path / "packed" / "dev.json.gz", questions)
    _gzip(tmp_path / "packed" / "bidaf.json.gz", predictions)
    # The gzipped test set is named by its file without either ending (dev.json.gz -> dev), as dev.json would be.
    for test_set, folder, ending, name in (("plain", tmp_path, "", ["--name", "plain"]),
                                           ("dev", tmp_path / "packed", ".gz", [])):
        result = run("import", "test-set", str(folder / f"dev.json{ending}"), *name)
        assert result.exit_code == 0, result.output
        assert f"imported test set {test_set!r}: 3 questions" in result.output
        result = run("import", "answers", "--test-set", test_set, str(folder / f"bidaf.json{ending}"))
        assert result.exit_code == 0, result.output
        assert "imported system 'bidaf': 3 answers" in result.output
    assert _contents(sessions, "dev") == _contents(sessions, "plain")


def test_gzipped_platform_tables_import(run, sessions, tmp_path: Path) -> None:
    assert run("import", "test-set", str(_gzip(tmp_path / "qa.jsonl.gz", BASE_TEST_SET))).exit_code == 0
    answers = _gzip(tmp_path / "sys1.csv.gz", "id,answer\na1,x\na2,是\na3,y\n")
    result = run("import", "answers", "--test-set", "qa", str(answers))
    assert result.exit_code == 0, result.output
    assert _contents(sessions, "qa")[1] == [("sys1", "a1", "x"), ("sys1", "a2", "是"), ("sys1", "a3", "y")]


@pytest.mark.parametrize("name, fragment", [
    ("dev.json", "cannot read the file: No such file (check its name and folder)"),  # it said: unknown file type
    ("dev.json.gz", "cannot read the file: No such file"),
    ("qa.jsonl", "cannot read the file: No such file"),
])
def test_a_mistyped_name_says_the_file_is_missing(run, sessions, tmp_path: Path, name: str, fragment: str) -> None:
    before = database_snapshot(sessions)
    result = run("import", "test-set", str(tmp_path / name))
    assert result.exit_code == 1
    assert f"Error: {tmp_path / name}: {fragment}" in result.output
    assert "unknown file type" not in result.output and "nothing was imported" in result.output
    assert database_snapshot(sessions) == before


def test_unknown_endings_list_json_and_gz(run, sessions, tmp_path: Path) -> None:
    path = tmp_path / "qa.txt"
    path.write_text(BASE_TEST_SET, encoding="utf-8")
    result = run("import", "test-set", str(path))
    assert result.exit_code == 1
    assert (f"{path}: unknown file type '.txt': use one of .csv, .jsonl, .ndjson, .tab, .tsv, .json (SQuAD, CMRC, "
            "DuReader, MS MARCO) (each also gzipped, ending in .gz)") in " ".join(result.output.split())


def test_a_damaged_gzip_file_is_refused_by_name(run, sessions, tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl.gz"
    path.write_bytes(gzip.compress(BASE_TEST_SET.encode())[:-10])
    before = database_snapshot(sessions)
    result = run("import", "test-set", str(path))
    assert result.exit_code == 1
    assert f"Error: {path}: not a readable gzip file" in result.output and "Traceback" not in result.output
    assert database_snapshot(sessions) == before
