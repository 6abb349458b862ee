"""``da-platform simulate``: a rehearsal on a scratch copy through the real worker pages; live data untouched."""
from __future__ import annotations

import hashlib
import json
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from da_platform.cli import main
from da_platform.db.models import Assignment, Base, Campaign, Hit, Rating, Slot, System, Worker
from tests.factories import make_test_set

QUALITY = {"alpha": 85.0, "beta": 60.0, "gamma": 35.0, "delta": 10.0}  # every answer of a system alike
DESIGN = ("test_set", "question", "reference", "system", "answer", "judge_score", "campaign_system", "hit", "slot")


def _rows(connection, table: str) -> list[tuple]:
    key = ", ".join(c.name for c in Base.metadata.tables[table].primary_key.columns)
    return [tuple(row) for row in connection.execute(text(f"SELECT * FROM {table} ORDER BY {key}"))]


def _snapshot(url: str) -> dict[str, list[tuple]]:
    """Every row of every table of the database at ``url``, as stored (the driver's values)."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return {table: _rows(connection, table) for table in Base.metadata.tables}
    finally:
        engine.dispose()


def _utc(value):
    return value.replace(tzinfo=timezone.utc) if isinstance(value, datetime) and value.tzinfo is None else value


def _design(url: str) -> dict[str, list[tuple]]:
    """The design tables' rows as the models read them (JSON parsed, times in UTC): comparable across
    SQLite and PostgreSQL."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            found = {}
            for name in DESIGN:
                table = Base.metadata.tables[name]
                rows = connection.execute(select(table).order_by(*table.primary_key.columns))
                found[name] = [tuple(_utc(value) for value in row) for row in rows]
            return found
    finally:
        engine.dispose()


def _file_digest(url: str) -> str | None:
    """SHA-256 of a SQLite database's file (None on PostgreSQL)."""
    if not url.startswith("sqlite:///"):
        return None
    return hashlib.sha256(Path(url.removeprefix("sqlite:///")).read_bytes()).hexdigest()


def _labels(folder: Path, questions: int) -> Path:
    path = folder / "labels.jsonl"
    path.write_text("".join(json.dumps({"system": s, "id": f"q{i:04d}", "quality": q}) + "\n"
                            for s, q in QUALITY.items() for i in range(questions)), encoding="utf-8")
    return path


@pytest.fixture
def built(run, sessions: sessionmaker[Session], database_url: str, tmp_path: Path) -> str:
    """A campaign "rehearse" of 4 systems x 100 questions = 400 items: 6 HITs, up to 2 per worker; one of its
    HITs already rated by one (live) worker, so the live data is not a fresh build only."""
    with sessions() as session:
        make_test_set(session, name="set", questions=100, systems=tuple(QUALITY))
        session.commit()
    result = run("build", "--test-set", "set", "--name", "rehearse", "--seed", "2", "--max-hits-per-worker", "2",
                 "--processes", "1")
    assert result.exit_code == 0, result.output
    with sessions() as session:  # a live worker's first ratings (never copied, never changed)
        hit = session.scalars(select(Hit).order_by(Hit.index)).first()
        worker = Worker(source="pool", external_id="live-1")
        assignment = Assignment(hit=hit, worker=worker, public_id="live-assignment", source="pool", next_position=5)
        session.add_all([worker, assignment])
        session.add_all(Rating(assignment=assignment, slot=slot, score=70) for slot in hit.slots[:5])
        session.commit()
    return database_url


