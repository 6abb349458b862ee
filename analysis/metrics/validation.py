"""Validate automatic metrics against human system scores (docs/method.md §9).

``validate_metrics`` correlates every metric's system scores with the human ones (Pearson r,
Spearman ρ, Kendall τ via ``analysis.correlation.correlate``) and runs the Williams test for every
ordered pair of metrics: "A correlates with humans better than B", r12 = r(A, human),
r13 = r(B, human), r23 = r(A, B), n = number of systems. The result renders as the published table
(metric | r | ρ | τ, best r first) in CSV, JSON, LaTeX and Markdown, and as a heatmap of the
Williams p-values.
"""
from __future__ import annotations

import io
import json
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis import csv_safety
from analysis.correlation import CorrelationResult, correlate, williams_test

_NAN_CORRELATION = dict(pearson=math.nan, pearson_p=math.nan, spearman=math.nan, spearman_p=math.nan,
                        kendall=math.nan, kendall_p=math.nan)


@dataclass(frozen=True)
class WilliamsComparison:
    """One-sided Williams test that metric ``better`` correlates with humans more than ``worse``."""

    better: str
    worse: str
    r12: float
    r13: float
    r23: float
    n: int
    statistic: float
    pvalue: float


@dataclass(frozen=True)
class ValidationResult:
    """Metrics against human system scores: inputs, correlations (best r first) and Williams tests.

    A metric that is constant over the systems has no correlation (NaN), nor do its Williams tests;
    with three systems or fewer no Williams test is defined (NaN).
    """

    systems: tuple[str, ...]
    human: tuple[float, ...]
    metric_scores: Mapping[str, tuple[float, ...]]
    labels: Mapping[str, str]
    correlations: Mapping[str, CorrelationResult]
    williams: tuple[WilliamsComparison, ...]
    signatures: Mapping[str, str] = field(default_factory=dict)

    @property
    def constant_metrics(self) -> tuple[str, ...]:
        """Metrics that give every system the same score (no correlation is defined for them)."""
        return tuple(m for m in self.metric_scores if len(set(self.metric_scores[m])) < 2)

    @property
    def metrics(self) -> tuple[str, ...]:
        """Metric names in table order: by Pearson r, best first; undefined correlations last."""
        return tuple(sorted(self.correlations, key=lambda m: (math.isnan(self.correlations[m].pearson),
                                                              -_or_zero(self.correlations[m].pearson))))

    def williams_pvalue(self, better: str, worse: str) -> float:
        """p-value of the Williams test that ``better`` beats ``worse`` (NaN on the diagonal)."""
        for comparison in self.williams:
            if comparison.better == better and comparison.worse == worse:
                return comparison.pvalue
        return math.nan

    def rows(self) -> list[dict[str, object]]:
        """One row per metric in table order, with every statistic."""
        rows = []
        for metric in self.metrics:
            c = self.correlations[metric]
            rows.append({"metric": metric, "label": self.labels.get(metric, metric), "n": c.n,
                         "r": c.pearson, "r_p": c.pearson_p, "rho": c.spearman, "rho_p": c.spearman_p,
                         "tau": c.kendall, "tau_p": c.kendall_p, "signature": self.signatures.get(metric, "")})
        return rows

    def to_markdown(self, digits: int = 3) -> str:
        """The published layout: metric | r | ρ | τ."""
        lines = ["| Metric | r | ρ | τ |", "|---|---:|---:|---:|"]
        for row in self.rows():
            lines.append(f"| {row['label']} | " + " | ".join(_fmt(row[k], digits) for k in ("r", "rho", "tau"))
                         + " |")
        signed = [f"- `{row['metric']}: {row['signature']}`" for row in self.rows() if row["signature"]]
        if signed:
            lines += ["", "Signatures:", ""] + signed
        return "\n".join(lines) + "\n"

    def to_latex(self, digits: int = 3) -> str:
        """A booktabs table in the published layout."""
        lines = [r"\begin{tabular}{lrrr}", r"\toprule", r"Metric & $r$ & $\rho$ & $\tau$ \\", r"\midrule"]
        for row in self.rows():
            cells = [_latex_escape(str(row["label"]))] + [_fmt(row[k], digits, "--") for k in ("r", "rho", "tau")]
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        """Every statistic at full precision, one row per metric."""
        buffer = io.StringIO()
        fields = ["metric", "label", "n", "r", "r_p", "rho", "rho_p", "tau", "tau_p", "signature"]
        writer = csv_safety.writer(buffer)
        writer.writerow(fields)
        writer.writerows([r[k] for k in fields] for r in self.rows())
        return buffer.getvalue()

    def to_json(self) -> str:
        """Inputs, correlations and every Williams test (NaN written as null)."""
        document = {
            "systems": list(self.systems),
            "human": list(self.human),
            "metric_scores": {m: list(v) for m, v in self.metric_scores.items()},
            "correlations": self.rows(),
            "williams": [vars(w) for w in self.williams],
        }
        return json.dumps(_nan_to_none(document), indent=2, ensure_ascii=False) + "\n"


