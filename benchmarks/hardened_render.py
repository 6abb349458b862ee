"""Benchmark: a build with the hardened (OCR-resistant) render against the same build with the plain one,
for Chinese answers and for English answers, about 600 answer images each.

The test sets come from the bundled sample's generator (``da_platform.simulation.sample_data.generate``):
its Chinese questions, or its English ones, with their references and the answers of its seven systems.
DuReader's answers run to a few hundred characters, the sample's to about 33 (Chinese) and 110 (English),
and the hardened render's cost grows with every character; so each answer is lengthened to at least
``--chars`` characters by joining the same system's answers to the next questions of the same language.
Each test set is built twice into a fresh SQLite database (``build_campaign`` in this process, one
rendering process): plain and hardened images. Prints, per script and render, the distinct images drawn,
the build's wall and CPU seconds, the rendering's CPU seconds, and hardened / plain. With ``--cli``, the
builds are instead the ``build`` command as a researcher runs it (``da-platform build --crowd pool`` for
plain images, ``--crowd paid``, the default, for hardened ones: the same layout and test), each in its own
process after the test set was imported with ``import test-set`` and ``import answers``: its wall and CPU
seconds (its rendering processes' included).

    PYTHONPATH=. python benchmarks/hardened_render.py [--questions 48] [--chars 200] [--repeat 1] [--cli]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.building.crowds import CrowdChoice
from da_platform.db.engine import make_engine, session_factory, upgrade
from da_platform.db.models import Answer, Question, Reference, System, TestSet
from da_platform.simulation.sample_data.generate import generate
from hit_builder.ocr_resistant import render_style
from hit_builder.storage import LocalImageStorage

SAMPLE_QUESTIONS = 2000  # generated, for enough questions of each language


def test_set(language: str, questions: int, chars: int) -> tuple[list[dict], dict[str, list[str]]]:
    """Questions (id, text, references) and each system's answers, lengthened to ``chars`` characters."""
    data = generate(questions=SAMPLE_QUESTIONS)
    chosen = [k for k, item in enumerate(data.items) if item.language == language]
    if len(chosen) < questions:
        raise SystemExit(f"the sample has {len(chosen)} questions in {language}, fewer than --questions {questions}")
    joiner = "" if language == "zh" else " "
    records = [{"id": data.items[k].id, "question": data.items[k].question,
                "references": list(data.items[k].references)} for k in chosen[:questions]]
    answers = {}
    for system, given in data.answers.items():
        texts = []
        for n, k in enumerate(chosen[:questions]):
            parts, more = [given[k].text], 1
            while sum(map(len, parts)) < chars:
                parts.append(given[chosen[(n + more) % len(chosen)]].text)
                more += 1
            texts.append(joiner.join(parts))
        answers[system] = texts
    return records, answers


def insert_test_set(url: str, records: list[dict], answers: dict[str, list[str]]) -> None:
    engine = make_engine(url)
    with session_factory(engine)() as session:
        test_set = TestSet(name="bench")
        session.add(test_set)
        session.flush()
        ids = list(session.scalars(insert(Question).returning(Question.id, sort_by_parameter_order=True),
                                   [{"test_set_id": test_set.id, "external_id": r["id"], "text": r["question"]}
                                    for r in records]))
        session.execute(insert(Reference), [{"question_id": q, "position": p, "text": text}
                                            for q, r in zip(ids, records) for p, text in enumerate(r["references"])])
        systems = list(session.scalars(insert(System).returning(System.id, sort_by_parameter_order=True),
                                       [{"test_set_id": test_set.id, "name": name} for name in answers]))
        session.execute(insert(Answer), [{"system_id": s, "question_id": q, "text": text}
                                         for s, texts in zip(systems, answers.values()) for q, text in zip(ids, texts)])
        session.commit()
    engine.dispose()


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def build(folder: Path, records: list[dict], answers: dict[str, list[str]], render: str) -> dict[str, float]:
    """One build into a fresh database under ``folder``: images, wall and CPU seconds, rendering CPU seconds."""
    url = f"sqlite:///{folder / f'{render}.sqlite'}"
    upgrade(url)
    insert_test_set(url, records, answers)
    marks: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        marks.setdefault("render_cpu_start", cpu_seconds())
        marks["render_cpu_end"] = cpu_seconds()
        marks["images"] = total

    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            wall, cpu = time.perf_counter(), cpu_seconds()
            spec = BuildSpec(name="bench", test_set="bench", seed=1, crowd=CrowdChoice(render=render_style(render)))
            build_campaign(session, spec,
                           storage=LocalImageStorage(folder / f"images-{render}"), progress=progress, processes=1)
            session.commit()
            return {"images": marks["images"], "wall": time.perf_counter() - wall, "cpu": cpu_seconds() - cpu,
                    "render_cpu": marks["render_cpu_end"] - marks["render_cpu_start"]}
    finally:
        engine.dispose()


