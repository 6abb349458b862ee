"""Every benchmark still starts. mypy checks the benchmarks' calls (``pyproject.toml``); this runs what only
running shows: every module of ``benchmarks/`` imported and its ``--help`` printed through its
``if __name__ == "__main__"`` path, as ``python benchmarks/<name>.py --help`` runs it, and the adaptive benchmark's
smallest real case. The benchmarks are run here, never timed (their numbers: docs/benchmarks.md)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py"))
# Modules of benchmarks/ without a command line of their own: the benchmark that runs them.
LIBRARIES = {"careful_kinds": "one_hit", "crowd_rates": "adversarial_crowd"}

# One interpreter for all (the benchmarks share their heavy imports): each script run as __main__ with --help.
HELP_RUNNER = """
import contextlib, io, json, runpy, sys
found = {}
for name in sys.argv[1:]:
    path = f"benchmarks/{name}.py"
    sys.argv = [path, "--help"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            runpy.run_path(path, run_name="__main__" if name not in LIBRARIES else name)
            code = None
        except SystemExit as stop:
            code = stop.code
    found[name] = {"code": code, "printed": printed.getvalue()}
print(json.dumps(found))
"""


def run_python(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` from the repository root, with this checkout first on the path (as the benchmarks'
    commands in docs/benchmarks.md run them)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_folder_holds_the_benchmarks_the_docs_list() -> None:
    """The list is read from the folder: a benchmark added later is run by the test below without a change here."""
    assert len(BENCHMARKS) >= 20
    assert {"adaptive", "serve_load", "peers"} <= set(BENCHMARKS)
    assert set(LIBRARIES) <= set(BENCHMARKS) and set(LIBRARIES.values()) <= set(BENCHMARKS)


def test_every_benchmark_imports_and_prints_its_help() -> None:
    """One test for all (one interpreter: a few seconds of CPU, not one per benchmark); what is wrong is listed by
    benchmark. A module without a command line is imported whole: nothing printed, no exit."""
    runner = f"LIBRARIES = {sorted(LIBRARIES)!r}\n{HELP_RUNNER}"
    done = run_python(["-c", runner, *BENCHMARKS], timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert sorted(found) == BENCHMARKS
    wrong = {name: shown for name, shown in found.items() if name not in LIBRARIES
             and (shown["code"] != 0 or f"usage: {name}.py" not in shown["printed"])}
    assert wrong == {}, "benchmarks whose --help failed: " + ", ".join(sorted(wrong))
    assert {name: found[name] for name in LIBRARIES} == {name: {"code": None, "printed": ""} for name in LIBRARIES}


def test_the_adaptive_benchmark_runs_its_smallest_case(tmp_path: Path) -> None:
    """One campaign of the sample cell, one design, the default crowd (the people fitted to real crowd workers),
    its results written. The fixed design of the sample (8 systems × 300 questions, 70 ordinary slots in a HIT of
    100) is ceil(2,400 / 70) = 35 HITs: 3,500 ratings; the waves never spend more (a budget of 100 %)."""
    out = tmp_path / "adaptive.json"
    done = run_python(["benchmarks/adaptive.py", "--campaigns", "1", "--cells", "sample", "--designs", "matched",
                       "--processes", "1", "--out", str(out)], timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "## sample (crowd model: people; 1 campaigns;" in done.stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["crowd model"] == "people" and report["qc"]["method"] == "none"
    sample = report["cells"]["sample"]
    assert sample["campaigns"] == 1 and sample["fixed"]["ratings"] == 3500
    assert 0 < sample["matched"]["ratings spent / fixed (median)"] <= 1
