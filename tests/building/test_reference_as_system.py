"""A system whose answers are the test set's references, imported with plain `import answers`, is scored against
itself (perfect on every metric): the import and `metrics` say so; `import human`'s HUMAN (scored against the other
references) and a system that matches a reference now and then do not get the warning."""
from __future__ import annotations

from tests.import_files import write_jsonl

TEST_SET = [{"id": f"q{i}", "question": f"Question {i}?", "references": [f"first answer {i}", f"second answer {i}"]}
            for i in range(1, 5)]


def test_a_system_made_of_references_is_said_to_score_against_itself(run, sessions, tmp_path):
    assert run("import", "test-set", str(write_jsonl(tmp_path / "qa.jsonl", TEST_SET))).exit_code == 0
    # ref2: the second reference word for word on q1-q3 (3 of 4 answers, at least half); close: on q1 only.
    ref2 = [{"id": f"q{i}", "answer": f"second answer {i} " if i < 4 else "something else"} for i in range(1, 5)]
    close = [{"id": f"q{i}", "answer": "first answer 1" if i == 1 else f"my answer {i}"} for i in range(1, 5)]
    result = run("import", "answers", "--test-set", "qa", str(write_jsonl(tmp_path / "ref2.jsonl", ref2)),
                 str(write_jsonl(tmp_path / "close.jsonl", close)))
    assert result.exit_code == 0, result.output
    assert ("warning: system 'ref2' gives a reference of its question word for word in 3 of its 4 answers (second "
            "reference 3): the metrics score those answers against themselves, as perfect. If it stands for human "
            "performance, import the references with `da-platform import human`") in " ".join(result.output.split())
    assert "'close' gives" not in result.output
    result = run("import", "human", "--test-set", "qa")
    assert result.exit_code == 0 and "word for word" not in result.output
    result = run("metrics", "--test-set", "qa", "--metric", "exact-match")
    assert result.exit_code == 0, result.output
    assert ("warning: system 'ref2' gives a reference of its question word for word in 3 of its 4 answers: it is "
            "scored against itself there") in " ".join(result.output.split())
    assert "'close' gives" not in result.output and "'HUMAN' gives" not in result.output
