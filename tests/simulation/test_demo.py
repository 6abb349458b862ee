"""The demo runs a whole (small) simulated campaign through the real HTTP worker flow."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, func, select

from da_platform.cli import main
from da_platform.db.models import Assignment, Campaign, Hit, Rating, Slot, Worker
from da_platform.simulation.demo import DEMO_ADMIN, demo_server_config
from da_platform.web import create_app
from tests.admin_client import login


@pytest.mark.slow
def test_demo_catches_bad_workers_and_recovers_the_order(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(
        main,
        ["demo", "--out", str(out), "--questions", "40", "--random", "1", "--constant", "1", "--bots", "1",
         "--honest", "3", "--hits-per-worker", "2", "--no-images", "--seed", "3"],
    )
    assert result.exit_code == 0, result.output
    output = result.output
    assert "Human ranking, demo" in output
    # Built as `build` builds by default (it ran the published test on plain images), and said so.
    assert ("built for crowd paid (layout classic, render plain (set by hand), weighted test): build's default, except "
            "the images; drawn plain, as no simulated worker here reads them by OCR") in output
    assert "Quality control (weighted, pass when p < 0.05)" in output
    assert "✓ quality control caught 3 of 3 bad workers" in output
    assert "✓ quality control kept" in output
    # The demo's people rate as real crowd workers do (a per-rating SD of about 20 points: worker bias 12.8, HIT
    # bias 10, noise about 12, people.json), so with about 9 ratings each the two worst systems (true means
    # 11.5 and 2.0 on these 40 questions, about one standard error apart) may share a significance cluster:
    # the order must hold across clusters, exactly or up to ties inside them.
    assert "✓ the known order" in output and "recovered" in output
    assert "✗" not in output
    # The ratings went through the web flow into the database, one per slot served.
    engine = create_engine(f"sqlite:///{out / 'demo.sqlite'}")
    with engine.connect() as connection:
        ratings = connection.scalar(select(func.count(Rating.id)))
        workers = set(connection.scalars(select(Worker.external_id)))
        settings = connection.scalar(select(Campaign.settings))
    engine.dispose()
    assert settings["crowd"] == {"preset": "paid", "overrides": {"render": "plain"}}
    assert settings["qc"]["method"] == "weighted"
    assert ratings == 500  # 40 questions x 8 systems = 320 items -> 5 HITs of 100 slots, all rated
    assert {"demo-random-01", "demo-constant-01", "demo-bot-01"} <= workers
    analysis = json.loads((out / "report" / "analysis.json").read_text(encoding="utf-8"))
    assert "demo" in json.dumps(analysis)
    assert any(p.suffix == ".png" for p in (out / "report").rglob("*"))

    # `serve --demo` serves the dashboard on this demo: log in with the printed account, see the campaign.
    config, password = demo_server_config(out)
    client = create_app(config).test_client()
    login(client, name=DEMO_ADMIN, password=password)
    page = client.get("/admin/")
    assert page.status_code == 200 and "demo" in page.text


def test_demo_help_lists_its_options() -> None:
    result = CliRunner().invoke(main, ["demo", "--help"])
    assert result.exit_code == 0
    for option in ("--questions", "--seed", "--criterion", "--random", "--constant", "--bots", "--honest"):
        assert option in result.output


@pytest.mark.slow
def test_a_small_demo_sends_fewer_bad_workers_and_says_so(tmp_path: Path) -> None:
    """40 questions x 8 systems = 320 items make 5 HITs of 70 ordinary slots; the default six bad workers arriving
    first took them all ("kept 0 of 0 honest workers", "order NOT recovered"). A third of 5 HITs is 1 bad worker.
    Seed 2: with the default seed the three honest workers' four HITs are all lapses (HITs without attention, as a
    fifth of real workers' HITs are), and the demo rightly says it kept none of them."""
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--out", str(out), "--questions", "40", "--no-images", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert ("note: 40 questions make 5 HITs: the default 6 bad workers (2 random, 2 constant, 2 bot) would take 5 "
            "of the 5, so the demo sends 1 random, a third of the HITs at most") in " ".join(result.output.split())
    assert "✓ quality control caught 1 of 1 bad workers" in result.output
    assert "✗" not in result.output
    # the per-kind line and the fact count the same kept workers (the line once said "passed": the checks alone)
    line = re.search(r"honest\s+(\d+) workers,\s+(\d+) passed the checks,\s+(\d+) kept", result.output)
    fact = re.search(r"quality control kept (\d+) of (\d+) honest workers", result.output)
    assert line and fact and (line[3], line[1]) == (fact[1], fact[2])
    engine = create_engine(f"sqlite:///{out / 'demo.sqlite'}")
    with engine.connect() as connection:
        hits = connection.scalar(select(func.count(Hit.id)))
        honest = connection.scalars(select(Worker.external_id).join(Assignment, Assignment.worker_id == Worker.id)
                                    .where(Worker.external_id.like("demo-honest-%")).distinct()).all()
    engine.dispose()
    assert hits == 5
    assert len(honest) >= 2  # the honest work is not one worker's