@pytest.mark.slow
def test_simulate_rehearses_on_a_copy_and_leaves_the_live_database_as_it_was(built: str, run, tmp_path: Path):
    live_rows, live_file, live_design = _snapshot(built), _file_digest(built), _design(built)
    out = tmp_path / "rehearsal"
    result = run("simulate", "rehearse", "--truth", f"labels:{_labels(tmp_path, 100)}", "--bad", "random=1",
                 "--bad", "judge=1", "--workers", "4", "--reward", "mturk:2.00", "--out", str(out), "--no-images",
                 "--seed", "4")
    assert result.exit_code == 0, result.output
    report = result.output
    print(report)

    # The live database: row for row (and on SQLite byte for byte) as it was.
    assert _snapshot(built) == live_rows
    assert _file_digest(built) == live_file

    # The copy: the campaign's design rows as in the live database (the campaign running, its HITs on no
    # provider), and ratings through the worker pages: 6 HITs x 100 slots, every slot rated once.
    copy_url = f"sqlite:///{out / 'simulation.sqlite'}"
    copy_rows, copy_design = _snapshot(copy_url), _design(copy_url)
    for table in DESIGN:
        assert copy_design[table] == live_design[table], table
    assert len(copy_rows["rating"]) == 600
    assert len(live_rows["rating"]) == 5 and len(live_rows["worker"]) == 1
    assert all(row[2].startswith("sim-") for row in copy_rows["worker"])  # (source, external_id): no live worker
    assert "600 ratings in 6 of the 6 assignments (6 HITs)" in report
    # Arrivals: random, judge, honest 1-4 take the first 6 HITs; nothing is left for a second HIT.
    assert "found no HIT left" not in report

    # The truth the report states comes from the labels (each system's answers all alike).
    assert "True order (mean true quality of the answers shown): alpha 85.0, beta 60.0, gamma 35.0, delta 10.0" \
        in report
    # Cost: 6 assignments x 2.00 USD + MTurk's 20 % fee = 14.40 USD.
    assert "Cost of the real campaign: 14.40 USD on mturk for 6 assignments" in report

    # The report's numbers are the copy's: ratings per system counted in its database, and the verdicts of the
    # campaign's own analysis.
    engine = create_engine(copy_url)
    with Session(engine) as session:
        counts = dict(session.execute(select(System.name, func.count(Rating.id)).join(Slot, Slot.system_id == System.id)
                                      .join(Rating, Rating.slot_id == Slot.id).group_by(System.name)).all())
        from da_platform.results.campaign_analysis import CampaignAnalysis

        analysis = CampaignAnalysis(session, session.scalar(select(Campaign)))
        verdicts = {w: v.status.value for w, v in analysis.worker_verdicts.items()}
        scored = {s.system: s.n_ratings for s in analysis.group.system_scores}
        hits = session.scalar(select(func.count(Hit.id)))
    engine.dispose()
    assert hits == 6 and sum(counts.values()) == 600
    for system in QUALITY:
        assert re.search(rf"^  {system}\s+{counts[system]}\s+0\s+{scored[system]}$", report, re.MULTILINE), system
    assert verdicts["pool:sim-random-01"] == "excluded"
    for kind in ("random", "judge", "honest"):
        of_kind = [v for w, v in verdicts.items() if w.startswith(f"pool:sim-{kind}-")]
        line = re.search(rf"^  {kind}\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", report, re.MULTILINE)
        assert line is not None, kind
        workers, kept, flagged, excluded, _ = map(int, line.groups())
        assert (kept, flagged, excluded) == tuple(of_kind.count(s) for s in ("kept", "flagged", "excluded"))
        assert workers == {"random": 1, "judge": 1, "honest": 4}[kind]
    # The report leads with the bad workers kept, kind by kind (not only the order recovered), then the honest.
    kept = {kind: [v for w, v in verdicts.items() if w.startswith(f"pool:sim-{kind}-")].count("kept")
            for kind in ("random", "judge", "honest")}
    lead = report.split("the live database was only read.\n", 1)[1].splitlines()
    assert lead[0].startswith(f"{'✗' if kept['random'] + kept['judge'] else '✓'} bad workers kept (scored as if "
                              f"honest): {kept['random'] + kept['judge']} of 2: random {kept['random']} of 1, judge "
                              f"{kept['judge']} of 1"), lead[0]
    assert lead[1] == f"  honest workers kept: {kept['honest']} of 4"
    assert "warning:" not in report  # 2 bad workers of 6 assignments: a third, not more

    # The commands that serve, analyse or export the copy; `serve --rehearsal` serves its dashboard.
    assert f"The copy on the dashboard: da-platform serve --rehearsal {out}" in report
    assert (f"DA_DATABASE_URL=sqlite:///{out / 'simulation.sqlite'} da-platform analyze --campaign rehearse --out "
            f"{out}-analysis") in report
    from da_platform.simulation.rehearsal import REHEARSAL_ADMIN, rehearsal_server_config
    from da_platform.web import create_app
    from tests.admin_client import login

    config, password = rehearsal_server_config(out)
    client = create_app({**config, "ANALYSIS_WAIT_SECONDS": 120}).test_client()  # (a loaded machine: no "computing")
    login(client, name=REHEARSAL_ADMIN, password=password)
    page = client.get("/admin/campaigns/1")
    assert page.status_code == 200 and "rehearse" in page.text
    # Said to be a rehearsal's copy, priced as the report priced it, no rate or finish time from the simulated
    # clock (it showed "done 12:57 UTC", an hour ahead, "5.3 assignments per hour" and "no reward settings").
    html = " ".join(page.text.split())
    assert (f"This is a rehearsal of campaign &#39;rehearse&#39; (da-platform simulate, seed 4, truth labels:"
            f"{tmp_path / 'labels.jsonl'}, priced at mturk:2.00): a scratch copy rated by simulated workers") in html
    progress = html[html.index('id="progress"'):html.index('id="ratings-per-system"')]
    assert '<dd id="observed-rate">none: simulated workers on a simulated clock</dd>' in progress
    assert "assignments per hour" not in progress and "UTC" not in progress
    assert "14.40 USD in all on mturk" in progress and "no reward settings" not in progress

    # The exports of the copy, where the report says.
    exports = out / "exports"
    assert f"Exports of the copy: {exports}/" in report
    names = {p.name for p in exports.iterdir()}
    assert names == {"rehearse-ranking.csv", "rehearse-ranking.json", "rehearse-ranking.tex",
                     "rehearse-ratings-with-texts.csv", "rehearse-wmt.zip", "rehearse-bundle.zip"}
    with zipfile.ZipFile(exports / "rehearse-bundle.zip") as bundle:
        assert json.loads(bundle.read("manifest.json"))["ratings"] == 600


