"""Time every automatic metric over 100,000 generated answers, against sacrebleu's corpus BLEU alone.

Run from the repository root:  python benchmarks/metrics_100k.py [--answers 100000] [--seed 0]

The data: answers of 3–40 words drawn from a Zipf-like vocabulary (one in five in Chinese, compared
by characters), each with two references that share part of the answer; a third of the questions are
yes/no and a third entity questions, so the adapted metrics pay for their bonuses.
"""
from __future__ import annotations

import argparse
import random
import time

import sacrebleu

from analysis.metrics import DEFAULT_METRICS, QuestionInfo, get_metric

_HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 800)]


def generate(n: int, seed: int):
    """``n`` answers with two references and question annotations each, deterministic in ``seed``."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(5000)]
    cumulative, running = [], 0.0
    for rank in range(len(words)):
        running += 1 / (rank + 1)
        cumulative.append(running)
    han_cumulative = list(range(1, len(_HAN) + 1))
    hypotheses, references, questions = [], [], []
    for k in range(n):
        chinese = k % 5 == 0
        pool, weights = (_HAN, han_cumulative) if chinese else (words, cumulative)
        length = rng.randint(3, 40)
        answer = rng.choices(pool, cum_weights=weights, k=length)
        refs = []
        for _ in range(2):
            swaps = rng.choices(pool, cum_weights=weights, k=length + 10)
            ref = [t if rng.random() < 0.6 else swaps[i] for i, t in enumerate(answer)]
            refs.append(ref + swaps[length:length + rng.randint(0, 10)])
        kind = k % 3
        if kind == 0:
            label = rng.choice(["yes", "no"])
            opener = ("是的" if label == "yes" else "不是") if chinese else label
            answer = [opener, *answer]
            refs = [[opener, *r] for r in refs]
            info = QuestionInfo("yes_no", label, answer_label=label)
        elif kind == 1:
            info = QuestionInfo("entity", None, tuple(_join(refs[0][i:i + 2], chinese) for i in (0, 3)))
        else:
            info = QuestionInfo("description")
        hypotheses.append(_join(answer, chinese))
        references.append(tuple(_join(r, chinese) for r in refs))
        questions.append(info)
    return hypotheses, references, questions


def _join(tokens, chinese: bool) -> str:
    return "".join(tokens) if chinese else " ".join(tokens)


def _timed(function):
    """(result, wall seconds, CPU seconds of this process): CPU time is steadier on a shared machine."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    hypotheses, references, questions = generate(args.answers, args.seed)
    streams = [list(column) for column in zip(*references)]

    baseline, wall, sacre = _timed(lambda: sacrebleu.corpus_bleu(hypotheses, streams))
    print(f"{args.answers} answers, 2 references each; CPU seconds (wall seconds)")
    print(f"{'sacrebleu corpus_bleu (defaults, 13a)':38} {sacre:7.2f} s ({wall:7.2f})  "
          f"x 1.00  BLEU {baseline.score:.2f}")
    total_cpu = total_wall = 0.0
    for name in DEFAULT_METRICS:
        metric = get_metric(name)
        score, wall, cpu = _timed(lambda metric=metric: metric.corpus_score(hypotheses, references, questions).score)
        total_cpu += cpu
        total_wall += wall
        print(f"{name:38} {cpu:7.2f} s ({wall:7.2f})  x{cpu / sacre:5.2f}  score {score:.4f}")
    print(f"{'all metrics':38} {total_cpu:7.2f} s ({total_wall:7.2f})  x{total_cpu / sacre:5.2f} sacrebleu corpus BLEU")


if __name__ == "__main__":
    main()
