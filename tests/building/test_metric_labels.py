"""Labels from the data: per-reference yes/no labels and entities in test sets, a yes/no label per answer;
their round trip through the import formats and the database into the metrics; the opt-in guess; and
metric validation on real-looking data (HUMAN = reference for some questions, constant metrics)."""
from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from analysis.metrics import AdaptedBleu, AdaptedRougeL, QuestionInfo, RougeL
from da_platform.building.importers import (
    import_second_reference_as_human,
    import_system_answers,
    import_test_set,
)
from da_platform.cli import main
from da_platform.db.models import Answer, Question, Reference, System
from hit_builder.readers import read_table
from hit_builder.records import parse_answers, parse_test_set
from tests.import_files import write_jsonl

TEST_SET = [
    {"id": "y1", "question": "Can you eat raw eggs?", "answer_type": "yes_no", "yes_no": ["yes", "no"],
     "references": ["Yes you can, but cook raw eggs first", "No, never eat raw meat."]},
    {"id": "y2", "question": "Is tea healthy?", "answer_type": "yes_no", "yes_no": "depends",
     "references": ["It depends on how much you drink.", "It depends."]},
    {"id": "e1", "question": "Which bridge is famous?", "answer_type": "entity",
     "entities": [["Golden Gate Bridge"], ["Golden Gate Bridge", "Bay Bridge"]],
     "references": ["the Golden Gate Bridge opened in 1937.", "The Bay Bridge and the Golden Gate Bridge."]},
    {"id": "d1", "question": "How high is Everest?", "answer_type": "description",
     "references": ["珠穆朗玛峰高8848.86米", "8848.86米"]},
]
SYSTEMS = {
    "A": [("Yes you can eat raw eggs.", "yes"), ("It depends on the amount.", "depends"),
          ("the most famous one is the Golden Gate Bridge, which opened in 1937 to traffic.", None),
          ("8848.86米", None)],
    "B": [("Never mind, you can eat them.", "yes"), ("Tea is healthy.", None),
          ("the Bay Bridge", None), ("很高", None)],
}


@pytest.fixture
def files(tmp_path):
    test_set = write_jsonl(tmp_path / "labelled.jsonl", TEST_SET)
    answers = []
    for name, rows in SYSTEMS.items():
        answers.append(write_jsonl(tmp_path / f"{name}.jsonl", [
            {"id": q["id"], "answer": text, **({"yes_no": label} if label else {})}
            for q, (text, label) in zip(TEST_SET, rows)]))
    return test_set, answers


def test_per_reference_labels_and_entities_are_read_from_jsonl(files):
    test_set, answers = files
    questions = {q.id: q for q in parse_test_set(read_table(test_set))}
    assert questions["y1"].reference_labels == ("yes", "no") and questions["y1"].yes_no is None
    assert questions["y2"].yes_no == "depends" and questions["y2"].reference_labels is None
    assert questions["e1"].reference_entities == (("Golden Gate Bridge",), ("Golden Gate Bridge", "Bay Bridge"))
    assert questions["e1"].entities == ("Golden Gate Bridge", "Bay Bridge")        # the union, no duplicates
    assert [a.yes_no for a in parse_answers(read_table(answers[0]))] == ["yes", "depends", None, None]


def test_labels_in_csv_one_per_reference_or_one_for_all(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,question,reference,reference_2,answer_type,yes_no,entities\n"
                    "q1,Eggs?,Yes.,No.,yes_no,Yes;no,\n"
                    "q2,Tea?,Yes.,Sure.,yes_no,yes,\n"
                    "q3,Who?,Ada.,Ada Lovelace.,entity,,Ada;Ada Lovelace;Ada\n", encoding="utf-8")
    q1, q2, q3 = parse_test_set(read_table(path))
    assert (q1.reference_labels, q1.yes_no) == (("yes", "no"), None)
    assert (q2.reference_labels, q2.yes_no) == (None, "yes")
    assert q3.entities == ("Ada", "Ada Lovelace")
    answers = tmp_path / "a.tsv"
    answers.write_text("id\tanswer\tyes_no\nq1\tYes.\tYES\nq2\tNo.\t\nq3\tAda.\t\n", encoding="utf-8")
    assert [a.yes_no for a in parse_answers(read_table(answers))] == ["yes", None, None]


@pytest.mark.parametrize("row, message", [
    ({"yes_no": ["yes"]}, "field 'yes_no': 1 yes/no labels for 2 references"),
    ({"yes_no": ["yes", "maybe"]}, "field 'yes_no': unknown yes/no label 'maybe'"),
    ({"yes_no": [1, "no"]}, "field 'yes_no': a yes/no label must be text, not a number"),
    ({"answer_type": "entity", "yes_no": ["yes", None]}, "a yes/no label needs answer_type 'yes_no'"),
    ({"answer_type": "entity", "entities": [["A"]]}, "field 'entities': 1 entity lists for 2 references"),
    ({"answer_type": "entity", "entities": [["A"], ["B", 3]]}, "field 'entities': list 2 must hold texts only"),
])
def test_bad_labels_name_file_line_and_field(tmp_path, row, message):
    base = {"id": "q", "question": "?", "references": ["r1", "r2"], "answer_type": "yes_no"}
    path = write_jsonl(tmp_path / "bad.jsonl", [{"id": "ok", "question": "?", "references": ["r"]}, {**base, **row}])
    from da_core.errors import InputError

    with pytest.raises(InputError) as error:
        parse_test_set(read_table(path))
    assert str(error.value).startswith(f"{path}:2: ") and message in str(error.value)


