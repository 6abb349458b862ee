"""A real SQuAD + DuReader study's inputs, as small hand-written files in the real shapes: HUMAN from SQuAD's
annotations as given, DuReader questions without answers skipped and counted, a DuReader context from its
documents, the MRC2018 evaluation kit's own files scored, and errors that say where and what was expected."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from da_platform.db.models import Question
from tests.import_files import DUREADER, DUREADER_PREDICTIONS, database_snapshot, write_jsonl


def _json(path: Path, document) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")    # one line, as SQuAD ships
    return path


def _qa(qid: str, question: str, *answers: str) -> dict:
    return {"id": qid, "question": question, "answers": [{"text": a, "answer_start": 0} for a in answers],
            "is_impossible": False}


# SQuAD v2.0 dev shape: several annotators per answerable question, some repeating each other; unanswerable
# questions with is_impossible, no answers and plausible_answers.
SQUAD_DEV = {"version": "v2.0", "data": [{"title": "Bridges", "paragraphs": [
    {"context": "The Golden Gate Bridge opened in 1937. Water boils at 100 degrees Celsius at sea level.",
     "qas": [_qa("q1", "When did the bridge open?", "1937", "1937", "in 1937"),
             _qa("q2", "At what temperature does water boil?", "100 degrees Celsius", "100 degrees",
                 "100 degrees Celsius"),
             {"id": "q-none", "question": "When did the bridge close?", "answers": [],
              "plausible_answers": [{"text": "1937", "answer_start": 33}], "is_impossible": True}]},
    {"context": "Paris is the capital of France.",
     "qas": [_qa("q3", "What is the capital of France?", "Paris", "Paris")]}]}]}


def test_human_from_squad_is_the_second_annotation_as_given(run, sessions, tmp_path):
    path = _json(tmp_path / "dev-v2.0.json", SQUAD_DEV)
    result = run("import", "test-set", str(path), "--name", "sq")
    assert result.exit_code == 0, result.output
    assert "3 questions; references per question: 2×1, 3×2" in result.output
    assert "in 3 question(s) an annotator repeats an earlier answer" in result.output
    result = run("import", "human", "--test-set", "sq")
    assert result.exit_code == 0, result.output
    assert "imported system 'HUMAN' (human): 3 answers" in result.output
    assert "warning: for 2 question(s) the second reference equals the first ('q1', 'q3')" in result.output
    out = tmp_path / "m.json"
    result = run("metrics", "--test-set", "sq", "--metric", "exact-match", "--metric", "f1", "--out", str(out))
    assert result.exit_code == 0, result.output
    human = json.loads(out.read_text())["scores"]
    # SQuAD's human score: the second annotation against the others, best match. q1 "1937" vs {1937, in 1937}:
    # EM 1; q2 "100 degrees" vs {100 degrees Celsius ×2}: EM 0, F1 = 2·1·(2/3)/(1 + 2/3) = 0.8; q3 "Paris"
    # vs {Paris}: EM 1.
    assert human["exact-match"]["HUMAN"]["score"] == pytest.approx(2 / 3)
    assert human["f1"]["HUMAN"]["score"] == pytest.approx((1 + 0.8 + 1) / 3)


def test_human_from_dureader_takes_the_questions_with_a_second_answer(run, sessions, tmp_path):
    rows = [{"question_id": 1, "question": "世界最高峰是哪座山", "question_type": "ENTITY",
             "answers": ["珠峰", "珠峰"]},
            {"question_id": 2, "question": "生鸡蛋能吃吗", "question_type": "YES_NO", "answers": ["能吃", "不能"],
             "yesno_answers": ["Yes", "No"]},
            {"question_id": 3, "question": "如何养绿萝", "question_type": "DESCRIPTION", "answers": ["保持土壤湿润"]}]
    path = write_jsonl(tmp_path / "dev.json", rows)
    assert run("import", "test-set", str(path), "--name", "du").exit_code == 0
    result = run("import", "human", "--test-set", "du")
    assert result.exit_code == 0, result.output
    assert "imported system 'HUMAN' (human): 2 answers into test set 'du'" in result.output
    assert ("note: left out of HUMAN 1 question of 3 with one reference only (no second annotator): '3'; HUMAN "
            "abstains on them, so build with --allow-missing") in result.output
    out = tmp_path / "m.json"
    result = run("metrics", "--test-set", "du", "--metric", "exact-match", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "HUMAN (human) is scored on the 2 of 3 questions it answers" in result.output
    # Question 1: the second answer equals the first (exact match 1); question 2: "不能" against "能吃" (0); the
    # third is not HUMAN's.
    assert json.loads(out.read_text())["scores"]["exact-match"]["HUMAN"]["score"] == pytest.approx(1 / 2)


def test_squad_errors_say_where_the_first_is_and_what_was_expected(run, sessions, tmp_path):
    duplicate = json.loads(json.dumps(SQUAD_DEV))
    duplicate["data"][0]["paragraphs"][1]["qas"][0]["id"] = "q1"
    path = _json(tmp_path / "dup.json", duplicate)
    before = database_snapshot(sessions)
    result = run("import", "test-set", str(path))
    assert result.exit_code != 0
    assert (f"{path}: field 'data[0].paragraphs[1].qas[0].id': duplicate id 'q1' "
            "(first at data[0].paragraphs[0].qas[0])") in result.output
    assert run("import", "test-set", str(_json(tmp_path / "dev.json", SQUAD_DEV)), "--name", "sq").exit_code == 0
    before = database_snapshot(sessions)
    result = run("import", "answers", "--test-set", "sq", str(tmp_path / "dev.json"), "--format", "squad")
    assert result.exit_code != 0
    assert (f"{tmp_path / 'dev.json'}: field 'data': this is a SQuAD dataset (questions under 'data'), not a "
            "prediction file: answers are one JSON object mapping each question id to its answer text") \
        in result.output
    assert "nothing was imported" in result.output and database_snapshot(sessions) == before


# DuReader 2.0 dev shape: documents with paragraphs and is_selected (the preprocessed release adds
# most_related_para and segmented fields, which the platform does not need).
DOCUMENTS = {
    186572: [{"title": "生鸡蛋能吃吗", "paragraphs": ["能吃，但要新鲜的。"], "is_selected": False,
              "bs_rank_pos": 0, "most_related_para": 0},
             {"title": "生鸡蛋", "is_selected": True,
              "paragraphs": ["生鸡蛋能吃吗", "能吃，但是要新鲜的鸡蛋，生鸡蛋可能有细菌。", "今天天气很好。"],
              "bs_rank_pos": 1, "most_related_para": 1}],
    186573: [{"title": "珠峰", "paragraphs": ["珠峰就是珠穆朗玛峰，是世界最高峰，高8848.86米。", "是珠峰"],
              "is_selected": False}],
    186574: [{"title": "x", "paragraphs": ["abc"], "is_selected": True}],
}
UNANSWERED = {"question_id": 186575, "question": "绿萝能晒太阳吗", "question_type": "YES_NO",
              "fact_or_opinion": "OPINION", "answers": [], "yesno_answers": [], "entity_answers": [],
              "documents": [{"title": "绿萝", "paragraphs": ["绿萝喜阴。"], "is_selected": False}]}


def test_dureader_context_from_documents_and_questions_without_answers_skipped(run, sessions, tmp_path):
    rows = [{**row, "documents": DOCUMENTS[row["question_id"]]} for row in DUREADER] + [UNANSWERED]
    path = write_jsonl(tmp_path / "search.dev.json", rows)
    result = run("import", "test-set", str(path), "--name", "du")
    assert result.exit_code == 0, result.output
    assert "3 questions; references per question: 1×1, 2×2; 2 with context" in result.output
    assert "note: left out 1 question(s) with no answers (an empty 'answers' list)" in result.output
    assert ("note: context: the paragraph of the documents that best covers the answers, for 2 question(s); "
            "1 have no paragraph sharing a word with their answers, so no context") in result.output
    with sessions() as s:
        context = dict(s.execute(select(Question.external_id, Question.context)).all())
    # 186572: in the selected document, paragraph 2 holds every character of the first answer (recall 1);
    # the unselected document's paragraph, though it is the answer itself, is not a candidate.
    # 186573: no document selected, so all; both paragraphs hold a whole answer (recall 1): the shorter.
    # 186574: "abc" shares no token with the answer: no context.
    assert context == {"186572": "能吃，但是要新鲜的鸡蛋，生鸡蛋可能有细菌。", "186573": "是珠峰", "186574": None}


def _kit(row: dict) -> dict:
    """A row of the MRC2018 evaluation kit's reference file: no question text, no documents."""
    return {"question_id": row["question_id"], "question_type": row["question_type"], "answers": row["answers"],
            "yesno_answers": row["yesno_answers"], "entity_answers": row["entity_answers"], "source": "zhidao"}


