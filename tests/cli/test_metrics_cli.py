"""``da-platform metrics`` and ``validate-metrics`` on a test set in the database and on files."""
from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from analysis.metrics import AdaptedRougeL, Bleu4, QuestionInfo, RougeL
from da_platform.building.importers import import_second_reference_as_human, import_system_answers, import_test_set
from da_platform.cli import main
from tests.import_files import write_jsonl

TEST_SET = [
    {"id": "q1", "question": "Is it safe to eat raw eggs?", "answer_type": "yes_no", "yes_no": "yes",
     "references": ["yes it is generally safe for most adults to eat them daily", "yes if they are fresh"]},
    {"id": "q2", "question": "Which cities host the games?", "answer_type": "entity",
     "entities": ["new york city", "los angeles"],
     "references": ["new york city and la or los angeles", "los angeles and new york city"]},
    {"id": "q3", "question": "北京是哪个国家的首都？", "answer_type": "description",
     "references": ["北京是中国的首都", "中国"]},
    {"id": "q4", "question": "What is the boiling point of water?", "answer_type": "description",
     "references": ["water boils at one hundred degrees celsius at sea level", "one hundred degrees"]},
]
ANSWERS = {
    "good": ["yes it is safe to eat these", "new york city and los angeles too", "北京是中国的首都",
             "water boils at one hundred degrees celsius"],
    "fair": ["no it is not safe", "new york city", "中国的首都", "one hundred"],
    "poor": ["maybe", "paris", "上海", "it is hot"],
    "bad": ["the weather is nice", "tokyo", "东京", "no idea at all"],
}
#: The yes/no labels the systems give with their answers (only q1 is a yes/no question).
GOOD_LABELS = {"q1": "yes"}
LABELS = {"good": GOOD_LABELS, "fair": {"q1": "no"}}


@pytest.fixture
def files(tmp_path):
    test_set = write_jsonl(tmp_path / "qa.jsonl", TEST_SET)
    answers = [write_jsonl(tmp_path / f"{name}.jsonl",
                            [{"id": q["id"], "answer": a,
                              **({"yes_no": LABELS[name][q["id"]]} if q["id"] in LABELS.get(name, {}) else {})}
                             for q, a in zip(TEST_SET, texts)])
               for name, texts in ANSWERS.items()]
    return test_set, answers


@pytest.fixture
def imported(session, files):
    test_set_path, answer_paths = files
    test_set = import_test_set(session, test_set_path, name="qa")
    for path in answer_paths:
        import_system_answers(session, test_set, path)
    import_second_reference_as_human(session, test_set)
    session.commit()
    return test_set


def _run(args, database_url, tmp_path):
    env = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}
    return CliRunner().invoke(main, args, env=env, catch_exceptions=False)


def test_metrics_scores_every_system_of_a_test_set(imported, database_url, tmp_path):
    out = tmp_path / "scores.csv"
    result = _run(["metrics", "--test-set", "qa", "--out", str(out)], database_url, tmp_path)
    assert result.exit_code == 0, result.output
    assert "| System | ROUGE-L | BLEU-1 | BLEU-4 | METEOR | EM | F1 | ROUGE-L (adapted) | BLEU-4 (adapted) |" \
        in result.output
    lines = out.read_text().splitlines()
    # a plain CSV, header first (what a spreadsheet or pandas.read_csv expects); the signatures beside it
    assert lines[0] == "system,rouge-l,bleu-1,bleu-4,meteor,exact-match,f1,rouge-l-adapted,bleu-4-adapted"
    signatures = json.loads((tmp_path / "scores.signatures.json").read_text())["signatures"]
    assert signatures["rouge-l"].startswith("rouge-l|tok:words|case:mixed|gamma:1.2")
    assert f"signatures written to {tmp_path / 'scores.signatures.json'}" in result.output
    rows = {row["system"]: row for row in csv.DictReader(lines)}
    assert set(rows) == {"good", "fair", "poor", "bad", "HUMAN"}
    # the database path gives exactly the library's numbers, annotations included
    refs = [tuple(q["references"]) for q in TEST_SET]
    infos = [QuestionInfo(q["answer_type"], q.get("yes_no"), tuple(q.get("entities", ())),
                          answer_label=GOOD_LABELS.get(q["id"])) for q in TEST_SET]
    good = ANSWERS["good"]
    assert float(rows["good"]["rouge-l"]) == pytest.approx(RougeL().corpus_score(good, refs).score)
    assert float(rows["good"]["bleu-4"]) == pytest.approx(Bleu4().corpus_score(good, refs).score)
    assert float(rows["good"]["rouge-l-adapted"]) == pytest.approx(
        AdaptedRougeL().corpus_score(good, refs, infos).score)
    assert float(rows["good"]["rouge-l-adapted"]) > float(rows["good"]["rouge-l"])
    # HUMAN (the second references) is scored against the first references only, not against itself
    human = [q["references"][1] for q in TEST_SET]
    first = [(q["references"][0],) for q in TEST_SET]
    assert float(rows["HUMAN"]["rouge-l"]) == pytest.approx(RougeL().corpus_score(human, first).score)
    assert float(rows["HUMAN"]["exact-match"]) == 0.0
    for metric in ("rouge-l", "meteor", "f1"):
        assert float(rows["good"][metric]) > float(rows["fair"][metric]) > float(rows["bad"][metric])


