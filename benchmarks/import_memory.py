"""Peak memory (RSS) of `da-platform import test-set` on a large generated SQuAD-shaped file, and of
`import judge-scores` on a large judge file, good and bad.

Usage (from the repository root):  PYTHONPATH=. python benchmarks/import_memory.py [--mb 100] [--keep DIR]
                                   PYTHONPATH=. python benchmarks/import_memory.py --what judge [--judge-mb 30]

Generates a SQuAD v2.0-shaped file of about ``--mb`` megabytes (articles of paragraphs of about 700
characters, five questions per paragraph, one to three answers each, one question in ten
unanswerable), and the same questions as the platform's JSONL (each question carrying its paragraph
as context). Each file is imported by the CLI in a fresh process on a fresh SQLite database, and the
process's peak resident set size is read from the kernel (``os.wait4``). A run of the same command on
a one-question file gives the baseline (the interpreter and the imported libraries). Prints a table:
file size, peak RSS, what the import added to the baseline, that as a multiple of the file size, and
the wall time.

``--what judge``: a test set of six systems' short answers, sized so that a judge's score of every answer
(JSONL, one line each) is about ``--judge-mb`` megabytes, is imported once (and kept in ``--keep DIR`` for
the next run); then, each on a fresh copy of that database, a one-line file (the baseline), the judge file
(every line good) and the same file whose line 2,401 repeats line 1 (refused: the second score of one
answer). Same table with the CPU seconds, plus what the command said.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "nu", "pe", "ra", "si", "tu", "ve", "zo")
         for b in ("n", "r", "st", "ll", "m", "x", "d", "th", "ck", "")] * 3


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def generate(folder: Path, megabytes: float, seed: int = 0) -> tuple[Path, Path, int]:
    """The SQuAD file and the platform JSONL file of the same questions, and the number of questions."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    squad, jsonl = folder / "squad.json", folder / "platform.jsonl"
    questions = written = 0
    with open(squad, "w", encoding="utf-8") as out, open(jsonl, "w", encoding="utf-8") as lines:
        out.write('{"version": "v2.0", "data": [')
        article = 0
        while written < target:
            paragraphs = []
            for _ in range(20):
                context = " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(8))
                qas = []
                for _ in range(5):
                    questions += 1
                    question = sentence(rng, rng.randint(6, 14))[:-1] + "?"
                    if rng.random() < 0.1:
                        qas.append({"id": f"{questions:024x}", "question": question, "answers": [],
                                    "is_impossible": True})
                        continue
                    answers = []
                    for _ in range(rng.randint(1, 3)):
                        start = rng.randrange(0, len(context) - 40)
                        answers.append({"text": context[start:start + rng.randint(5, 40)].strip() or "x",
                                        "answer_start": start})
                    qas.append({"id": f"{questions:024x}", "question": question, "answers": answers,
                                "is_impossible": False})
                    references = list(dict.fromkeys(a["text"] for a in answers))
                    lines.write(json.dumps({"id": f"{questions:024x}", "question": question, "references": references,
                                            "context": context}, ensure_ascii=False) + "\n")
                paragraphs.append({"context": context, "qas": qas})
            chunk = json.dumps({"title": f"Article {article}", "paragraphs": paragraphs}, ensure_ascii=False)
            out.write(("," if article else "") + chunk)
            written += len(chunk)
            article += 1
        out.write("]}")
    return squad, jsonl, questions


