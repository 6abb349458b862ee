"""import judge-scores: an automatic judge's per-answer scores, stored (both databases), read with the ratings,
and every bad input refused with file, line and field, nothing stored."""
from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import func, select

from da_core.errors import InputError
from da_platform.building.judges import import_judge_scores, judges_of
from da_platform.db import models
from da_platform.db.models import JudgeScore
from hit_builder.storage import LocalImageStorage
from tests.factories import make_test_set


def _write(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_scores_are_stored_per_answer_and_replaced_only_when_asked(session, tmp_path):
    test_set = make_test_set(session, questions=3, systems=("alpha", "beta"))
    file = _write(tmp_path / "judge.jsonl", [{"system": "alpha", "id": "q0000", "score": 7},
                                             {"system": "beta", "id": "q0001", "score": 0.25}])
    done = import_judge_scores(session, test_set, file, judge="gpt-x prompt 1")
    assert (done.judge, done.scored, done.replaced, done.unscored) == ("gpt-x prompt 1", 2, 0, 4)
    assert judges_of(session, test_set.id) == {"gpt-x prompt 1": 2}
    with pytest.raises(InputError, match="judge 'gpt-x prompt 1' has scores for 2 answers of test set 'test set' "
                                         "already: import with --replace"):
        import_judge_scores(session, test_set, file, judge="gpt-x prompt 1")
    again = import_judge_scores(session, test_set, _write(tmp_path / "again.jsonl", [
        {"system": "alpha", "id": "q0002", "score": 1}]), judge="gpt-x prompt 1", replace=True)
    assert (again.scored, again.replaced) == (1, 2)
    assert session.scalars(select(JudgeScore.score)).all() == [1.0]


@pytest.mark.parametrize(("rows", "message"), [
    ([{"system": "omega", "id": "q0000", "score": 1}], r"judge\.jsonl:1: field 'system': no system 'omega' in test "
                                                       r"set 'test set' \(systems: alpha, beta\)"),
    ([{"system": "alpha", "id": "q9", "score": 1}], r"judge\.jsonl:1: field 'id': no question 'q9'"),
    ([{"system": "alpha", "id": "q0000", "score": "high"}], r":1: field 'score': must be a number, not 'high'"),
    ([{"system": "alpha", "id": "q0000", "score": None}], r":1: field 'score': missing"),
    ([{"system": "alpha", "id": "q0000", "score": True}], r":1: field 'score': must be a number, not bool"),
    ([{"system": "alpha", "id": "q0000", "score": 1}, {"system": "alpha", "id": "q0000", "score": 2}],
     r":2: field 'id': a second score of system 'alpha''s answer to 'q0000' \(first on line 1\)"),
    ([{"system": "alpha", "id": "q0000", "score": 1, "judge": "x"}], r":1: field 'judge': unknown field 'judge'"),
])
def test_bad_files_are_refused_with_their_place_and_nothing_is_stored(session, tmp_path, rows, message):
    test_set = make_test_set(session, questions=3, systems=("alpha", "beta"))
    file = _write(tmp_path / "judge.jsonl", rows)
    with pytest.raises(InputError, match=message):
        import_judge_scores(session, test_set, file, judge="j")
    assert session.scalar(select(func.count(JudgeScore.id))) == 0


def test_csv_scores_and_non_finite_numbers(session, tmp_path):
    test_set = make_test_set(session, questions=2, systems=("alpha",))
    good = tmp_path / "j.csv"
    good.write_text("system,id,score\nalpha,q0000,0.5\nalpha,q0001,-2e-1\n", encoding="utf-8")
    assert import_judge_scores(session, test_set, good, judge="j").scored == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("system,id,score\nalpha,q0000,nan\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.csv:2: field 'score': must be a finite number, not nan"):
        import_judge_scores(session, test_set, bad, judge="k")
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("system,question,score\nalpha,q0000,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown field\\(s\\) question"):
        import_judge_scores(session, test_set, wrong, judge="k")


def test_a_system_without_that_answer_is_refused(session, tmp_path):
    test_set = make_test_set(session, questions=2, systems=("alpha",))
    answer = test_set.systems[0].answers[0]
    session.delete(answer)
    session.flush()
    file = _write(tmp_path / "judge.jsonl", [{"system": "alpha", "id": answer.question.external_id, "score": 1}])
    with pytest.raises(InputError, match="system 'alpha' has no answer to question 'q0000'"):
        import_judge_scores(session, test_set, file, judge="j")


def test_the_command_imports_and_the_analysis_reads_the_judge(run, sessions, tmp_path):
    assert run("import", "sample").exit_code == 0
    from da_platform.simulation.sample_data import load_truth

    truth = load_truth()["quality"]
    rows = [{"system": s, "id": q, "score": round(v / 10, 1)} for s, by_q in truth.items() for q, v in by_q.items()]
    file = _write(tmp_path / "judge.jsonl", rows)
    done = run("import", "judge-scores", file, "--test-set", "sample", "--judge", "oracle")
    assert done.exit_code == 0, done.output
    assert f"imported {len(rows)} score(s) of judge 'oracle' into test set 'sample'" in done.output
    again = run("import", "judge-scores", file, "--test-set", "sample", "--judge", "oracle")
    assert again.exit_code == 1 and "import with --replace" in again.output and "nothing was imported" in again.output
    missing = run("import", "judge-scores", file, "--test-set", "nope", "--judge", "oracle")
    assert missing.exit_code == 1 and "no test set named 'nope'" in missing.output
    assert "judge-scores" in run("import", "--help").output

    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.rating.campaign_ratings import load_ratings
    from da_platform.results.analysis_cache import read_stamp
    from hit_builder.storage import LocalImageStorage
    from tests.dashboard_factories import careless, rate_hit

    with sessions.begin() as session:
        test_set = session.scalar(select(models.TestSet).where(models.TestSet.name == "sample"))
        campaign = build_campaign(session, BuildSpec(name="c", test_set=test_set, systems=["nova", "zephyr"], seed=1),
                                  storage=LocalImageStorage(tmp_path / "i"))
        assert read_stamp(session, campaign).judge_scores[0] == 600  # the two systems' 300 answers each
        campaign_id = campaign.id
    with sessions() as session:
        campaign = session.get(models.Campaign, campaign_id)
        rate_hit(session, campaign, 0, "w1", careless)
        table = load_ratings(session, campaign)
    assert table.evidence is not None and table.evidence.judge.shape == (100, 1)
    ordinary = np.isin(table.slot_type, [0, 1])  # SYSTEM, REPEAT show the answer as it is
    assert np.isfinite(table.evidence.judge[ordinary, 0]).all()
    assert np.isnan(table.evidence.judge[~ordinary, 0]).all()


@pytest.mark.parametrize("score", ["1e308", "-1e308", "1.0000001e12", "1_000", "٣", "１", "0x10", "1e99999"])
def test_a_score_no_judge_gives_is_refused_at_its_line(session, tmp_path, score):
    """A finite ±1e308 was stored and stopped every analysis of the test set's campaigns; a number
    beyond ±1e12, or one written other than in decimal digits, is refused with its line."""
    test_set = make_test_set(session, questions=2, systems=("alpha",))
    file = tmp_path / "j.csv"
    file.write_text(f"system,id,score\nalpha,q0000,0.5\nalpha,q0001,{score}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"j\.csv:3: field 'score': must "):
        import_judge_scores(session, test_set, file, judge="j")
    huge = _write(tmp_path / "j.jsonl", [{"system": "alpha", "id": "q0000", "score": 10 ** 400}])
    with pytest.raises(InputError, match=r"j\.jsonl:1: field 'score': must lie between -1e\+12 and 1e\+12"):
        import_judge_scores(session, test_set, huge, judge="j")
    assert session.scalar(select(func.count(JudgeScore.id))) == 0


def test_the_largest_scores_a_judge_may_give_are_imported(session, tmp_path):
    test_set = make_test_set(session, questions=3, systems=("alpha",))
    file = tmp_path / "j.csv"
    file.write_text("system,id,score\nalpha,q0000,1e12\nalpha,q0001,-1000000000000\nalpha,q0002,+.5E-3\n",
                    encoding="utf-8")
    assert import_judge_scores(session, test_set, file, judge="j").scored == 3
    assert sorted(session.scalars(select(JudgeScore.score)).all()) == [-1e12, 0.0005, 1e12]


def test_stored_judge_scores_of_any_size_never_stop_the_analysis(run, sessions, tmp_path):
    """Scores of ±1e308 stored before the import refused them: ``analyze`` stopped with a traceback
    (``LinAlgError: SVD did not converge``) until the judge was replaced. It runs, with the judge."""
    from tests.dashboard_factories import build, three_workers

    with sessions() as session:
        campaign = build(session, LocalImageStorage(tmp_path / "images"), passes=2, hostile=False)
        three_workers(session, campaign)
        answers = session.scalars(select(models.Answer.id).order_by(models.Answer.id)).all()
        session.add_all(JudgeScore(answer_id=a, judge="huge", score=(1e308, -1e308, 0.5)[i % 3])
                        for i, a in enumerate(answers))
        session.commit()
    done = run("analyze", "--campaign", "dash", "--out", str(tmp_path / "report"))
    assert done.exit_code == 0, done.output
    assert "Traceback" not in done.output


@pytest.mark.parametrize("ending", ["jsonl", "csv"])
def test_a_bad_line_stops_the_import_there(session, tmp_path, ending):
    """A big file whose line 2,401 repeated line 1 was refused only once the whole file was read (100 s,
    405 MB for 30 MB). Here line 2 repeats line 1, and the file ends in bytes that are not UTF-8: a reading
    of the whole file stopped at those; the import stops at line 2."""
    test_set = make_test_set(session, questions=3, systems=("alpha",))
    lines = [{"system": "alpha", "id": f"q000{i % 3}", "score": i} for i in range(300)]
    lines[1] = lines[0]
    if ending == "jsonl":
        content = "".join(json.dumps(r) + "\n" for r in lines).encode()
    else:
        content = ("system,id,score\n" + "".join(f"{r['system']},{r['id']},{r['score']}\n" for r in lines)).encode()
    file = tmp_path / f"judge.{ending}"
    file.write_bytes(content + b"\xff\n")
    line = 2 if ending == "jsonl" else 3
    with pytest.raises(InputError, match=rf"judge\.{ending}:{line}: field 'id': a second score of system 'alpha''s "
                                         rf"answer to 'q0000' \(first on line {line - 1}\)"):
        import_judge_scores(session, test_set, file, judge="j")
    assert session.scalar(select(func.count(JudgeScore.id))) == 0


@pytest.mark.slow
def test_scores_of_many_answers_are_stored_each_on_its_answer(session, tmp_path):
    """More scores than are inserted at a time (5,000), in another order than the answers'."""
    test_set = make_test_set(session, questions=2_600, systems=("alpha", "beta"))
    rows = [{"system": s, "id": f"q{q:04d}", "score": q + (0.5 if s == "beta" else 0.0)}
            for q in reversed(range(2_600)) for s in ("beta", "alpha")]
    done = import_judge_scores(session, test_set, _write(tmp_path / "judge.jsonl", rows), judge="j")
    assert (done.scored, done.unscored) == (5_200, 0)
    stored = session.execute(select(models.System.name, models.Question.external_id, JudgeScore.score)
                             .join(models.Answer, models.Answer.id == JudgeScore.answer_id)
                             .join(models.System, models.System.id == models.Answer.system_id)
                             .join(models.Question, models.Question.id == models.Answer.question_id)).all()
    assert sorted(stored) == sorted((r["system"], r["id"], r["score"]) for r in rows)
