"""The demo runs a whole (small) simulated campaign through the real HTTP worker flow."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, func, select

from da_platform.cli import main
from da_platform.db.models import Assignment, Hit, Rating, Slot, Worker
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
    engine.dispose()
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
def test_demo_says_plainly_when_no_honest_worker_got_a_hit(tmp_path: Path) -> None:
    """40 questions make 5 HITs; six bad workers arriving first take them all, so nothing can be ranked."""
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "demo"), "--questions", "40", "--no-images"])
    assert result.exit_code == 1
    assert "✓ quality control caught 5 of 5 bad workers" in result.output
    assert "✗ the known order was NOT recovered: 8 of 8 systems could not be ranked" in result.output
    assert "recovered exactly" not in result.output


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
