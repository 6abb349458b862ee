"""Can a bot tell a check from an ordinary item by its look? A classifier on what it can compute from the
two texts it is shown, per layout.

    PYTHONPATH=. python benchmarks/check_look.py --seed 2 [--layouts classic,hardened,targeted]
        [--test-sets sample,bad-systems]

For every slot showing an ordinary answer (SYSTEM) or a damaged copy (BAD_REF, MEANING), the features a bot
reading Answer A (the reference) and Answer B can compute: the three overlap measures of
``analysis.evidence`` (character LCS F1, ROUGE-L, token F1), the length ratio |B| / |A| in tokens, the token
edit distance over the longer length, and "B almost equals A" (at most two token edits, not equal). A logistic
regression (fitted by Newton's method, 5-fold cross-validation) tells copies from ordinary items; reported:
its held-out AUC and accuracy at the best threshold, and the AUC of each feature alone. An AUC of 0.5 means
the look says nothing; a targeted layout must not raise it much above the random-original layouts'. (REF
slots, where B equals A, and REPEATs are left out: the REF always was recognisable, and a person scores it
high too; a REPEAT is an exact copy of an ordinary item.)
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from analysis.evidence import overlaps
from benchmarks.crowd_rates import LANGUAGES
from benchmarks.one_hit import build
from da_core.text import tokenize

FEATURES = ("character LCS F1", "ROUGE-L", "token F1", "length ratio", "edit distance", "B almost equals A")


def edit_distance(a: list[str], b: list[str]) -> int:
    """Levenshtein distance between two token lists."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
        previous = current
    return previous[-1]


def features(candidate: str, reference: str) -> list[float]:
    a, b = tokenize(reference.lower()), tokenize(candidate.lower())
    distance = edit_distance(a, b)
    return [*overlaps(candidate, reference), len(b) / max(1, len(a)), distance / max(1, len(a), len(b)),
            float(0 < distance <= 2)]


def auc(score: np.ndarray, label: np.ndarray) -> float:
    """Area under the ROC curve (ties counted half), by the rank-sum formula."""
    from scipy.stats import rankdata

    ranks = rankdata(score)
    positives = label.astype(bool)
    n1, n0 = positives.sum(), (~positives).sum()
    return float((ranks[positives].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def logistic_fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Weights of a logistic regression with intercept (Newton's method, a little ridge for separable data)."""
    design = np.column_stack([np.ones(len(x)), x])
    w = np.zeros(design.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ w))
        gradient = design.T @ (y - p) - ridge * w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + ridge * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def cross_validated(x: np.ndarray, y: np.ndarray, seed: int, folds: int = 5) -> np.ndarray:
    """Held-out predicted log-odds of every row."""
    order = np.random.default_rng(seed).permutation(len(y))
    out = np.empty(len(y))
    mean, sd = x.mean(axis=0), x.std(axis=0) + 1e-12
    z = (x - mean) / sd
    for k in range(folds):
        test = order[k::folds]
        train = np.setdiff1d(order, test)
        w = logistic_fit(z[train], y[train])
        out[test] = np.column_stack([np.ones(len(test)), z[test]]) @ w
    return out


def best_accuracy(score: np.ndarray, y: np.ndarray) -> float:
    """Accuracy at the best threshold (against always answering "ordinary", the base rate)."""
    order = np.argsort(-score)
    positives_above = np.cumsum(y[order])
    negatives_above = np.arange(1, len(y) + 1) - positives_above
    correct = positives_above + ((1 - y).sum() - negatives_above)
    return float(max(correct.max(), (1 - y).sum()) / len(y))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--layouts", default="classic,hardened,targeted")
    parser.add_argument("--test-sets", default="sample,bad-systems")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    print("| test set | language | layout | copies / ordinary | AUC (copies vs ordinary) | accuracy (base rate) | "
          "AUC BAD_REF | AUC MEANING | best single feature (AUC) |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        for test_set in args.test_sets.split(","):
            for language in LANGUAGES:
                for layout in args.layouts.split(","):
                    campaign = build(test_set, language, layout, args.seed, out, 25.0)
                    slots = [s for s in campaign.slots if s.slot_type in ("SYSTEM", "BAD_REF", "MEANING")
                             and s.reference]
                    x = np.array([features(s.candidate, s.reference) for s in slots if s.reference is not None])
                    kind = np.array([s.slot_type for s in slots])
                    y = (kind != "SYSTEM").astype(float)
                    score = cross_validated(x, y, args.seed)
                    parts = {k: auc(score[(kind == k) | (kind == "SYSTEM")], y[(kind == k) | (kind == "SYSTEM")])
                             for k in ("BAD_REF", "MEANING") if (kind == k).any()}
                    single = [(max(auc(x[:, f], y), 1 - auc(x[:, f], y)), name) for f, name in enumerate(FEATURES)]
                    top = max(single)
                    print(f"| {test_set} | {language} | {layout} | {int(y.sum())} / {int((1 - y).sum())} | "
                          f"{auc(score, y):.3f} | {best_accuracy(score, y):.3f} ({1 - y.mean():.3f}) | "
                          f"{parts.get('BAD_REF', float('nan')):.3f} | "
                          + (f"{parts['MEANING']:.3f}" if "MEANING" in parts else "–")
                          + f" | {top[1]} ({top[0]:.3f}) |", flush=True)


if __name__ == "__main__":
    main()
