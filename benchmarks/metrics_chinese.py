"""Time every automatic metric on a DuReader-sized Chinese study: long answers compared character by character.

Run from the repository root:  PYTHONPATH=. python benchmarks/metrics_chinese.py [--questions 99] [--systems 5]
                                [--seed 0] [--scores scores.json]

The data: ``--questions`` Chinese questions whose two references run from 20 to 600 characters (most
around 150, as DuReader's do), written from a Zipf-like vocabulary of 3,000 Han characters with a comma or
full stop every 5–25 characters, so common characters and punctuation repeat many times in one answer.
The ``--systems`` systems are made from the references the way real ones differ from them: a paraphrase
that keeps most characters in order, a span of a longer "document" around the reference, the reference
cut short, its sentences shuffled, and unrelated text. Every metric scores every system (the corpus
score as ``metrics`` computes it); the time is CPU seconds of this process (wall seconds in brackets)
and, for METEOR, the cost per 1,000 answer characters of long (≥ 300 characters) and short (< 100) answers.

``--scores FILE`` also writes every sentence score and every corpus score (``repr``, so equal files mean
equal numbers to the last bit): run it before and after a change to the metrics and compare the files.
"""
from __future__ import annotations

import argparse
import json
import random

from analysis.metrics import DEFAULT_METRICS, QuestionInfo, get_metric
from benchmarks.metrics_100k import _timed

_HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
_WEIGHTS = [1 / (rank + 1) for rank in range(len(_HAN))]


def _sentence(rng: random.Random, length: int) -> str:
    """Han characters of Zipf-like frequencies, a comma or a full stop every 5–25 characters."""
    out: list[str] = []
    while len(out) < length:
        run = rng.randint(5, 25)
        out += rng.choices(_HAN, weights=_WEIGHTS, k=run)
        out.append(rng.choice("，，，。"))
    return "".join(out[:length])


def _paraphrase(rng: random.Random, text: str) -> str:
    """Most characters kept in order, some replaced, some dropped, some inserted."""
    out = []
    for char in text:
        roll = rng.random()
        if roll < 0.75:
            out.append(char)
        elif roll < 0.85:
            out.append(rng.choices(_HAN, weights=_WEIGHTS)[0])
        elif roll < 0.95:
            out.append(char + rng.choices(_HAN, weights=_WEIGHTS)[0])
    return "".join(out) or text[:1]


def generate(questions: int, systems: int, seed: int) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """References per question and the systems' answers, deterministic in ``seed``."""
    rng = random.Random(seed)
    references: list[tuple[str, str]] = []
    answers: dict[str, list[str]] = {f"sys{k}": [] for k in range(systems)}
    for _ in range(questions):
        length = min(600, max(20, int(rng.lognormvariate(5.0, 0.6))))
        first = _sentence(rng, length)
        second = _paraphrase(rng, first)
        references.append((first, second))
        document = _sentence(rng, rng.randint(50, 300)) + first + _sentence(rng, rng.randint(50, 300))
        start = rng.randint(0, max(0, len(document) - length))
        sentences = [s for s in first.split("。") if s]
        rng.shuffle(sentences)
        made = [_paraphrase(rng, first), document[start:start + length], first[:max(1, length // 3)],
                "。".join(sentences) or first, _sentence(rng, length)]
        for k in range(systems):
            answers[f"sys{k}"].append(made[k % len(made)])
    return references, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=99)
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scores", help="write every sentence and corpus score to this JSON file")
    args = parser.parse_args()
    references, answers = generate(args.questions, args.systems, args.seed)
    infos = [QuestionInfo("description")] * len(references)
    lengths = [len(a) for texts in answers.values() for a in texts]
    print(f"{args.questions} questions × {args.systems} systems = {len(lengths)} answers of "
          f"{min(lengths)}–{max(lengths)} characters ({sum(lengths)} in all); CPU seconds (wall seconds)")
    scores: dict[str, dict] = {}
    total_cpu = total_wall = 0.0
    for name in DEFAULT_METRICS:
        metric = get_metric(name)
        corpus, wall, cpu = _timed(lambda metric=metric: {
            system: repr(metric.corpus_score(texts, references, infos).score) for system, texts in answers.items()})
        total_cpu += cpu
        total_wall += wall
        line = f"{name:18} {cpu:7.2f} s ({wall:7.2f})"
        if name == "meteor" or args.scores:
            sentences, cost = _sentence_scores(metric, answers, references, infos)
            scores[name] = {"corpus": corpus, "sentences": sentences}
            if name == "meteor":
                line += "  " + ", ".join(f"{kind} answers {1e6 * seconds / max(chars, 1):.1f} ms/1,000 characters"
                                         for kind, (seconds, chars) in cost.items())
        print(line, flush=True)
    print(f"{'all metrics':18} {total_cpu:7.2f} s ({total_wall:7.2f})")
    if args.scores:
        with open(args.scores, "w", encoding="utf-8") as f:
            json.dump(scores, f, indent=0, sort_keys=True)
        print(f"scores written to {args.scores}")


def _sentence_scores(metric, answers, references, infos):
    """Every sentence score (``repr``), and CPU seconds and characters of short (< 100) and long (≥ 300) answers."""
    cost = {"short": [0.0, 0], "long": [0.0, 0]}
    sentences: dict[str, list[str]] = {}
    for system, texts in answers.items():
        sentences[system] = []
        for hypothesis, refs, info in zip(texts, references, infos):
            score, _, cpu = _timed(lambda h=hypothesis, r=refs, i=info: metric.sentence_score(h, r, i))
            sentences[system].append(repr(score))
            kind = "short" if len(hypothesis) < 100 else "long" if len(hypothesis) >= 300 else None
            if kind is not None:
                cost[kind][0] += cpu
                cost[kind][1] += len(hypothesis)
    return sentences, cost


if __name__ == "__main__":
    main()
