"""``import test-set`` / ``import answers`` read SQuAD (v1.1/v2.0), CMRC 2018, DuReader and MS MARCO files
directly: small files in each format, written here; errors name the file, the line or JSON path and the
source's own field, and leave the database unchanged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from da_core.errors import InputError
from da_platform.db import models
from da_platform.db.models import Answer, Question, System
from hit_builder.formats import guess_format
from tests.import_files import DUREADER, DUREADER_PREDICTIONS, database_snapshot, write_jsonl


def _json(path: Path, document) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


SQUAD_V2 = {"version": "v2.0", "data": [
    {"title": "Bridges", "paragraphs": [
        {"context": "The Golden Gate Bridge opened in 1937.",
         "qas": [{"id": "56be4db0acb8001400a502ec", "question": "When did the bridge open?",
                  "answers": [{"text": "1937", "answer_start": 33}, {"text": "1937", "answer_start": 33},
                              {"text": "in 1937", "answer_start": 30}], "is_impossible": False},
                 {"id": "5a8d7bf7df8bba001a0f9ab1", "question": "When did the bridge close?", "answers": [],
                  "plausible_answers": [{"text": "1937", "answer_start": 33}], "is_impossible": True}]}]},
    {"title": "Water", "paragraphs": [
        {"context": "Water boils at 100 degrees Celsius at sea level.",
         "qas": [{"id": "w1", "question": "At what temperature does water boil?",
                  "answers": [{"text": "100 degrees Celsius", "answer_start": 15}]}]}]},
]}


def test_squad_test_set_and_predictions(run, sessions, tmp_path):
    path = _json(tmp_path / "squad-dev.json", SQUAD_V2)
    assert guess_format(path) == "squad"
    result = run("import", "test-set", str(path), "--name", "sq")
    assert result.exit_code == 0, result.output
    assert "2 questions; references per question: 1×1, 3×1; 2 with context" in result.output
    assert "note: left out 1 unanswerable question(s) (is_impossible, no answers)" in result.output
    assert ("note: kept every annotator's answer as given: in 1 question(s) an annotator repeats an earlier answer"
            in result.output)
    with sessions() as s:
        questions = s.scalars(select(Question).order_by(Question.id)).all()
        assert [q.external_id for q in questions] == ["56be4db0acb8001400a502ec", "w1"]
        assert [r.text for r in questions[0].references] == ["1937", "1937", "in 1937"]  # as given
        assert questions[0].context == "The Golden Gate Bridge opened in 1937."
    predictions = _json(tmp_path / "bert.json", {"56be4db0acb8001400a502ec": "1937", "w1": "at 100 degrees"})
    result = run("import", "answers", "--test-set", "sq", str(predictions))
    assert result.exit_code == 0, result.output
    assert f"imported system 'bert': 2 answers from {predictions}" in result.output
    with sessions() as s:
        assert sorted(s.scalars(select(Answer.text))) == ["1937", "at 100 degrees"]


def test_squad_errors_name_the_json_path(run, sessions, tmp_path):
    broken = json.loads(json.dumps(SQUAD_V2))
    del broken["data"][1]["paragraphs"][0]["qas"][0]["question"]
    path = _json(tmp_path / "broken.json", broken)
    before = database_snapshot(sessions)
    result = run("import", "test-set", str(path))
    assert result.exit_code != 0
    assert (f"{path}: field 'data[1].paragraphs[0].qas[0].question': missing (the field is required)"
            in result.output)
    broken["data"][0]["paragraphs"][0]["qas"][0]["answers"][1] = "1937"
    result = run("import", "test-set", str(_json(path, broken)))
    assert f"{path}: field 'data[0].paragraphs[0].qas[0].answers[1]': must be an object with a 'text', not text" \
        in result.output
    path.write_text('{"data": [\n  {"paragraphs": [}\n]}', encoding="utf-8")
    result = run("import", "test-set", str(path), "--format", "squad")
    assert f"{path}:2: not valid JSON" in result.output
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = run("import", "test-set", str(path), "--format", "squad")
    assert "nested too deeply" in result.output and "Traceback" not in result.output
    # predictions: the question id is the path
    assert run("import", "test-set", str(_json(tmp_path / "ok.json", SQUAD_V2)), "--name", "ok").exit_code == 0
    before = database_snapshot(sessions)
    predictions = _json(tmp_path / "p.json", {"56be4db0acb8001400a502ec": "", "w1": "x"})
    result = run("import", "answers", "--test-set", "ok", str(predictions))
    # "" is SQuAD v2.0's "no answer": an abstention, imported only with --allow-missing.
    assert (f"{predictions}: system 'p' has no answer for 1 question of test set 'ok' (1 of them with the file's "
            "no-answer, \"\"): '56be4db0acb8001400a502ec' (--allow-missing if it abstains on them)") in result.output
    assert database_snapshot(sessions) == before


CMRC = {"version": "v1.0", "data": [{"id": "DEV_0", "title": "珠穆朗玛峰", "paragraphs": [
    {"id": "DEV_0", "context": "珠穆朗玛峰高8848.86米，是世界最高峰。",
     "qas": [{"question": "珠穆朗玛峰有多高？", "id": "DEV_0_QUERY_0",
              "answers": [{"text": "8848.86米", "answer_start": 6}, {"text": "8848.86米", "answer_start": 6},
                          {"text": "8848.86", "answer_start": 6}]},
             {"question": "世界最高峰是哪座山？", "id": "DEV_0_QUERY_1",
              "answers": [{"text": "珠穆朗玛峰", "answer_start": 0}]}]}]}]}


def test_cmrc_test_set_and_metrics_on_the_files(run, sessions, tmp_path):
    path = _json(tmp_path / "cmrc2018_dev.json", CMRC)
    result = run("import", "test-set", str(path), "--format", "cmrc")
    assert result.exit_code == 0, result.output
    assert "imported test set 'cmrc2018_dev': 2 questions; references per question: 1×1, 3×1" in result.output
    with sessions() as s:
        q = s.scalar(select(Question).where(Question.external_id == "DEV_0_QUERY_0"))
        assert [r.text for r in q.references] == ["8848.86米", "8848.86米", "8848.86"]
    predictions = _json(tmp_path / "sys.json", {"DEV_0_QUERY_0": "8848米", "DEV_0_QUERY_1": "珠穆朗玛峰"})
    out = tmp_path / "m.json"
    result = run("metrics", "--references", str(path), "--answers", str(predictions), "--metric", "exact-match",
                 "--metric", "f1", "--out", str(out))
    assert result.exit_code == 0, result.output
    scores = json.loads(out.read_text())["scores"]
    # "8848米" against "8848.86米": characters 8,8,4,8,米 of 8,8,4,8,8,6,米 (punctuation removed) → F1 = 10/12
    assert scores["exact-match"]["sys"]["score"] == 0.5
    assert scores["f1"]["sys"]["score"] == pytest.approx((10 / 12 + 1) / 2)   # P = 5/5, R = 5/7


def test_dureader_labels_and_entities_reach_the_database_and_the_metrics(run, sessions, tmp_path):
    path = write_jsonl(tmp_path / "zhidao.dev.json", DUREADER)      # DuReader's files are JSON lines ending in .json
    predictions = write_jsonl(tmp_path / "bidaf.json", DUREADER_PREDICTIONS)
    assert guess_format(path) == "dureader" and guess_format(predictions) == "dureader"
    result = run("import", "test-set", str(path), "--name", "du")
    assert result.exit_code == 0, result.output
    assert "answer types: description 1, entity 1, yes_no 1" in result.output
    result = run("import", "answers", "--test-set", "du", str(predictions))
    assert result.exit_code == 0, result.output
    assert "note: 1 prediction(s) hold several answers; the first of each was imported" in result.output
    with sessions() as s:
        questions = {q.external_id: q for q in s.scalars(select(Question))}
        yes_no, entity = questions["186572"], questions["186573"]
        assert [(r.text, r.yes_no_label) for r in yes_no.references] == [
            ("能吃，但要新鲜的。", "yes"), ("不能，生鸡蛋有细菌。", "no")]
        assert [r.entities for r in entity.references] == [["珠穆朗玛峰"], ["珠峰"]]
        assert entity.gold_entities == ["珠穆朗玛峰", "珠峰"]
        assert questions["186574"].gold_entities is None
        labels = dict(s.execute(select(Question.external_id, Answer.yes_no_label)
                                .join(Answer, Answer.question_id == Question.id)).all())
        assert labels == {"186572": "yes", "186573": None, "186574": None}
    db_out, file_out = tmp_path / "db.json", tmp_path / "files.json"
    metrics = ["--metric", "rouge-l-adapted", "--metric", "bleu-4-adapted"]
    assert run("metrics", "--test-set", "du", "--out", str(db_out), *metrics).exit_code == 0
    result = run("metrics", "--references", str(path), "--answers", str(predictions), "--out", str(file_out), *metrics)
    assert result.exit_code == 0, result.output
    assert json.loads(db_out.read_text())["scores"] == json.loads(file_out.read_text())["scores"]


def test_dureader_errors_name_line_and_source_field(run, sessions, tmp_path):
    bad = [DUREADER[0], {**DUREADER[1], "question_type": "YES_NO", "yesno_answers": ["Yes"]}]
    path = write_jsonl(tmp_path / "bad.json", bad)
    before = database_snapshot(sessions)
    result = run("import", "test-set", str(path))
    assert result.exit_code != 0
    assert f"{path}:2: field 'yesno_answers': 1 yes/no labels for 2 references" in result.output
    path = write_jsonl(tmp_path / "bad2.json", [{**DUREADER[0], "answers": []}])
    result = run("import", "test-set", str(path), "--format", "dureader")
    assert f"{path}: field 'answers': no question in the file has answers (every 'answers' list is empty)" \
        in result.output
    path = write_jsonl(tmp_path / "bad4.json", [{**DUREADER[0], "documents": [{"paragraphs": "能吃"}]}])
    result = run("import", "test-set", str(path))
    assert f"{path}:1: field 'documents': document 1: 'paragraphs' must be a list of texts" in result.output
    path = write_jsonl(tmp_path / "bad3.json", [{**DUREADER[0], "question_type": "OPINION"}])
    result = run("import", "test-set", str(path))
    assert f"{path}:1: field 'question_type': unknown answer type 'OPINION'" in result.output
    assert database_snapshot(sessions) == before


MSMARCO = [
    {"query_id": 1102432, "query": "what is a corporation?", "query_type": "DESCRIPTION",
     "answers": ["A corporation is a company or group of people authorized to act as a single entity."],
     "wellFormedAnswers": [],
     "passages": [{"is_selected": 0, "passage_text": "A company is incorporated in a specific nation."},
                  {"is_selected": 1, "passage_text": "Corporation: a company authorized to act as a single entity."}]},
    {"query_id": 1102431, "query": "why did rachel carson write silent spring", "query_type": "DESCRIPTION",
     "answers": ["No Answer Present."], "wellFormedAnswers": [], "passages": []},
    {"query_id": 1102430, "query": "what colour are flamingos", "query_type": "DESCRIPTION",
     "answers": ["Pink", "Pink.", "Pink"], "wellFormedAnswers": [], "passages": []},
]


def test_msmarco_test_set_and_predictions(run, sessions, tmp_path):
    path = write_jsonl(tmp_path / "dev_v2.1.jsonl", MSMARCO)
    assert guess_format(path) == "msmarco"
    result = run("import", "test-set", str(path), "--name", "marco")
    assert result.exit_code == 0, result.output
    assert "2 questions; references per question: 1×1, 2×1; 1 with context" in result.output
    assert "note: left out 1 quer(y/ies) with no answer ('No Answer Present.')" in result.output
    with sessions() as s:
        q = s.scalar(select(Question).where(Question.external_id == "1102432"))
        assert q.context == "Corporation: a company authorized to act as a single entity."
        assert [r.text for r in s.scalar(select(Question).where(Question.external_id == "1102430")).references] \
            == ["Pink", "Pink."]
    predictions = write_jsonl(tmp_path / "run.jsonl", [{"query_id": 1102432, "answers": ["A company."]},
                                                 {"query_id": 1102430, "answers": ["pink"]}])
    result = run("import", "answers", "--test-set", "marco", str(predictions))
    assert result.exit_code == 0, result.output
    before = database_snapshot(sessions)
    empty = write_jsonl(tmp_path / "empty.jsonl", [{"query_id": 1102432, "answers": []},
                                             {"query_id": 1102430, "answers": ["pink"]}])
    result = run("import", "answers", "--test-set", "marco", str(empty))
    assert f"{empty}:1: field 'answers': missing (the field is required)" in result.output
    assert database_snapshot(sessions) == before
    with sessions() as s:
        assert s.scalar(select(System.name).where(System.name == "run")) == "run"
        assert s.scalar(select(models.TestSet.name)) == "marco"


def test_a_file_whose_format_cannot_be_told(tmp_path):
    path = write_jsonl(tmp_path / "mine.json", [{"id": "q1", "question": "?", "references": ["r"]}])
    with pytest.raises(InputError, match=r"cannot tell the file's format; give --format"):
        guess_format(path)
    assert guess_format(write_jsonl(tmp_path / "mine.jsonl", [{"id": "q1", "question": "?"}])) == "platform"
    assert guess_format(tmp_path / "table.csv") == "platform"