def test_metrics_choice_of_systems_and_metrics_and_errors(imported, database_url, tmp_path):
    result = _run(["metrics", "--test-set", "qa", "--systems", "good,bad", "--metric", "f1",
                   "--metric", "exact-match"], database_url, tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "| System | F1 | EM |"
    assert [line.split("|")[1].strip() for line in result.stdout.splitlines()[2:4]] == ["good", "bad"]
    for args, message in [
        (["metrics", "--test-set", "nope"], "no test set named 'nope' (test sets: qa) in database "),
        (["metrics", "--test-set", "qa", "--systems", "zzz"], "has no system zzz"),
        (["metrics", "--test-set", "qa", "--metric", "bleurt"], "unknown metric bleurt"),
        (["metrics"], "give either --test-set"),
        (["metrics", "--test-set", "qa", "--out", "x.xlsx"], "use a .csv, .json or .md file"),
    ]:
        result = _run(args, database_url, tmp_path)
        assert result.exit_code != 0 and message in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_metrics_from_files_without_the_database(files, tmp_path):
    test_set, answers = files
    runner = CliRunner()
    env = {"DA_DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite'}"}
    out = tmp_path / "scores.json"
    result = runner.invoke(main, ["metrics", "--references", str(test_set), "--answers", str(answers[0]),
                                  "--answers", str(answers[2]), "--metric", "rouge-l", "--out", str(out)], env=env)
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["systems"] == ["good", "poor"]
    refs = [tuple(q["references"]) for q in TEST_SET]
    assert document["scores"]["rouge-l"]["good"]["score"] == pytest.approx(
        RougeL().corpus_score(ANSWERS["good"], refs).score)
    bad = tmp_path / "short.jsonl"
    write_jsonl(bad, [{"id": "q1", "answer": "yes"}, {"id": "q9", "answer": "no"}])
    result = runner.invoke(main, ["metrics", "--references", str(test_set), "--answers", str(bad)], env=env)
    assert result.exit_code != 0 and f"{bad}:2: field 'id': no question with id 'q9'" in result.output


def test_validate_metrics_with_a_human_score_file(imported, database_url, tmp_path):
    human = tmp_path / "human.csv"
    human.write_text("system,z\ngood,0.8\nfair,0.1\npoor,-0.3\nbad,-0.9\nHUMAN,0.9\n")
    out = tmp_path / "validation"
    result = _run(["validate-metrics", "--human-scores", str(human), "--test-set", "qa", "--out", str(out)],
                  database_url, tmp_path)
    assert result.exit_code == 0, result.output
    assert "5 systems" in result.output and "| Metric | r | ρ | τ |" in result.output
    for name in ("metric-validation.csv", "metric-validation.json", "metric-validation.tex",
                 "metric-validation.md", "metric-validation-williams.png"):
        assert (out / name).is_file() and f"wrote {out / name}" in result.output
    rows = list(csv.DictReader((out / "metric-validation.csv").open()))
    assert len(rows) == 8 and all(-1 <= float(row["r"]) <= 1 for row in rows if row["r"] != "nan")


def test_validate_metrics_from_score_files_and_errors(tmp_path):
    env = {"DA_DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite'}"}
    scores = tmp_path / "scores.csv"
    scores.write_text("system,rouge-l,bleu-4\nA,0.5,0.2\nB,0.4,0.25\nC,0.3,0.1\nD,0.1,0.05\n")
    human = tmp_path / "human.csv"
    human.write_text("system,z\nA,0.5\nB,0.4\nC,0.3\nD,0.1\n")
    runner = CliRunner()
    result = runner.invoke(main, ["validate-metrics", "--human-scores", str(human), "--metric-scores", str(scores),
                                  "--out", str(tmp_path / "v")], env=env)
    assert result.exit_code == 0, result.output
    assert "| ROUGE-L | 1.000 | 1.000 | 1.000 |" in result.output
    assert (tmp_path / "v" / "metric-validation-williams.png").is_file()
    human.write_text("system,z\nA,0.5\nB,oops\n")
    result = runner.invoke(main, ["validate-metrics", "--human-scores", str(human), "--metric-scores", str(scores)],
                           env=env)
    assert result.exit_code != 0 and f"{human}:3: field 'z': not a number" in result.output
    result = runner.invoke(main, ["validate-metrics", "--metric-scores", str(scores)], env=env)
    assert result.exit_code != 0 and "--campaign NAME or --human-scores FILE" in result.output


def test_validate_metrics_reads_the_plain_csv_with_its_signatures_beside_it(imported, database_url, tmp_path):
    """``metrics --out x.csv`` writes a plain CSV and x.signatures.json; ``validate-metrics --metric-scores``
    reads both (and the JSON output, and a CSV of an earlier version whose signatures begin it)."""
    human = tmp_path / "human.csv"
    human.write_text("system,z\ngood,0.8\nfair,0.1\npoor,-0.3\nbad,-0.9\n")
    scores = tmp_path / "scores.csv"
    assert _run(["metrics", "--test-set", "qa", "--metric", "rouge-l", "--out", str(scores)], database_url,
                tmp_path).exit_code == 0
    signature = json.loads((tmp_path / "scores.signatures.json").read_text())["signatures"]["rouge-l"]
    as_json = tmp_path / "scores.json"
    assert _run(["metrics", "--test-set", "qa", "--metric", "rouge-l", "--out", str(as_json)], database_url,
                tmp_path).exit_code == 0
    legacy = tmp_path / "legacy.csv"
    legacy.write_text(f"# rouge-l: {signature}\n" + scores.read_text())
    rows = []
    for number, given in enumerate((scores, as_json, legacy)):
        out = tmp_path / f"v{number}"
        result = _run(["validate-metrics", "--human-scores", str(human), "--metric-scores", str(given),
                       "--out", str(out)], database_url, tmp_path)
        assert result.exit_code == 0, result.output
        rows.append(list(csv.DictReader((out / "metric-validation.csv").open())))
    assert rows[0] == rows[1] == rows[2]
    assert rows[0][0]["metric"] == "rouge-l" and rows[0][0]["signature"] == signature


def _rated_campaign(session, test_set) -> None:
    """A small campaign whose workers rate good > fair > poor > bad and HUMAN best (no QC checks)."""
    from da_platform.db.models import (
        Answer,
        Assignment,
        AssignmentStatus,
        Campaign,
        Hit,
        Rating,
        Slot,
        SlotType,
        System,
        Worker,
    )

    quality = {"HUMAN": 92, "good": 80, "fair": 55, "poor": 30, "bad": 10}
    systems = {s.name: s for s in session.query(System).filter_by(test_set_id=test_set.id)}
    campaign = Campaign(name="qa-adequacy", test_set=test_set, criterion="adequacy", statement="adequate?",
                        seed=1, systems=list(systems.values()))
    answers = session.query(Answer).filter(Answer.system_id.in_([s.id for s in systems.values()])).all()
    hit = Hit(campaign=campaign, index=0, public_id="hit-0", slot_count=len(answers))
    session.add_all([campaign, hit])
    slots = []
    for position, answer in enumerate(sorted(answers, key=lambda a: a.id)):
        slots.append(Slot(hit=hit, position=position, set_index=position // 10, slot_type=SlotType.SYSTEM,
                          public_id=f"slot-{position}", question_id=answer.question_id,
                          system_id=answer.system_id, answer_id=answer.id, candidate_text=answer.text))
    session.add_all(slots)
    session.flush()
    names = {s.id: s.name for s in systems.values()}
    for w in range(3):
        worker = Worker(source="pool", external_id=f"w{w}")
        assignment = Assignment(hit=hit, worker=worker, public_id=f"a{w}", source="pool",
                                status=AssignmentStatus.completed)
        session.add_all([worker, assignment])
        for slot in slots:
            score = quality[names[slot.system_id]] + (slot.position * 7 + w * 3) % 9 - 4
            session.add(Rating(assignment=assignment, slot=slot, score=score))
    session.commit()


def test_validate_metrics_with_a_campaign(imported, session, database_url, tmp_path):
    _rated_campaign(session, imported)
    out = tmp_path / "validation"
    result = _run(["validate-metrics", "--campaign", "qa-adequacy", "--metric", "rouge-l", "--metric", "f1",
                   "--metric", "exact-match", "--out", str(out)], database_url, tmp_path)
    assert result.exit_code == 0, result.output
    assert "5 systems" in result.output
    document = json.loads((out / "metric-validation.json").read_text())
    human = dict(zip(document["systems"], document["human"]))
    assert sorted(human, key=human.get, reverse=True) == ["HUMAN", "good", "fair", "poor", "bad"]
    assert set(document["metric_scores"]) == {"rouge-l", "f1", "exact-match"}
    result = _run(["validate-metrics", "--campaign", "nope"], database_url, tmp_path)
    assert result.exit_code != 0 and "no campaign named 'nope'" in result.output and "qa-adequacy" in result.output
