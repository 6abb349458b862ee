"""Plots of one group's ranking (matplotlib with the Agg backend, imported on first use)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from analysis.figures import pyplot, save_figure
from analysis.mathtext import plain_text
from analysis.report import GroupAnalysis


def confidence_intervals(analysis: GroupAnalysis, level: float = 0.95) -> dict[str, tuple[float, float]]:
    """Normal-approximation interval of each system's z (mean of item z ± z_crit · sd / √n)."""
    from scipy import stats

    crit = float(stats.norm.isf((1 - level) / 2))
    intervals = {}
    for s in analysis.scores.systems:
        z = analysis.scores.items.z_of(s.system)
        half = crit * float(np.std(z, ddof=1)) / math.sqrt(len(z)) if len(z) > 1 else math.nan
        intervals[s.system] = (s.z - half, s.z + half)
    return intervals


def pvalue_heatmap(analysis: GroupAnalysis, path: Path) -> Path:
    """Heatmap of p(row > column) on a log scale; cells with p < alpha are outlined numbers."""
    plt = pyplot()
    r = analysis.ranking
    m = len(r.systems)
    with np.errstate(divide="ignore"):
        shown = np.log10(np.clip(np.nan_to_num(r.pvalues, nan=1.0), 1e-16, 1.0))
    fig, ax = plt.subplots(figsize=(1.2 + 0.6 * m, 1.0 + 0.55 * m))
    image = ax.imshow(shown, cmap="viridis", vmin=-16, vmax=0)
    names = [plain_text(s) for s in r.systems]
    ax.set_xticks(range(m), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(m), names, fontsize=8)
    for i in range(m):
        for j in range(m):
            p = r.pvalues[i, j]
            if i != j and p < r.alpha:
                ax.text(j, i, f"{p:.0e}" if p < 0.001 else f"{p:.3f}", ha="center", va="center",
                        fontsize=6, color="white")
    ax.set_title(f"{plain_text(analysis.group)}: p(row better than column)", fontsize=9)
    fig.colorbar(image, ax=ax, label="log10 p")
    return save_figure(fig, path)


def ranking_plot(analysis: GroupAnalysis, path: Path, level: float = 0.95) -> Path:
    """System z-scores, best on top, with confidence intervals and dashed lines between clusters."""
    plt = pyplot()
    r = analysis.ranking
    intervals = confidence_intervals(analysis, level)
    m = len(r.systems)
    fig, ax = plt.subplots(figsize=(6, 1.0 + 0.4 * m))
    y = np.arange(m)[::-1]
    low = np.array([intervals[s][0] for s in r.systems])
    high = np.array([intervals[s][1] for s in r.systems])
    z = np.array(r.z)
    ax.errorbar(z, y, xerr=[z - low, high - z], fmt="o", capsize=3)
    ax.set_yticks(y, [plain_text(s) for s in r.systems], fontsize=8)
    position = 0
    for members in r.clusters[:-1]:
        position += len(members)
        ax.axhline(m - position - 0.5, linestyle="--", color="grey", linewidth=0.8)
    ax.set_xlabel(f"z (mean of item z, {int(level * 100)} % confidence interval)")
    ax.set_title(plain_text(analysis.group), fontsize=9)
    return save_figure(fig, path)


def plain_label(text: str) -> str:
    """A label matplotlib shows literally (no mathtext from ``$`` in data)."""
    return text.replace("$", r"\$")


def replication_scatter(systems: tuple[str, ...], run_a: tuple[float, ...], run_b: tuple[float, ...],
                        path: Path, *, label_a: str = "run A", label_b: str = "run B", title: str = "") -> Path:
    """Scatter plot of two runs' system z-scores, each point labelled, with the line y = x."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5.0))
    ax.scatter(run_a, run_b, s=18)
    for name, x, y in zip(systems, run_a, run_b):
        ax.annotate(plain_label(name), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    low, high = min(min(run_a), min(run_b)), max(max(run_a), max(run_b))
    pad = 0.05 * (high - low or 1)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel(f"z, {plain_label(label_a)}")
    ax.set_ylabel(f"z, {plain_label(label_b)}")
    if title:
        ax.set_title(plain_label(title), fontsize=9)
    return save_figure(fig, path)