def test_simulate_help_lists_its_options_and_every_kind():
    from da_platform.simulation.text_raters import CROWD_KINDS

    result = CliRunner().invoke(main, ["simulate", "--help"])
    assert result.exit_code == 0
    flat = " ".join(result.output.split())
    for option in ("--truth", "metric:NAME|labels:FILE", "--workers", "--hits-per-worker", "--bad", "KIND=N",
                   "--reward", "--seed", "--out"):
        assert option in flat
    for kind in CROWD_KINDS:
        if kind != "honest":
            assert kind in flat, kind


def test_simulate_refuses_an_unknown_campaign_kind_and_truth(built: str, run, tmp_path: Path):
    live = _snapshot(built)
    cases = {
        ("simulate", "nope"): "no campaign named 'nope'",
        ("simulate", "rehearse", "--bad", "gremlin=2"): "unknown kind of bad worker gremlin",
        ("simulate", "rehearse", "--bad", "random"): "give KIND=N",
        ("simulate", "rehearse", "--truth", "metric:bleurt"): "--truth metric:bleurt: no such metric",
        ("simulate", "rehearse", "--truth", "rouge-l"): "give metric:NAME",
        ("simulate", "rehearse", "--hits-per-worker", "3"): "lets one worker take at most 2 HIT(s)",
        ("simulate", "rehearse", "--reward", "upwork:2"): "give PROVIDER:AMOUNT",
        ("simulate", "rehearse", "--reward", "mturk:0.001"): "'mturk:0.001': the amount: '0.001' has more than two "
                                                             "decimals",
        ("simulate", "rehearse", "--reward", "mturk:two"): "'mturk:two': the amount: 'two' is not an amount",
        ("simulate", "rehearse", "--reward", "mturk:0.00"): "--reward mturk:0.00: reward: MTurk needs at least 0.01",
    }
    for args, message in cases.items():
        result = run(*args)
        assert result.exit_code != 0, args
        assert message in " ".join(result.output.split()), (args, result.output)
        assert "Traceback" not in result.output
        assert "scoring the" not in result.output, (args, result.output)  # refused before any answer was scored
    assert _snapshot(built) == live
    assert not (tmp_path / "instance" / "simulations").exists()  # refused before anything was made