def peak_rss(args: list[str], env: dict[str, str]) -> tuple[int, float, str]:
    """Run ``args``; its peak RSS in bytes (the kernel's ru_maxrss of that process), wall seconds, output."""
    started = time.perf_counter()
    process = subprocess.Popen(args, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    output = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{output}")
    return usage.ru_maxrss * 1024, seconds, output


def imported(folder: Path, name: str, path: Path, fmt: str) -> tuple[int, float]:
    """Peak RSS and seconds of importing ``path`` into a fresh SQLite database (initialised first)."""
    instance = folder / f"instance-{name}"
    env = {**os.environ, "DA_INSTANCE_PATH": str(instance), "DA_DATABASE_URL": f"sqlite:///{instance}/db.sqlite",
           "PYTHONPATH": str(ROOT)}
    instance.mkdir()
    peak_rss([sys.executable, "-m", "da_platform", "init"], env)
    rss, seconds, _ = peak_rss([sys.executable, "-m", "da_platform", "import", "test-set", str(path), "--name", name,
                                "--format", fmt], env)
    return rss, seconds


JUDGE_SYSTEMS = 6
BAD_LINE = 2401  # the judge file's line that repeats line 1


def generate_judged(folder: Path, megabytes: float, seed: int = 0) -> tuple[Path, Path, Path, int]:
    """A test set, one long answers table of ``JUDGE_SYSTEMS`` systems, a judge-scores file of about
    ``megabytes`` MB scoring every answer, and that file with line ``BAD_LINE`` repeating line 1."""
    rng = random.Random(seed)
    line = json.dumps({"system": "system-0", "id": "q0000000", "score": 0.123456789}) + "\n"
    questions = max(BAD_LINE, int(megabytes * 1_000_000 / (len(line) * JUDGE_SYSTEMS)))
    test_set, answers = folder / "judged.jsonl", folder / "answers.tsv"
    good, bad = folder / "judge.jsonl", folder / "judge-bad.jsonl"
    with open(test_set, "w", encoding="utf-8") as out:
        for q in range(questions):
            out.write(json.dumps({"id": f"q{q:07d}", "question": sentence(rng, 6)[:-1] + "?",
                                  "references": [sentence(rng, 5)]}) + "\n")
    with open(answers, "w", encoding="utf-8") as out:
        out.write("system\tid\tanswer\n")
        for k in range(JUDGE_SYSTEMS):
            for q in range(questions):
                out.write(f"system-{k}\tq{q:07d}\t{sentence(rng, 4)}\n")
    with open(good, "w", encoding="utf-8") as out, open(bad, "w", encoding="utf-8") as wrong:
        first = ""
        number = 0
        for q in range(questions):
            for k in range(JUDGE_SYSTEMS):
                number += 1
                text = json.dumps({"system": f"system-{k}", "id": f"q{q:07d}", "score": round(rng.random(), 9)}) + "\n"
                first = first or text
                out.write(text)
                wrong.write(first if number == BAD_LINE else text)
    return test_set, answers, good, questions


def judge_main(folder: Path, megabytes: float) -> None:
    """Import the judged test set once (kept in ``folder`` for the next run with ``--keep``), then each
    judge file into a copy of its database."""
    template = folder / "instance-judged"
    env = {**os.environ, "DA_INSTANCE_PATH": str(template), "DA_DATABASE_URL": f"sqlite:///{template}/db.sqlite",
           "PYTHONPATH": str(ROOT)}
    good, bad = folder / "judge.jsonl", folder / "judge-bad.jsonl"
    if not (template / "done").exists():
        test_set, answers, good, questions = generate_judged(folder, megabytes)
        template.mkdir()
        peak_rss([sys.executable, "-m", "da_platform", "init"], env)
        peak_rss([sys.executable, "-m", "da_platform", "import", "test-set", str(test_set), "--name", "judged"], env)
        peak_rss([sys.executable, "-m", "da_platform", "import", "answers", "--test-set", "judged", str(answers)], env)
        (template / "done").write_text(str(questions), encoding="utf-8")
    questions = int((template / "done").read_text(encoding="utf-8"))
    tiny = folder / "tiny.jsonl"
    tiny.write_text(good.open(encoding="utf-8").readline(), encoding="utf-8")
    print(f"{questions:,} questions x {JUDGE_SYSTEMS} systems = {questions * JUDGE_SYSTEMS:,} answers")
    print(f"{'file':<34} {'MB':>8} {'peak RSS MiB':>13} {'added MiB':>10} {'added / file':>13} {'wall s':>8} "
          f"{'CPU s':>7}  result")
    baseline = 0
    for label, path in (("one score (baseline)", tiny), ("judge scores, every line good", good),
                        (f"judge scores, line {BAD_LINE:,} repeats 1", bad)):
        instance = folder / f"instance-{path.stem}"
        shutil.copytree(template, instance)
        run_env = {**env, "DA_INSTANCE_PATH": str(instance), "DA_DATABASE_URL": f"sqlite:///{instance}/db.sqlite"}
        args = [sys.executable, "-m", "da_platform", "import", "judge-scores", str(path), "--test-set", "judged",
                "--judge", "bench"]
        started = time.perf_counter()
        process = subprocess.Popen(args, env=run_env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert process.stdout is not None
        output = process.stdout.read().decode(errors="replace").strip()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        rss = usage.ru_maxrss * 1024
        baseline = baseline or rss
        size = path.stat().st_size
        result = output.splitlines()[0] if output else f"exit {os.waitstatus_to_exitcode(status)}"
        cpu = usage.ru_utime + usage.ru_stime
        print(f"{label:<34} {size / 1e6:>8.1f} {rss / 2**20:>13,.0f} {(rss - baseline) / 2**20:>10,.0f} "
              f"{(rss - baseline) / size:>12.1f}x {seconds:>8.1f} {cpu:>7.1f}  {result[:150]}", flush=True)
        shutil.rmtree(instance)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the SQuAD file in MB [100]")
    parser.add_argument("--keep", type=Path, help="generate the files here and keep them [a temporary folder]")
    parser.add_argument("--what", choices=("squad", "judge"), default="squad",
                        help="a test set (SQuAD and platform JSONL) or judge scores (good and bad) [squad]")
    parser.add_argument("--judge-mb", type=float, default=30.0, help="size of the judge-scores file in MB [30]")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="da-import-memory-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if args.what == "judge":
            judge_main(folder, args.judge_mb)
            return
        squad, jsonl, questions = generate(folder, args.mb)
        tiny = folder / "tiny.jsonl"
        tiny.write_text('{"id": "q1", "question": "Why?", "references": ["Because."]}\n', encoding="utf-8")
        baseline, _ = imported(folder, "tiny", tiny, "platform")
        print(f"{questions:,} questions generated; baseline (a one-question import): {baseline / 2**20:,.0f} MiB RSS")
        print(f"{'file':<28} {'MB':>8} {'peak RSS MiB':>13} {'added MiB':>10} {'added / file':>13} {'wall s':>8}")
        for label, path, fmt in (("SQuAD v2.0 JSON", squad, "squad"), ("platform JSONL (same)", jsonl, "platform")):
            rss, seconds = imported(folder, fmt, path, fmt)
            size = path.stat().st_size
            added = rss - baseline
            print(f"{label:<28} {size / 1e6:>8.1f} {rss / 2**20:>13,.0f} {added / 2**20:>10,.0f} "
                  f"{added / size:>12.1f}x {seconds:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