METRICS = ("rouge-l", "bleu-4", "rouge-l-adapted", "bleu-4-adapted")


def _scores(run, references: Path, predictions: Path, out: Path) -> dict:
    options = [option for name in METRICS for option in ("--metric", name)]
    result = run("metrics", "--references", str(references), "--answers", str(predictions), "--out", str(out),
                 *options)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())["scores"]


def test_metrics_scores_the_mrc2018_kit_files(run, tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "plain").mkdir()
    kit = write_jsonl(tmp_path / "kit" / "ref.json", [_kit(row) for row in DUREADER] + [_kit(UNANSWERED)])
    predictions = write_jsonl(tmp_path / "kit" / "pred.json", DUREADER_PREDICTIONS + [
        {"question_id": 186575, "question_type": "YES_NO", "answers": ["能"], "yesno_answers": ["Yes"],
         "entity_answers": [[]], "source": "zhidao"}])
    options = [option for name in METRICS for option in ("--metric", name)]
    result = run("metrics", "--references", str(kit), "--answers", str(predictions), *options)
    assert result.exit_code == 0, result.output
    assert "note: left out 1 question(s) with no answers" in result.output
    assert "note: 1 answer(s) to questions left out of" in result.output and "are not scored" in result.output
    # The same data with each question's text: the scores do not depend on it.
    with_questions = write_jsonl(tmp_path / "plain" / "dev.json", DUREADER)
    plain_predictions = write_jsonl(tmp_path / "plain" / "pred.json", DUREADER_PREDICTIONS)
    assert _scores(run, kit, predictions, tmp_path / "a.json") == \
        _scores(run, with_questions, plain_predictions, tmp_path / "b.json")
    # One description question by hand: "多浇水。" against "放在半阴的地方，保持土壤湿润。" share "。":
    # LCS 1, P = 1/4, R = 1/15, F = (1 + 1.2²)·P·R / (R + 1.2²·P).
    one = write_jsonl(tmp_path / "one.json", [_kit(DUREADER[2])])
    system = write_jsonl(tmp_path / "sys.json", [DUREADER_PREDICTIONS[2]])
    scores = _scores(run, one, system, tmp_path / "c.json")
    p, r = 1 / 4, 1 / 15
    assert scores["rouge-l"]["sys"]["score"] == pytest.approx(2.44 * p * r / (r + 1.44 * p))
