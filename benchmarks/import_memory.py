"""Peak memory (RSS) of `da-platform import test-set` on a large generated SQuAD-shaped file.

Usage (from the repository root):  PYTHONPATH=. python benchmarks/import_memory.py [--mb 100] [--keep DIR]

Generates a SQuAD v2.0-shaped file of about ``--mb`` megabytes (articles of paragraphs of about 700
characters, five questions per paragraph, one to three answers each, one question in ten
unanswerable), and the same questions as the platform's JSONL (each question carrying its paragraph
as context). Each file is imported by the CLI in a fresh process on a fresh SQLite database, and the
process's peak resident set size is read from the kernel (``os.wait4``). A run of the same command on
a one-question file gives the baseline (the interpreter and the imported libraries). Prints a table:
file size, peak RSS, what the import added to the baseline, that as a multiple of the file size, and
the wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import random
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the SQuAD file in MB [100]")
    parser.add_argument("--keep", type=Path, help="generate the files here and keep them [a temporary folder]")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="da-import-memory-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
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
