"""Writing an ``AnalysisResult``: CSV, JSON, Markdown, LaTeX and plain-text tables, WMT-format files.

The ranking table is laid out like the published one: System | raw | z | N | n, best first, with a
line between significance clusters (docs/method.md §8). Raw scores print with 2 decimals, z with 3.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analysis import csv_safety
from analysis.report import AnalysisResult, GroupAnalysis
from analysis.verdict import summary as verdict_summary

TABLE_COLUMNS = ("System", "raw", "z", "N", "n")


def safe_name(group: str) -> str:
    """A group label usable in a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", group) or "_"


def _rows(analysis: GroupAnalysis) -> Iterable[tuple[int, tuple[str, str, str, str, str]]]:
    """(cluster number, formatted row) for each system in ranking order."""
    by_system = analysis.scores.by_system()
    cluster = analysis.ranking.cluster_index()
    for name in analysis.ranking.systems:
        s = by_system[name]
        yield cluster[name], (name, f"{s.raw:.2f}", f"{s.z:.3f}", str(s.n_ratings), str(s.n_items))


def markdown_table(analysis: GroupAnalysis) -> str:
    """Markdown table; a row of dashes marks each boundary between clusters."""
    lines = ["| " + " | ".join(TABLE_COLUMNS) + " |", "|:--|--:|--:|--:|--:|"]
    previous = None
    for cluster, row in _rows(analysis):
        if previous is not None and cluster != previous:
            lines.append("| " + " | ".join(["–––"] * len(TABLE_COLUMNS)) + " |")
        previous = cluster
        lines.append("| " + " | ".join(_markdown_escape(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def _markdown_escape(text: str) -> str:
    return re.sub(r"([\\|*_`<>\[\]])", r"\\\1", text)


def latex_table(analysis: GroupAnalysis, *, caption: str | None = None) -> str:
    """LaTeX tabular (booktabs): \\midrule between clusters."""
    lines = [r"\begin{tabular}{lrrrr}", r"\toprule",
             r"System & raw & $z$ & $N$ & $n$ \\", r"\midrule"]
    previous = None
    for cluster, row in _rows(analysis):
        if previous is not None and cluster != previous:
            lines.append(r"\midrule")
        previous = cluster
        lines.append(" & ".join([_latex_escape(row[0]), *row[1:]]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        lines = [r"\begin{table}", r"\centering", *lines, rf"\caption{{{_latex_escape(caption)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def text_table(analysis: GroupAnalysis) -> str:
    """Plain-text table for the terminal, with a dashed line between clusters."""
    rows = [row for _, row in _rows(analysis)]
    widths = [max([len(TABLE_COLUMNS[i])] + [len(r[i]) for r in rows]) for i in range(len(TABLE_COLUMNS))]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    rule = "-" * len(fmt(TABLE_COLUMNS))
    lines, previous = [fmt(TABLE_COLUMNS), rule.replace("-", "=")], None
    for cluster, row in _rows(analysis):
        if previous is not None and cluster != previous:
            lines.append(rule)
        previous = cluster
        lines.append(fmt(row))
    return "\n".join(lines) + "\n"


def _number(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def result_as_dict(result: AnalysisResult) -> dict:
    """Everything except item scores, as JSON-ready plain data (NaN → null)."""
    from dataclasses import asdict

    def clean(value: Any) -> Any:
        if isinstance(value, float):
            return _number(value)
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(v) for v in value]
        return value

    groups = {}
    for name, a in result.groups.items():
        r = a.ranking
        groups[name] = {
            "qc": {"applicable": a.qc.applicable, "summary": a.qc.summary(),
                   "workers": [w.as_dict() for w in a.qc.workers]},
            "verdicts": {"summary": verdict_summary(a.verdicts),
                         "workers": [{"worker": v.worker, "verdict": v.status.value, "reasons": list(v.reasons),
                                      "meaning": v.meaning.as_dict() if v.meaning else None,
                                      "signals": [asdict(s) for s in v.signals]} for v in a.verdicts.values()]},
            "systems": [asdict(s) for s in a.scores.systems],
            "ranking": {"systems": list(r.systems), "z": list(r.z), "pvalues": r.pvalues.tolist(),
                        "wins": list(r.wins), "plain_wins": list(r.plain_wins), "losses": list(r.losses),
                        "rank_ranges": [list(x) for x in r.rank_ranges],
                        "clusters": [list(c) for c in r.clusters], "alpha": r.alpha},
            "standardisation": [asdict(w) for w in a.scores.workers],
        }
    return clean({"settings": result.settings.to_dict(), "warnings": list(result.warnings),
                  "exclusions": [asdict(e) for e in result.exclusions], "groups": groups})


def write_json(result: AnalysisResult, path: Path) -> Path:
    path.write_text(json.dumps(result_as_dict(result), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


SYSTEM_CSV_COLUMNS = ("group", "rank", "cluster", "system", "raw", "z", "N", "n", "wins", "plain_wins",
                      "rank_low", "rank_high")


def write_system_csv(result: AnalysisResult, path: Path) -> Path:
    """One row per system per group, in ranking order (full precision)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(SYSTEM_CSV_COLUMNS)
        for group, a in result.groups.items():
            by_system, r, clusters = a.scores.by_system(), a.ranking, a.ranking.cluster_index()
            for i, name in enumerate(r.systems):
                s = by_system[name]
                writer.writerow([group, i + 1, clusters[name] + 1, name, repr(s.raw), repr(s.z), s.n_ratings,
                                 s.n_items, r.wins[i], r.plain_wins[i], *r.rank_ranges[i]])
    return path


def write_item_csv(result: AnalysisResult, path: Path) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(("group", "system", "item", "raw", "z", "N"))
        for group, a in result.groups.items():
            items = a.scores.items
            for row in zip(items.system.tolist(), items.item.tolist(), items.raw.tolist(), items.z.tolist(),
                           items.n_ratings.tolist()):
                writer.writerow([group, row[0], row[1], repr(row[2]), repr(row[3]), row[4]])
    return path


def write_qc_csv(result: AnalysisResult, path: Path) -> Path:
    """Every worker's QC report (HIT durations joined by ';'), then the combined verdict and its
    evidence (``analysis.verdict.VERDICT_COLUMNS``)."""
    from analysis.quality import WorkerQC
    from analysis.verdict import VERDICT_COLUMNS

    names = list(WorkerQC.__dataclass_fields__)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(names + list(VERDICT_COLUMNS))
        for a in result.groups.values():
            for w in a.qc.workers:
                values = w.as_dict()
                values["hit_seconds"] = ";".join(repr(s) for s in w.hit_seconds)
                verdict = a.verdicts.get(w.worker)
                extra = verdict.as_row() if verdict else {c: "" for c in VERDICT_COLUMNS}
                writer.writerow(["" if isinstance(v, float) and math.isnan(v) else v
                                 for v in [*values.values(), *(extra[c] for c in VERDICT_COLUMNS)]])
    return path


def _r_number(x: float) -> str:
    """A number as R prints it to a file with 15 significant digits."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return "NA" if math.isnan(x) else f"{x:.15g}"


def write_wmt_files(result: AnalysisResult, folder: Path) -> list[Path]:
    """WMT release files: ad-sys-scores-<g>.csv, ad-seg-scores-<g>.csv, adwilcox-<g>.csv, clusters.csv.

    As in the release: whitespace separated; ``N`` = items and ``N.ALL`` = ratings; ``adwilcox``
    holds p(row > column) above the diagonal in z order and 0.12 where p >= alpha or below it;
    ``clusters.csv``'s WINS are plain wins and its clusters follow docs/method.md §8. Group "xx-yy" gives
    SRC xx, TRG yy and the file stem "xxyy" for adwilcox; other groups use SRC = group, TRG = NA.
    """
    written = []
    cluster_lines = ["SRC TRG WINS TOTAL CLUSTER_START CLUSTER_END END_OF_CLUSTER SYSTEM"]
    for group, a in result.groups.items():
        stem = safe_name(group)
        sys_path = folder / f"ad-sys-scores-{stem}.csv"
        lines = ["RAW.SCR Z.SCR N SYS N.ALL "]
        lines += [f"{_r_number(s.raw)} {_r_number(s.z)} {s.n_items} {safe_name(s.system)} {s.n_ratings} "
                  for s in a.scores.systems]
        sys_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        seg_path = folder / f"ad-seg-scores-{stem}.csv"
        items = a.scores.items
        lines = ["SYS SID RAW.SCR Z.SCR N "]
        lines += [f"{safe_name(s)} {safe_name(i)} {_r_number(r)} {_r_number(z)} {n} " for s, i, r, z, n in
                  zip(items.system.tolist(), items.item.tolist(), items.raw.tolist(), items.z.tolist(),
                      items.n_ratings.tolist())]
        seg_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        r = a.ranking
        wilcox_path = folder / f"adwilcox-{stem.replace('-', '') if group.count('-') == 1 else stem}.csv"
        lines = [" " + " ".join(safe_name(s) for s in r.systems)]
        for i, name in enumerate(r.systems):
            cells = [_r_number(float(r.pvalues[i, j])) if j > i and r.pvalues[i, j] < r.alpha else "0.12"
                     for j in range(len(r.systems))]
            lines.append(" ".join([safe_name(name), *cells]))
        wilcox_path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
        src, trg = group.split("-") if group.count("-") == 1 else (group, "NA")
        position = 0
        for members in r.clusters:
            start, end = position + 1, position + len(members)
            for k, name in enumerate(members):
                i = r.systems.index(name)
                cluster_lines.append(f"{safe_name(src)} {safe_name(trg)} {r.plain_wins[i]} {len(r.systems)} "
                                     f"{start} {end} {k == len(members) - 1} {safe_name(name)}")
            position = end
        written += [sys_path, seg_path, wilcox_path]
    clusters_path = folder / "clusters.csv"
    clusters_path.write_text("\n".join(cluster_lines) + "\n", encoding="utf-8")
    return written + [clusters_path]


PLOT_FORMATS = ("png", "svg", "pdf")


def write_report(result: AnalysisResult, folder: str | Path, *, plots: bool = True,
                 plot_formats: tuple[str, ...] = ("png",)) -> list[Path]:
    """Write every output into ``folder`` (created); returns the paths written. Plots are drawn in
    each of ``plot_formats`` (png, svg, pdf: vector formats for papers)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = [write_json(result, folder / "analysis.json"),
               write_system_csv(result, folder / "system-scores.csv"),
               write_item_csv(result, folder / "item-scores.csv"),
               write_qc_csv(result, folder / "qc-workers.csv")]
    for group, a in result.groups.items():
        stem = safe_name(group)
        written.append(folder / f"ranking-{stem}.md")
        written[-1].write_text(markdown_table(a), encoding="utf-8")
        written.append(folder / f"ranking-{stem}.tex")
        written[-1].write_text(latex_table(a), encoding="utf-8")
    wmt = folder / "wmt"
    wmt.mkdir(exist_ok=True)
    written += write_wmt_files(result, wmt)
    if plots:
        from analysis.plots import pvalue_heatmap, ranking_plot

        for group, a in result.groups.items():
            if len(a.ranking.systems) == 0:
                continue
            stem = safe_name(group)
            for suffix in plot_formats:
                if suffix not in PLOT_FORMATS:
                    raise ValueError(f"unknown plot format {suffix!r}; expected one of {', '.join(PLOT_FORMATS)}")
                written.append(pvalue_heatmap(a, folder / f"pvalues-{stem}.{suffix}"))
                written.append(ranking_plot(a, folder / f"ranking-{stem}.{suffix}"))
    return written