def validate_metrics(human: Mapping[str, float], metric_scores: Mapping[str, Mapping[str, float]],
                     labels: Mapping[str, str] | None = None,
                     signatures: Mapping[str, str] | None = None) -> ValidationResult:
    """Correlate each metric's system scores with the human system scores and compare metrics.

    ``human`` maps system → human score (z); ``metric_scores`` maps metric → system → score. The
    systems are those with a human score; every metric must score each of them (others are ignored).
    """
    systems = tuple(human)
    if len(systems) < 3:
        raise ValueError(f"need human scores for at least 3 systems, got {len(systems)}")
    human_values = tuple(float(human[s]) for s in systems)
    aligned: dict[str, tuple[float, ...]] = {}
    for metric, scores in metric_scores.items():
        missing = [s for s in systems if s not in scores]
        if missing:
            raise ValueError(f"metric {metric!r} has no score for system(s) {', '.join(missing)}")
        aligned[metric] = tuple(float(scores[s]) for s in systems)
    correlations = {metric: _correlate(values, human_values) for metric, values in aligned.items()}
    williams = []
    for a in aligned:
        for b in aligned:
            if a != b:
                r23 = _correlate(aligned[a], aligned[b]).pearson
                williams.append(_williams(a, b, correlations[a].pearson, correlations[b].pearson, r23,
                                          len(systems)))
    return ValidationResult(systems=systems, human=human_values, metric_scores=aligned,
                            labels=dict(labels or {}), correlations=correlations, williams=tuple(williams),
                            signatures=dict(signatures or {}))


def plot_williams_heatmap(result: ValidationResult, path: str | Path) -> Path:
    """Heatmap of Williams p-values: row metric beats column metric; p < 0.05 is annotated bold."""
    import numpy as np

    from analysis.figures import pyplot, save_figure

    metrics = result.metrics
    from analysis.mathtext import plain_text

    labels = [plain_text(result.labels.get(m, m)) for m in metrics]
    k = len(metrics)
    values = np.array([[result.williams_pvalue(a, b) for b in metrics] for a in metrics], dtype=float)
    size = 1.2 + 0.75 * k
    fig, ax = pyplot().subplots(figsize=(size + 1.5, size))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis_r", vmin=0.0, vmax=0.1)
    for i in range(k):
        for j in range(k):
            if not math.isnan(values[i, j]):
                significant = values[i, j] < 0.05  # light cells: dark bold text
                ax.text(j, i, f"{values[i, j]:.3f}", ha="center", va="center", fontsize=7,
                        color="black" if significant else "white", fontweight="bold" if significant else "normal")
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("worse metric (B)")
    ax.set_ylabel("better metric (A)")
    ax.set_title(f"Williams test p-values, {len(result.systems)} systems")
    fig.colorbar(image, ax=ax, label="p (A correlates better than B)", extend="max")
    return save_figure(fig, Path(path), dpi=150)


def write_validation(result: ValidationResult, out_dir: str | Path, stem: str = "metric-validation") -> list[Path]:
    """Write the table as CSV, JSON, LaTeX and Markdown plus the Williams heatmap (PNG); return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix, text in ((".csv", result.to_csv()), (".json", result.to_json()), (".tex", result.to_latex()),
                         (".md", result.to_markdown())):
        path = out / f"{stem}{suffix}"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    written.append(plot_williams_heatmap(result, out / f"{stem}-williams.png"))
    return written


def _correlate(x: tuple[float, ...], y: tuple[float, ...]) -> CorrelationResult:
    if len(set(x)) < 2 or len(set(y)) < 2:  # a constant list has no correlation
        return CorrelationResult(n=len(x), **_NAN_CORRELATION)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return correlate(x, y)


def _williams(a: str, b: str, r12: float, r13: float, r23: float, n: int) -> WilliamsComparison:
    statistic = pvalue = math.nan
    if n > 3 and not any(math.isnan(r) for r in (r12, r13, r23)):
        try:
            test = williams_test(_clip(r12), _clip(r13), _clip(r23), n)
            statistic, pvalue = test.statistic, test.pvalue
        except ValueError:  # identical metrics (r23 = 1) and other degenerate correlation matrices
            pass
    return WilliamsComparison(a, b, r12, r13, r23, n, statistic, pvalue)


def _clip(r: float) -> float:
    return min(1.0, max(-1.0, r))


def _or_zero(value: float) -> float:
    return 0.0 if math.isnan(value) else value


def _fmt(value: object, digits: int, missing: str = "–") -> str:
    if isinstance(value, float) and math.isnan(value):
        return missing
    return f"{value:.{digits}f}"


def _latex_escape(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                          ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        text = text.replace(char, escaped)
    return text


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value