def test_the_default_crowd_is_fitted_before_any_work_and_a_chosen_one_refused() -> None:
    """60 questions: 480 items, 7 HITs; the six default bad workers left one HIT, so one honest worker did all the
    honest work. A third of 7 is 2 bad workers."""
    from da_platform.simulation.demo import DemoError, DemoOptions, check_options, planned_hits

    default = {"random": 2, "constant": 2, "bot": 2, "ocr-overlap": 0, "oracle-agent": 0}
    options = DemoOptions(questions=60, bad_workers=default, fit_crowd=True)
    assert planned_hits(options) == 7
    sent, notes = check_options(options)
    assert {k: n for k, n in sent.items() if n} == {"random": 1, "constant": 1}
    assert notes == ["60 questions make 7 HITs: the default 6 bad workers (2 random, 2 constant, 2 bot) would take 6 "
                     "of the 7, so the demo sends 1 random, 1 constant, a third of the HITs at most (--random, "
                     "--constant, --bots set your own)"]
    assert check_options(DemoOptions(bad_workers=default, fit_crowd=True)) == (default, [])  # 300 questions: 35 HITs
    with pytest.raises(DemoError, match=r"60 questions make 7 HITs, and the 6 bad worker\(s\) asked for take 6 of "
                                        r"the 7 HITs \(86 %\) first \(one each\), leaving 1 to honest workers"):
        check_options(DemoOptions(questions=60, bad_workers=default, fit_crowd=False))
    with pytest.raises(DemoError, match="10 questions make 2 HITs: too few for a bad worker and honest ones; give "
                                        "--questions 18 or more"):
        check_options(DemoOptions(questions=10, bad_workers=default, fit_crowd=True))
    result = CliRunner().invoke(main, ["demo", "--questions", "40", "--random", "5"])
    assert result.exit_code == 1 and "leaving 0 to honest workers" in result.output


def _ratings_given(database: Path) -> list[tuple[str, int, int, int]]:
    """Who rated which position of which HIT, and the score: everything but the random ids and times."""
    engine = create_engine(f"sqlite:///{database}")
    with engine.connect() as connection:
        rows = connection.execute(
            select(Worker.external_id, Hit.index, Slot.position, Rating.score)
            .join(Assignment, Rating.assignment_id == Assignment.id)
            .join(Worker, Assignment.worker_id == Worker.id)
            .join(Slot, Rating.slot_id == Slot.id)
            .join(Hit, Slot.hit_id == Hit.id)
            .order_by(Hit.index, Slot.position)).all()
    engine.dispose()
    return [tuple(row) for row in rows]


@pytest.mark.slow
def test_the_same_seed_gives_the_same_ratings(tmp_path: Path) -> None:
    """Which worker gets which HIT is fixed by the order of arrival, not by thread scheduling."""
    runs = []
    for name in ("first", "second"):
        out = tmp_path / name
        result = CliRunner().invoke(
            main, ["demo", "--out", str(out), "--questions", "40", "--random", "1", "--constant", "0", "--bots", "0",
                   "--honest", "3", "--hits-per-worker", "2", "--no-images", "--seed", "5", "--threads", "3"])
        assert "Human ranking, demo" in result.output, result.output
        runs.append(_ratings_given(out / "demo.sqlite"))
    assert len(runs[0]) == 500
    assert runs[0] == runs[1]
    assert {worker for worker, *_ in runs[0]} == {"demo-random-01", "demo-honest-01", "demo-honest-02",
                                                  "demo-honest-03"}


