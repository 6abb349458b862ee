"""Official prediction files import as they are: predictions for the questions a test set's import left out
(SQuAD v2.0's unanswerable ones, DuReader's without answers) are skipped and counted, SQuAD v2.0's ``""`` is
its "no answer", and an id the test set never had is still an error that imports nothing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from da_platform.db import models
from da_platform.db.models import Answer, System
from tests.import_files import DUREADER, DUREADER_PREDICTIONS, database_snapshot, write_jsonl

ANSWERABLE, UNANSWERABLE = "56be4db0acb8001400a502ec", "5a8d7bf7df8bba001a0f9ab1"
SQUAD_V2 = {"version": "v2.0", "data": [{"title": "Bridges", "paragraphs": [
    {"context": "The Golden Gate Bridge opened in 1937. Water boils at 100 degrees Celsius at sea level.",
     "qas": [{"id": ANSWERABLE, "question": "When did the bridge open?",
              "answers": [{"text": "1937", "answer_start": 33}, {"text": "in 1937", "answer_start": 30}],
              "is_impossible": False},
             {"id": UNANSWERABLE, "question": "When did the bridge close?", "answers": [],
              "plausible_answers": [{"text": "1937", "answer_start": 33}], "is_impossible": True},
             {"id": "w1", "question": "At what temperature does water boil?",
              "answers": [{"text": "100 degrees Celsius", "answer_start": 54}], "is_impossible": False}]}]}]}


def _json(path: Path, document) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def squad(run, tmp_path) -> Path:
    path = _json(tmp_path / "dev-v2.0.json", SQUAD_V2)
    result = run("import", "test-set", str(path), "--name", "sq")
    assert result.exit_code == 0, result.output
    assert "note: left out 1 unanswerable question(s)" in result.output
    return path


def test_an_official_squad_v2_prediction_file_imports_as_it_is(run, sessions, squad, tmp_path):
    with sessions() as s:
        assert s.scalar(select(models.TestSet.left_out_ids)) == [UNANSWERABLE]
    # The official file: "" (no answer) for the unanswerable question.
    predictions = _json(tmp_path / "bert.json", {ANSWERABLE: "1937", UNANSWERABLE: "", "w1": "at 100 degrees"})
    result = run("import", "answers", "--test-set", "sq", str(predictions))
    assert result.exit_code == 0, result.output
    assert f"imported system 'bert': 2 answers from {predictions}" in result.output
    assert (f"note: skipped 1 prediction for questions test set 'sq' left out when it was imported (no reference "
            f"answers): '{UNANSWERABLE}'") in result.output
    # A system that answers the unanswerable question anyway: skipped the same way (nothing to compare with).
    guessing = _json(tmp_path / "guess.json", {ANSWERABLE: "1937", UNANSWERABLE: "in 1937", "w1": "100 degrees"})
    result = run("import", "answers", "--test-set", "sq", str(guessing))
    assert result.exit_code == 0, result.output
    assert "note: skipped 1 prediction for questions test set 'sq' left out" in result.output
    with sessions() as s:
        stored = s.execute(select(System.name, Answer.text).join(Answer, Answer.system_id == System.id)
                           .order_by(System.name, Answer.id)).all()
    assert [tuple(row) for row in stored] == [("bert", "1937"), ("bert", "at 100 degrees"), ("guess", "1937"),
                                              ("guess", "100 degrees")]


def test_a_typo_in_an_id_is_still_an_error(run, sessions, squad, tmp_path):
    before = database_snapshot(sessions)
    typo = _json(tmp_path / "typo.json", {ANSWERABLE: "1937", UNANSWERABLE: "", "w2": "at 100 degrees"})
    result = run("import", "answers", "--test-set", "sq", str(typo))
    assert result.exit_code != 0
    assert f"{typo}: field '\"w2\"': no question with id 'w2' in test set 'sq'" in result.output
    # "" is a no-answer, not a licence: an empty prediction for an id the test set never had is refused too.
    empty_typo = _json(tmp_path / "typo2.json", {ANSWERABLE: "1937", "w1": "x", "5a8d7bf7df8bba001a0f9ab2": ""})
    result = run("import", "answers", "--test-set", "sq", str(empty_typo))
    assert "no question with id '5a8d7bf7df8bba001a0f9ab2' in test set 'sq'" in result.output
    assert "nothing was imported" in result.output and database_snapshot(sessions) == before


def test_squad_no_answer_to_an_answerable_question_is_an_abstention(run, sessions, squad, tmp_path):
    before = database_snapshot(sessions)
    predictions = _json(tmp_path / "shy.json", {ANSWERABLE: "1937", UNANSWERABLE: "", "w1": ""})
    result = run("import", "answers", "--test-set", "sq", str(predictions))
    assert result.exit_code != 0
    assert (f"{predictions}: system 'shy' has no answer for 1 question of test set 'sq' (1 of them with the file's "
            "no-answer, \"\"): 'w1' (--allow-missing if it abstains on them)") in result.output
    assert database_snapshot(sessions) == before
    result = run("import", "answers", "--test-set", "sq", str(predictions), "--allow-missing")
    assert result.exit_code == 0, result.output
    assert "note: system 'shy' abstains on 1 question (1 of them with the file's no-answer, \"\"): 'w1'" \
        in result.output
    with sessions() as s:
        assert list(s.scalars(select(Answer.text))) == ["1937"]


def test_a_prediction_file_of_nothing_but_left_out_questions_is_refused(run, sessions, squad, tmp_path):
    only = _json(tmp_path / "only.json", {UNANSWERABLE: ""})
    result = run("import", "answers", "--test-set", "sq", str(only))
    assert result.exit_code != 0
    assert ("every prediction in the file is for a question test set 'sq' left out when it was imported (no "
            "reference answers): nothing to import") in result.output


def test_dureader_predictions_for_questions_without_answers_are_skipped(run, sessions, tmp_path):
    unanswered = {"question_id": 186575, "question": "绿萝能晒太阳吗", "question_type": "YES_NO",
                  "answers": [], "yesno_answers": [], "entity_answers": [], "documents": []}
    path = write_jsonl(tmp_path / "search.dev.json", DUREADER + [unanswered])
    assert run("import", "test-set", str(path), "--name", "du").exit_code == 0
    predictions = write_jsonl(tmp_path / "bidaf.json", DUREADER_PREDICTIONS + [
        {"question_id": 186575, "question_type": "YES_NO", "answers": ["能"], "yesno_answers": ["Yes"],
         "entity_answers": [[]], "source": "zhidao"}])
    result = run("import", "answers", "--test-set", "du", str(predictions))
    assert result.exit_code == 0, result.output
    assert "imported system 'bidaf': 3 answers" in result.output
    assert "note: skipped 1 prediction for questions test set 'du' left out when it was imported" in result.output
    # DuReader has no "no answer": an empty answer to a question the test set has is still an error.
    empty = write_jsonl(tmp_path / "empty.json", [DUREADER_PREDICTIONS[0], DUREADER_PREDICTIONS[1],
                                                  {**DUREADER_PREDICTIONS[2], "answers": [""]}])
    result = run("import", "answers", "--test-set", "du", str(empty))
    assert f"{empty}:3: field 'answers': is empty" in result.output


def test_metrics_scores_official_squad_v2_predictions(run, tmp_path):
    references = _json(tmp_path / "dev-v2.0.json", SQUAD_V2)
    predictions = _json(tmp_path / "bert.json", {ANSWERABLE: "in 1937", UNANSWERABLE: "", "w1": ""})
    out = tmp_path / "scores.json"
    result = run("metrics", "--references", str(references), "--answers", str(predictions), "--metric",
                 "exact-match", "--metric", "f1", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "note: 1 answer(s) to questions left out of" in result.output
    assert "note: 1 prediction(s) give no answer (\"\") to a question with reference answers" in result.output
    scores = json.loads(out.read_text())["scores"]
    # By hand, as SQuAD v2.0's evaluate script on its answerable questions (HasAns): "in 1937" matches the
    # second reference exactly (EM 1, F1 1); "" against "100 degrees Celsius": EM 0, F1 0. Mean of 2.
    assert scores["exact-match"]["bert"]["score"] == pytest.approx(0.5)
    assert scores["f1"]["bert"]["score"] == pytest.approx(0.5)
    assert scores["exact-match"]["bert"]["n"] == 2