def test_simulate_refuses_an_out_folder_holding_other_files(built: str, run, tmp_path: Path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "thesis.tex").write_text("precious", encoding="utf-8")
    result = run("simulate", "rehearse", "--out", str(folder), "--truth", f"labels:{_labels(tmp_path, 100)}")
    assert result.exit_code == 1
    assert "holds other files (thesis.tex): give --out a new or empty folder" in result.output
    assert (folder / "thesis.tex").read_text(encoding="utf-8") == "precious"


def test_simulate_checks_the_out_folder_before_scoring_the_answers(built: str, run, tmp_path: Path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "thesis.tex").write_text("precious", encoding="utf-8")
    result = run("simulate", "rehearse", "--out", str(folder), "--truth", "metric:rouge-l")
    assert result.exit_code == 1
    assert "holds other files (thesis.tex)" in result.output
    assert "scoring the" not in result.output  # it scored the 400 answers shown first


def _label_lines(questions: int, skip: tuple[str, str] | None = None) -> list[str]:
    return [json.dumps({"system": s, "id": f"q{i:04d}", "quality": q}) for s, q in QUALITY.items()
            for i in range(questions) if (s, f"q{i:04d}") != skip]


def test_simulate_names_file_line_and_field_of_a_bad_labels_file(built: str, run, tmp_path: Path):
    good = _label_lines(100)  # line n of the file: good[n - 1]
    jsonl = tmp_path / "labels.jsonl"
    cases = {  # lines of the file -> what the message must say
        (*good[:2], json.dumps({"system": "alpha", "id": "q0002", "quality": "high"}), *good[3:]):
            f"{jsonl}:3: field 'quality': must be a number, not 'high'",
        (*good[:4], json.dumps({"system": "alpha", "id": "q0004", "quality": 100.5}), *good[5:]):
            f"{jsonl}:5: field 'quality': must lie between 0 and 100, not 100.5",
        (*good[:1], json.dumps({"system": "alpha", "id": "q0001"}), *good[2:]):
            f"{jsonl}:2: field 'quality': missing",
        (*good, json.dumps({"system": "omega", "id": "q0000", "quality": 50})):
            f"{jsonl}:401: field 'system': no system 'omega' in test set 'set'",
        (*good, json.dumps({"system": "alpha", "id": "q9999", "quality": 50})):
            f"{jsonl}:401: field 'id': no question 'q9999' in test set 'set'",
        (*good, good[6]): f"{jsonl}:401: field 'id': a second quality of system 'alpha''s answer to 'q0006' "
                          "(first on line 7)",
        (*good[:9], json.dumps({"system": "alpha", "id": "q0009", "quality": 40, "note": "x"}), *good[10:]):
            f"{jsonl}:10: field 'note': unknown field 'note'",
        tuple(_label_lines(100, skip=("gamma", "q0042"))):
            f"{jsonl}: no quality for 1 of the answers campaign 'rehearse' shows (e.g. system 'gamma', id 'q0042')",
    }
    live = _snapshot(built)
    for lines, message in cases.items():
        jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = run("simulate", "rehearse", "--truth", f"labels:{jsonl}", "--out", str(tmp_path / "out"))
        assert result.exit_code == 1, result.output
        assert message in " ".join(result.output.split()), (message, result.output)
        assert "Traceback" not in result.output

    csv = tmp_path / "labels.csv"
    csv.write_text("system,id,score\nalpha,q0000,80\n", encoding="utf-8")
    tsv = tmp_path / "labels.tsv"
    tsv.write_text("system\tid\tquality\n" + "".join(f"{s}\tq{i:04d}\t{q}\n" for s, q in QUALITY.items()
                                                     for i in range(100)).replace("\t35.0\n", "\t-1\n", 1),
                   encoding="utf-8")
    files = {
        csv: f"{csv}:1: unknown field(s) score: a quality-labels file has the fields system, id, quality",
        tsv: f"{tsv}:202: field 'quality': must lie between 0 and 100, not -1",  # gamma's first answer, q0000
        tmp_path / "labels.txt": f"{tmp_path / 'labels.txt'}: unknown file type '.txt'",
        tmp_path / "absent.jsonl": f"{tmp_path / 'absent.jsonl'}: cannot read the file: No such file",
    }
    (tmp_path / "labels.txt").write_text("alpha q0000 80\n", encoding="utf-8")
    for path, message in files.items():
        result = run("simulate", "rehearse", "--truth", f"labels:{path}", "--out", str(tmp_path / "out"))
        assert result.exit_code == 1, result.output
        assert message in " ".join(result.output.split()), (message, result.output)
        assert "Traceback" not in result.output

    assert _snapshot(built) == live
    assert not (tmp_path / "out").exists()  # refused before the scratch folder was made


