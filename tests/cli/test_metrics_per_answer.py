"""``metrics --per-answer``: each answer's score, in the file ``import judge-scores`` reads (round trip), the
values worked out by hand."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from da_platform.db.models import Answer, JudgeScore, Question, System
from tests.import_files import write_jsonl

TEST_SET = [{"id": "q1", "question": "What pie?", "references": ["red apple pie", "apple pie"]},
            {"id": "q2", "question": "Which fruit?", "references": ["green pear"]}]
# SQuAD token F1 (articles and punctuation dropped) against the best reference:
#   pie "red apple" vs "red apple pie": precision 2/2, recall 2/3 -> 0.8 (vs "apple pie": 1/2, 1/2 -> 0.5)
#   pie "green pear" vs "green pear": 1;  sour "apple" vs "red apple pie": 1, 1/3 -> 0.5 (vs "apple pie": 1, 1/2 ->
#   2/3); sour "pear" vs "green pear": 1, 1/2 -> 2/3.
#   HUMAN (the second references): "apple pie" against the other reference only, "red apple pie": 1, 2/3 -> 0.8;
#   q2 has one reference: HUMAN does not answer it (import human leaves it out).
EXPECTED = {("pie", "q1"): 0.8, ("pie", "q2"): 1.0, ("sour", "q1"): 2 / 3, ("sour", "q2"): 2 / 3,
            ("HUMAN", "q1"): 0.8}


@pytest.mark.parametrize("ending", [".jsonl", ".csv", ".tsv"])
def test_per_answer_scores_round_trip_through_import_judge_scores(run, sessions, tmp_path, ending):
    assert run("import", "test-set", str(write_jsonl(tmp_path / "qa.jsonl", TEST_SET))).exit_code == 0
    for system, answers in {"pie": ["red apple", "green pear"], "sour": ["apple", "pear"]}.items():
        rows = [{"id": f"q{i + 1}", "answer": answer} for i, answer in enumerate(answers)]
        path = write_jsonl(tmp_path / f"{system}.jsonl", rows)
        assert run("import", "answers", "--test-set", "qa", str(path)).exit_code == 0
    assert run("import", "human", "--test-set", "qa").exit_code == 0
    out = tmp_path / f"f1{ending}"
    result = run("metrics", "--test-set", "qa", "--metric", "f1", "--per-answer", str(out))
    assert result.exit_code == 0, result.output
    assert f"each answer's F1 written to {out}" in result.output
    if ending == ".jsonl":
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert {(r["system"], r["id"]): r["score"] for r in rows} == pytest.approx(EXPECTED)
    result = run("import", "judge-scores", str(out), "--test-set", "qa", "--judge", "f1")
    assert result.exit_code == 0, result.output
    assert "imported 5 score(s) of judge 'f1'" in result.output
    with sessions() as session:
        stored = dict(((system, question), score) for system, question, score in session.execute(
            select(System.name, Question.external_id, JudgeScore.score).join(Answer, Answer.id == JudgeScore.answer_id)
            .join(System, System.id == Answer.system_id).join(Question, Question.id == Answer.question_id)))
    assert stored == pytest.approx(EXPECTED)


def test_several_metrics_write_a_file_each_and_a_bad_ending_is_refused_first(run, sessions, tmp_path):
    assert run("import", "test-set", str(write_jsonl(tmp_path / "qa.jsonl", TEST_SET))).exit_code == 0
    path = write_jsonl(tmp_path / "pie.jsonl", [{"id": "q1", "answer": "red apple"}, {"id": "q2", "answer": "pear"}])
    assert run("import", "answers", "--test-set", "qa", str(path)).exit_code == 0
    result = run("metrics", "--test-set", "qa", "--metric", "f1", "--metric", "exact-match", "--per-answer",
                 str(tmp_path / "scores.jsonl"))
    assert result.exit_code == 0, result.output
    em = [json.loads(line) for line in (tmp_path / "scores.exact-match.jsonl").read_text().splitlines()]
    assert [(r["id"], r["score"]) for r in em] == [("q1", 0.0), ("q2", 0.0)]
    assert (tmp_path / "scores.f1.jsonl").exists() and not (tmp_path / "scores.jsonl").exists()
    refused = run("metrics", "--test-set", "qa", "--per-answer", str(tmp_path / "scores.xlsx"))
    assert refused.exit_code == 1 and "use a .jsonl, .csv or .tsv file" in refused.output
    assert "scoring" not in refused.output
