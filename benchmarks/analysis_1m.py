"""Benchmark: full analysis of 1,000,000 ratings (2,000 workers, 30 systems) vs parsing with csv.

Usage (from the repository root):  python benchmarks/analysis_1m.py [--keep FILE]

Generates a simulated campaign (2,000 workers x 5 HITs x 100 slots, 30 systems x 2,000 questions,
10 % random clickers) as the platform's long CSV, then times
  1. parsing it with Python's csv module (list(csv.reader(f))),
  2. the full analysis: read_long_csv + QC + z-scores + system scores + pairwise ranking,
and reports wall time, the ratio, and peak memory (tracemalloc) of the analysis.
Targets: analysis <= 10 s and <= 3x the csv parse.
"""
from __future__ import annotations

import argparse
import csv
import gc
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.readers import read_long_csv, write_long_csv  # noqa: E402
from analysis.report import analyze  # noqa: E402
from da_platform.simulation.profiles import honest_and_bad_crowd, simulate_campaign, systems_evenly_spaced  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the ratings file here and keep it")
    parser.add_argument("--reuse", action="store_true", help="with --keep: reuse the file if it exists")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    path = args.keep or Path(folder.name) / "ratings-1m.csv"
    if not (args.reuse and path.exists()):
        generate(path)
    measure(path)


def generate(path: Path) -> None:
    t = time.perf_counter()
    sim = simulate_campaign(systems_evenly_spaced(30, top=85, step=1.5), honest_and_bad_crowd(1800, 200, seed=1),
                            n_questions=2000, hits_per_worker=5, seed=2)
    write_long_csv(sim.table, path)
    print(f"generated {len(sim.table):,} ratings in {time.perf_counter() - t:.1f} s -> {path} "
          f"({path.stat().st_size / 1e6:.0f} MB)")
    del sim
    gc.collect()


def measure(path: Path) -> None:

    parse_times, analysis_times = [], []
    for _ in range(3):
        t = time.perf_counter()
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        parse_times.append(time.perf_counter() - t)
        del rows
        gc.collect()
        t = time.perf_counter()
        result = analyze(read_long_csv(path))
        analysis_times.append(time.perf_counter() - t)
        del result
        gc.collect()
    tracemalloc.start()
    result = analyze(read_long_csv(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    group = result.groups["sim"]
    parse, full = min(parse_times), min(analysis_times)
    print(f"csv parse (best of 3):      {parse:.2f} s")
    print(f"full analysis (best of 3):  {full:.2f} s   ratio {full / parse:.2f}x   "
          f"(targets <= 10 s, <= 3x)")
    print(f"peak memory of the analysis (tracemalloc): {peak / 2**20:.0f} MiB")
    print(f"workers passed QC: {len(group.qc.passed_workers)} of {len(group.qc.workers)}; "
          f"{len(group.ranking.systems)} systems in {len(group.ranking.clusters)} clusters")


if __name__ == "__main__":
    main()