@pytest.mark.slow
def test_simulate_with_a_metric_truth_says_the_workers_judge_like_the_metric(run, sessions, database_url: str,
                                                                           tmp_path: Path):
    # "copy" answers every question with its reference (chrF 100); "digits" with characters no reference has
    # (no character n-gram in common: chrF 0); the others as make_test_set wrote them.
    with sessions() as session:
        test_set = make_test_set(session, name="set", questions=100, systems=("copy", "digits", "alpha"))
        for system in test_set.systems:
            for answer in system.answers:
                if system.name == "copy":
                    answer.text = answer.question.references[0].text
                elif system.name == "digits":
                    answer.text = "4711 0815 1234"
        session.commit()
    assert run("build", "--test-set", "set", "--name", "metric", "--seed", "2", "--processes", "1").exit_code == 0
    live = _snapshot(database_url)
    result = run("simulate", "metric", "--truth", "metric:chrf", "--workers", "3", "--out", str(tmp_path / "o"),
                 "--no-images")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert ("Truth: each answer's chrF against the references x 100: the simulated honest workers judge like chrF, "
            "so the overlap signals cannot tell them from overlap bots") in flat
    true_order = re.search(r"True order \(mean true quality of the answers shown\): (.*)", result.output).group(1)
    first, middle, last = true_order.split(", ")
    assert first == "copy 100.0" and last == "digits 0.0" and middle.startswith("alpha ")
    assert 0.0 < float(middle.removeprefix("alpha ")) < 100.0
    assert _snapshot(database_url) == live

    # The same seed gives the same ratings (4 threads of workers arriving at once notwithstanding).
    again = run("simulate", "metric", "--truth", "metric:chrf", "--workers", "3", "--out", str(tmp_path / "p"),
                "--no-images")
    assert again.exit_code == 0, again.output
    assert _ratings(tmp_path / "o") == _ratings(tmp_path / "p")


def _ratings(out: Path) -> list[tuple]:
    """(worker, HIT, slot, score) of every rating of a rehearsal's copy."""
    engine = create_engine(f"sqlite:///{out / 'simulation.sqlite'}")
    with Session(engine) as session:
        rows = session.execute(select(Worker.external_id, Assignment.hit_id, Rating.slot_id, Rating.score)
                               .join(Assignment, Assignment.id == Rating.assignment_id)
                               .join(Worker, Worker.id == Assignment.worker_id)
                               .order_by(Rating.slot_id, Worker.external_id)).all()
    engine.dispose()
    assert rows
    return [tuple(row) for row in rows]