def test_bad_answer_label_is_located(tmp_path):
    from da_core.errors import InputError

    path = write_jsonl(tmp_path / "s.jsonl", [{"id": "q", "answer": "a", "yes_no": "perhaps"}])
    with pytest.raises(InputError, match=r"s\.jsonl:1: field 'yes_no': unknown yes/no label 'perhaps'"):
        parse_answers(read_table(path))


def test_labels_round_trip_through_the_database(session, files):
    test_set_path, answer_paths = files
    test_set = import_test_set(session, test_set_path, name="labelled")
    for path in answer_paths:
        import_system_answers(session, test_set, path)
    session.commit()
    stored = {q.external_id: q for q in session.scalars(select(Question).where(Question.test_set_id == test_set.id))}
    for row in TEST_SET:
        question = stored[row["id"]]
        references = sorted(question.references, key=lambda r: r.position)
        assert [r.text for r in references] == row["references"]
        labels = row.get("yes_no")
        if isinstance(labels, list):
            assert [r.yes_no_label for r in references] == labels
        else:
            assert question.yes_no_label == labels and all(r.yes_no_label is None for r in references)
        entities = row.get("entities")
        if entities:
            assert [r.entities for r in references] == entities
            assert question.gold_entities == ["Golden Gate Bridge", "Bay Bridge"]
    answers = session.execute(select(System.name, Question.external_id, Answer.yes_no_label)
                              .join(Answer, Answer.system_id == System.id)
                              .join(Question, Question.id == Answer.question_id)).all()
    given = {(name, qid): label for name, qid, label in answers}
    for name, rows in SYSTEMS.items():
        for question, (_, label) in zip(TEST_SET, rows):
            assert given[(name, question["id"])] == label
    assert session.scalar(select(Reference.id).where(Reference.yes_no_label.is_not(None))) is not None
    # HUMAN (the second references) carries each second reference's label, or the question's
    human = import_second_reference_as_human(session, test_set)
    session.commit()
    labels = dict(session.execute(select(Question.external_id, Answer.yes_no_label)
                                  .join(Answer, Answer.question_id == Question.id)
                                  .where(Answer.system_id == human.id)).all())
    assert labels == {"y1": "no", "y2": "depends", "e1": None, "d1": None}


def _env(database_url, tmp_path):
    return {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}


def test_metrics_from_files_and_from_the_database_agree_and_use_the_labels(session, files, database_url, tmp_path):
    test_set_path, answer_paths = files
    test_set = import_test_set(session, test_set_path, name="labelled")
    for path in answer_paths:
        import_system_answers(session, test_set, path)
    session.commit()
    runner = CliRunner()
    from_db, from_files = tmp_path / "db.json", tmp_path / "files.json"
    options = ["--metric", "rouge-l-adapted", "--metric", "bleu-4-adapted", "--preset", "paper"]
    result = runner.invoke(main, ["metrics", "--test-set", "labelled", "--out", str(from_db), *options],
                           env=_env(database_url, tmp_path))
    assert result.exit_code == 0, result.output
    assert "labels:data|alpha:2|beta:1|gamma:1.2" in result.output     # the signature is printed
    result = runner.invoke(main, ["metrics", "--references", str(test_set_path),
                                  *[a for p in answer_paths for a in ("--answers", str(p))],
                                  "--out", str(from_files), *options], env=_env(database_url, tmp_path))
    assert result.exit_code == 0, result.output
    db, fs = json.loads(from_db.read_text()), json.loads(from_files.read_text())
    assert db["scores"] == fs["scores"] and db["signatures"] == fs["signatures"]
    assert db["signatures"]["rouge-l-adapted"].startswith("rouge-l-adapted|tok:words|case:mixed|labels:data|")
    # system A's numbers are the library's with the labels from the files
    refs = [tuple(q["references"]) for q in TEST_SET]
    infos = [QuestionInfo("yes_no", reference_labels=("yes", "no"), answer_label="yes"),
             QuestionInfo("yes_no", yes_no_label="depends", answer_label="depends"),
             QuestionInfo("entity", gold_entities=("Golden Gate Bridge", "Bay Bridge")),
             QuestionInfo("description")]
    hyps = [text for text, _ in SYSTEMS["A"]]
    assert db["scores"]["rouge-l-adapted"]["A"]["score"] == pytest.approx(
        AdaptedRougeL(alpha=2.0).corpus_score(hyps, refs, infos).score, abs=1e-15)
    assert db["scores"]["bleu-4-adapted"]["A"]["score"] == pytest.approx(
        AdaptedBleu(alpha=2.0).corpus_score(hyps, refs, infos).score, abs=1e-15)
    # B's second answer has no label: no guess unless asked for, and the run says so
    assert "1 answer(s) to yes/no questions have no yes/no label" in result.output