@pytest.mark.slow
def test_demo_with_an_agent_on_the_hardened_layout_reports_it(tmp_path: Path) -> None:
    """An oracle-agent gets its own caught/kept line and fact; the hardened layout's HITs hold MEANING checks."""
    out = tmp_path / "demo"
    result = CliRunner().invoke(
        main,
        ["demo", "--out", str(out), "--questions", "40", "--random", "1", "--constant", "0", "--bots", "0",
         "--agents", "1", "--honest", "3", "--hits-per-worker", "2", "--layout", "hardened", "--no-images",
         "--seed", "3"],
    )
    output = result.output
    assert "Human ranking, demo" in output, output
    assert "oracle-agent   1 workers" in output
    assert "quality control caught 1 of 1 bad workers" in output
    fact = next(line for line in output.splitlines() if "oracle-agent workers" in line)
    assert fact.strip().startswith(("✓ quality control caught 1 of 1", "✗ quality control caught 0 of 1"))
    assert result.exit_code == (1 if "✗" in output else 0)
    engine = create_engine(f"sqlite:///{out / 'demo.sqlite'}")
    with engine.connect() as connection:
        meaning = connection.scalar(select(func.count(Slot.id)).where(Slot.slot_type == "MEANING"))
        hits = connection.scalar(select(func.count(Hit.id)))
    engine.dispose()
    assert meaning == 10 * hits


def test_demo_refuses_more_questions_than_the_sample_has_before_any_work(tmp_path: Path) -> None:
    """It ran the whole demo on the sample's 300 questions instead, as if 1000 had been asked for."""
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--out", str(out), "--questions", "1000", "--no-images"])
    assert result.exit_code == 1
    assert "Error: --questions 1000: the bundled sample has 300 questions" in result.output
    assert "importing" not in result.output and not out.exists()


def test_demo_help_lists_the_adversarial_options() -> None:
    result = CliRunner().invoke(main, ["demo", "--help"])
    for option in ("--ocr-bots", "--agents", "--layout", "--render"):
        assert option in result.output


def test_the_demo_folder_is_ignored_by_git() -> None:
    """`make demo` runs in the checkout: its default folder (also `serve --demo`'s) must not show up as
    untracked files."""
    from da_platform.cli.demo import demo
    from da_platform.simulation.demo import DemoOptions

    root = Path(__file__).resolve().parents[2]
    default = next(p.default for p in demo.params if p.name == "out")
    assert default == DemoOptions().out == Path("demo-output")
    ignored = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert f"/{default}/" in ignored


def test_progress_written_to_a_log_file_is_a_line_per_tenth(capsys) -> None:
    """Where stderr is no terminal (a log file), click draws no bar: a long render looked like a hang."""
    from da_platform.cli.demo import progress_lines

    update = progress_lines("rendering answer images", 200)
    for _ in range(200):
        update(1)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"  rendering answer images: {n} of 200" for n in range(20, 201, 20)]


@pytest.mark.slow
def test_a_demo_run_without_a_preset_builds_with_its_layout_and_render(tmp_path: Path) -> None:
    """Scripts run the demo without a crowd preset (the adversarial-crowd benchmark): the campaign is built with
    the options' layout and render and the test a default build stores, the weighted one (docs/quality-control.md).
    It raised NameError: the default's chooser was imported for type checking only."""
    from da_platform.simulation.demo import DemoOptions, run_demo

    options = DemoOptions(out=tmp_path / "demo", questions=40, bad_workers={"random": 1}, honest=2,
                          hits_per_worker=2, fetch_images=False, layout="classic", render="plain")
    assert options.preset is None
    outcome = run_demo(options)
    engine = create_engine(outcome.database_url)
    with engine.connect() as connection:
        settings = connection.scalar(select(Campaign.settings))
    engine.dispose()
    assert settings["layout"] == "classic" and not settings["render"].get("ocr_resistant")
    assert settings["qc"]["method"] == "weighted"