@pytest.mark.slow
def test_simulate_tells_one_story_of_a_system_giving_another_ones_answers(run, sessions, database_url: str,
                                                                         tmp_path: Path):
    """omega gives alpha's answers word for word: build rates them once, as alpha's. The report said "5 systems",
    then clusters "for 4 systems", left omega out of the true order and showed it with 0 ratings."""
    from da_platform.db.models import Answer, SlotType

    with sessions() as session:
        test_set = make_test_set(session, name="set", questions=100, systems=tuple(QUALITY))
        alpha = next(s for s in test_set.systems if s.name == "alpha")
        omega = System(name="omega")
        test_set.systems.append(omega)
        omega.answers.extend(Answer(question=a.question, text=a.text) for a in alpha.answers)
        session.commit()
    assert run("build", "--test-set", "set", "--name", "twins", "--seed", "2", "--processes", "1").exit_code == 0
    out = tmp_path / "o"
    result = run("simulate", "twins", "--truth", f"labels:{_labels(tmp_path, 100)}", "--workers", "4", "--out",
                 str(out), "--no-images")
    assert result.exit_code == 0, result.output
    output = result.output
    assert "of 5 systems." in output
    assert ("omega: its 100 answers are alpha's word for word, rated once as alpha's; each rating counts for both "
            "(merged identical answers)") in output
    assert "True order (mean true quality of the answers shown): alpha 85.0, omega 85.0, beta 60.0" in output
    assert "cluster(s) for 5 systems" in output
    assert "    alpha = omega: the same answers, rated once: the same ratings" in output
    assert "    omega › beta: 25.0 points apart" in output
    engine = create_engine(f"sqlite:///{out / 'simulation.sqlite'}")
    with engine.connect() as connection:  # the copies: alpha's SYSTEM and REPEAT ratings, counted again for omega
        copies = connection.scalar(
            select(func.count(Rating.id)).join(Slot, Slot.id == Rating.slot_id)
            .join(System, System.id == Slot.system_id)
            .where(System.name == "alpha", Slot.slot_type.in_([SlotType.SYSTEM, SlotType.REPEAT])))
    engine.dispose()
    row = re.search(r"^  omega +(\d+) +(\d+) +(\d+)$", output, re.MULTILINE)
    assert row is not None, output
    assert (int(row[1]), int(row[2])) == (0, copies) and copies > 0


def test_simulate_refuses_bad_workers_who_leave_no_room_for_honest_ones(built: str, run, tmp_path: Path):
    """6 HITs with one assignment each; six (or five) bad workers arriving first would take them all (all but one):
    refused before any work, where it ran the whole rehearsal to report bad workers only."""
    for bad in (["--bad", "random=4", "--bad", "constant=2"], ["--bad", "random=5"]):
        result = run("simulate", "rehearse", "--truth", f"labels:{_labels(tmp_path, 100)}", *bad, "--out",
                     str(tmp_path / "o"))
        assert result.exit_code == 1, result.output
        taken = 6 if "constant=2" in bad else 5
        assert (f"Error: the {taken} bad worker(s) asked for take {taken} of the 6 assignment(s) "
                f"({100 * taken / 6:.0f} %), one each and first, leaving {6 - taken} to honest workers (2 at least"
                in " ".join(result.output.split()))
        assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_simulate_warns_when_the_bad_workers_take_more_than_a_third(built: str, run, tmp_path: Path):
    """6 HITs with one assignment each; four bad workers arriving first take four. The campaign is priced at its
    stored Prolific settings."""
    from decimal import Decimal

    from da_platform.providers.prolific.settings import ProlificSettings

    engine = create_engine(built)
    with Session(engine) as session:
        campaign = session.scalar(select(Campaign))
        campaign.settings = {**(campaign.settings or {}),
                             "prolific": ProlificSettings(reward=Decimal("2.50"), currency="GBP").to_dict()}
        session.commit()
    engine.dispose()
    result = run("simulate", "rehearse", "--truth", f"labels:{_labels(tmp_path, 100)}", "--bad", "random=2",
                 "--bad", "constant=2", "--workers", "2", "--out", str(tmp_path / "o"), "--no-images")
    assert result.exit_code == 0, result.output
    assert ("warning: the 4 bad worker(s) asked for take 4 of the 6 assignment(s) (67 %), more than 33 %: the "
            "honest crowd is smaller than a real campaign's would be") in result.output
    assert re.search(r"^. bad workers kept \(scored as if honest\): \d of 4: random \d of 2, constant \d of 2",
                     result.output, re.MULTILINE), result.output
    # 6 x 2.50 = 15.00 GBP of rewards; Prolific's fee 33.33 % of 15.00 = 4.9995 -> 5.00; 20.00 GBP in all.
    assert "Cost of the real campaign: 20.00 GBP on prolific for 6 assignments" in result.output