ROOT = Path(__file__).resolve().parents[1]


def command_build(folder: Path, records: list[dict], answers: dict[str, list[str]],
                  render: str) -> dict[str, float]:
    """``da-platform build`` of the test set into a fresh instance under ``folder``: wall and CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DA_INSTANCE_PATH": str(folder / "instance"),
           "DA_DATABASE_URL": f"sqlite:///{folder / 'bench.sqlite'}", "DA_IMAGE_FOLDER": str(folder / "images")}
    questions, table = folder / "bench.jsonl", folder / "answers.tsv"
    questions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    table.write_text("system\tid\tanswer\n" + "".join(f"{system}\t{r['id']}\t{text}\n" for system, texts in
                     answers.items() for r, text in zip(records, texts)), encoding="utf-8")
    da = [sys.executable, "-m", "da_platform"]
    for args in (["init"], ["import", "test-set", str(questions)], ["import", "answers", "--test-set", "bench",
                                                                    str(table)]):
        subprocess.run(da + args, env=env, cwd=ROOT, check=True, capture_output=True)
    crowd = "pool" if render == "plain" else "paid"
    before, started = children_cpu_seconds(), time.perf_counter()
    done = subprocess.run(da + ["build", "--test-set", "bench", "--name", "bench", "--seed", "1", "--crowd", crowd],
                          env=env, cwd=ROOT, capture_output=True)
    wall, cpu = time.perf_counter() - started, children_cpu_seconds() - before
    if done.returncode:
        raise SystemExit(f"build --crowd {crowd} failed:\n{done.stdout.decode()}{done.stderr.decode()}")
    images = len(list((folder / "images").rglob("*.png")))
    return {"images": images, "wall": wall, "cpu": cpu, "render_cpu": float("nan")}


def children_cpu_seconds() -> float:
    """CPU seconds of this process's finished children and theirs (a build's rendering processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=48, help="questions per test set [48: about 600 images]")
    parser.add_argument("--chars", type=int, default=200, help="characters an answer is lengthened to [200]")
    parser.add_argument("--repeat", type=int, default=1, help="builds of each kind; the fastest is shown [1]")
    parser.add_argument("--languages", default="zh,en", help="zh, en or both [zh,en]")
    parser.add_argument("--cli", action="store_true", help="time the build command end to end instead")
    args = parser.parse_args()
    run = command_build if args.cli else build
    print(f"{'script':<8} {'render':<9} {'images':>6} {'build wall s':>12} {'build CPU s':>11} {'render CPU s':>12}")
    for language in args.languages.split(","):
        records, answers = test_set(language, args.questions, args.chars)
        found = {}
        for render in ("plain", "hardened"):
            runs = []
            for _attempt in range(args.repeat):
                with tempfile.TemporaryDirectory(prefix="da-bench-hardened-") as scratch:
                    runs.append(run(Path(scratch), records, answers, render))
            best = min(runs, key=lambda run: run["cpu"])
            found[render] = best
            print(f"{language:<8} {render:<9} {best['images']:>6.0f} {best['wall']:>12.1f} {best['cpu']:>11.1f} "
                  f"{best['render_cpu']:>12.1f}", flush=True)
        plain, hardened = found["plain"], found["hardened"]
        render_ratio = hardened["render_cpu"] / plain["render_cpu"]
        print(f"{language:<8} {'ratio':<9} {'':>6} {hardened['wall'] / plain['wall']:>11.2f}x "
              f"{hardened['cpu'] / plain['cpu']:>10.2f}x " + (f"{render_ratio:>11.2f}x" if render_ratio == render_ratio
                                                               else f"{'-':>12}"), flush=True)


if __name__ == "__main__":
    main()