def test_guessing_labels_is_an_opt_in_that_reports_its_count(files, tmp_path):
    test_set_path, answer_paths = files
    env = {"DA_DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite'}"}
    args = ["metrics", "--references", str(test_set_path), "--answers", str(answer_paths[1]),
            "--metric", "rouge-l-adapted"]
    plain = CliRunner().invoke(main, args, env=env)
    guessed = CliRunner().invoke(main, [*args, "--guess-labels"], env=env)
    assert plain.exit_code == 0 and guessed.exit_code == 0, (plain.output, guessed.output)
    # "Tea is healthy." opens with no yes/no word: nothing to guess, still unlabelled
    assert "guessed" not in plain.output and "labels:data|" in plain.output
    assert "labels:data+guess|" in guessed.output
    assert "1 answer(s) to yes/no questions have no yes/no label" in guessed.output


# --- validation on real-looking data ------------------------------------------------------------

REAL = [
    {"id": f"q{k}", "question": f"question {k}?",
     "references": [f"the answer number {k} is here.", f"the answer number {k} is here." if k % 3 == 0
                    else f"answer {k} is somewhere else."]}
    for k in range(9)
]


def test_validation_with_human_equal_to_the_reference_for_some_questions(session, database_url, tmp_path):
    path = write_jsonl(tmp_path / "real.jsonl", REAL)
    runner = CliRunner()
    env = _env(database_url, tmp_path)
    assert runner.invoke(main, ["import", "test-set", str(path), "--name", "real"], env=env).exit_code == 0
    for name, template in (("good", "the answer number {k} is here, i think"), ("fair", "answer number {k}"),
                           ("poor", "number {k}"), ("bad", "nothing")):
        answers = write_jsonl(tmp_path / f"{name}.jsonl", [{"id": f"q{k}", "answer": template.format(k=k)}
                                                       for k in range(9)])
        assert runner.invoke(main, ["import", "answers", "--test-set", "real", str(answers)], env=env).exit_code == 0
    result = runner.invoke(main, ["import", "human", "--test-set", "real"], env=env)
    assert result.exit_code == 0, result.output
    assert "warning: for 3 question(s) the second reference equals the first ('q0', 'q3', 'q6')" in result.output

    out = tmp_path / "scores.csv"
    result = runner.invoke(main, ["metrics", "--test-set", "real", "--out", str(out), "--metric", "rouge-l",
                                  "--metric", "exact-match"], env=env)
    assert result.exit_code == 0, result.output
    rows = {r["system"]: r for r in csv.DictReader(line for line in out.read_text().splitlines()
                                                   if not line.startswith("#"))}
    # HUMAN: perfect where its answer is the reference, scored against the first reference elsewhere
    expected = [1.0 if k % 3 == 0 else RougeL().sentence_score(REAL[k]["references"][1], [REAL[k]["references"][0]])
                for k in range(9)]
    assert float(rows["HUMAN"]["rouge-l"]) == pytest.approx(sum(expected) / 9, abs=1e-15)
    assert float(rows["HUMAN"]["exact-match"]) == pytest.approx(3 / 9)

    human = tmp_path / "human.csv"
    human.write_text("system,z\ngood,0.9\nfair,0.3\npoor,-0.2\nbad,-0.8\nHUMAN,1.0\n")
    result = runner.invoke(main, ["validate-metrics", "--human-scores", str(human), "--test-set", "real",
                                  "--metric", "rouge-l", "--metric", "exact-match", "--out", str(tmp_path / "v")],
                           env=env)
    assert result.exit_code == 0, result.output
    assert "5 systems: good, fair, poor, bad, HUMAN" in result.output
    result = runner.invoke(main, ["validate-metrics", "--human-scores", str(human), "--test-set", "real",
                                  "--metric", "rouge-l", "--metric", "exact-match", "--exclude-systems", "HUMAN",
                                  "--out", str(tmp_path / "v2")], env=env)
    assert result.exit_code == 0, result.output
    assert "4 systems: good, fair, poor, bad" in result.output
    # exact match is 0 for every ordinary system: reported, not a crash
    assert "EM gives every system the same score" in result.output
    assert "| EM | – | – | – |" in result.output
    document = json.loads((tmp_path / "v2" / "metric-validation.json").read_text())
    assert [row["metric"] for row in document["correlations"]] == ["rouge-l", "exact-match"]
    assert document["correlations"][1]["r"] is None
    assert document["correlations"][0]["signature"].startswith("rouge-l|tok:words|")
    result = runner.invoke(main, ["validate-metrics", "--human-scores", str(human), "--test-set", "real",
                                  "--systems", "good,fair,zzz"], env=env)
    assert result.exit_code != 0 and "--systems: no human score for zzz" in result.output
    assert "Traceback" not in result.output