def _built_in_waves(run, sessions: sessionmaker[Session], database_url: str, tmp_path: Path) -> tuple[dict, Path]:
    """A four-system campaign built in waves (first wave half of the fixed design's 6 HITs, then a third), with
    its quality labels; the live database's rows as they were after the build."""
    quality = {"alpha": 62.0, "beta": 58.0, "gamma": 35.0, "delta": 10.0}
    with sessions() as session:
        make_test_set(session, name="set", questions=105, systems=tuple(quality))
        session.commit()
    built = run("build", "--test-set", "set", "--name", "waves", "--seed", "2", "--design", "waves", "--first-wave",
                "0.5", "--wave-size", "0.34", "--crowd", "pool", "--processes", "1")
    assert built.exit_code == 0, built.output
    live = _snapshot(database_url)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"system": s, "id": f"q{i:04d}", "quality": q}) + "\n"
                              for s, q in quality.items() for i in range(105)), encoding="utf-8")
    return live, labels


@pytest.mark.slow
def test_simulate_rehearses_a_campaign_in_waves_until_it_stops(run, sessions: sessionmaker[Session],
                                                               database_url: str, tmp_path: Path):
    """A campaign in waves (docs/method.md §12): the copy runs wave after wave until it stops; the live campaign
    keeps its first wave only."""
    live, labels = _built_in_waves(run, sessions, database_url, tmp_path)
    result = run("simulate", "waves", "--truth", f"labels:{labels}", "--out", str(tmp_path / "rehearsal"),
                 "--no-images", "--seed", "2")
    assert result.exit_code == 0, result.output
    shown = re.search(r"In waves: (\d+) wave\(s\), (\d+) of the fixed design's 6 HITs .*; stopped: (.+)", result.output)
    assert shown is not None, result.output
    assert int(shown.group(1)) >= 1 and 3 <= int(shown.group(2)) <= 6
    assert "alpha › delta: decided at wave 1" in result.output
    assert _snapshot(database_url) == live  # the live campaign still has its first wave only
    copy = create_engine(f"sqlite:///{tmp_path / 'rehearsal' / 'simulation.sqlite'}")
    try:
        with Session(copy) as session:
            stored = session.scalar(select(Campaign)).settings["waves"]
            hits = session.scalar(select(func.count()).select_from(Hit))
    finally:
        copy.dispose()
    assert stored["stopped"] and len(stored["waves"]) == int(shown.group(1)) and hits == int(shown.group(2))


@pytest.mark.slow
def test_simulate_ends_its_waves_when_a_wave_gives_no_new_look(run, sessions: sessionmaker[Session], database_url: str,
                                                               tmp_path: Path):
    """A wave whose ratings all come from workers quality control leaves out gives no new look, so no next wave can
    be planned from it: the rehearsal ends its waves there and says why, with exit 0 (it raised BuildError before,
    a traceback). With seed 3 the simulated people of the third wave are left out (the report says so)."""
    live, labels = _built_in_waves(run, sessions, database_url, tmp_path)
    result = run("simulate", "waves", "--truth", f"labels:{labels}", "--out", str(tmp_path / "rehearsal"),
                 "--no-images", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    shown = re.search(r"In waves: (\d+) wave\(s\), \d+ of the fixed design's 6 HITs \(\d+%\); ended: wave (\d+) gave "
                      r"no new look: its ratings all come from workers quality control left out, and a live campaign "
                      r"needs its HITs rated by workers it keeps before wave (\d+) can be planned", result.output)
    assert shown is not None, result.output
    assert shown.group(1) == shown.group(2) and int(shown.group(3)) == int(shown.group(2)) + 1
    assert _snapshot(database_url) == live
    copy = create_engine(f"sqlite:///{tmp_path / 'rehearsal' / 'simulation.sqlite'}")
    try:
        with Session(copy) as session:
            stored = session.scalar(select(Campaign)).settings["waves"]
    finally:
        copy.dispose()
    assert "stopped" not in stored and len(stored["waves"]) == int(shown.group(1))
