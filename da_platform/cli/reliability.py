"""``da-platform reliability``: self-replication of a campaign (docs/method.md §9)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import click

from analysis import csv_safety
from analysis.qc_policy import QC_METHODS, QC_SCOPES
from analysis.readers import FORMATS
from da_platform.cli.analyses import load_campaign_analysis
from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign


@click.command("reliability")
@click.option("--campaign", "campaigns", type=CAMPAIGN, multiple=True, metavar="NAME",
              help="A run in the database (give two, or one with one --ratings).")
@click.option("--ratings", "ratings_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              metavar="FILE", help="A run as a ratings file (any format 'analyze' reads; give two, or one with "
                                   "one --campaign).")
@click.option("--format", "file_format", type=click.Choice(list(FORMATS)),
              help="Format of the --ratings files (default: guessed from each file).")
@click.option("--group", "groups", multiple=True, metavar="NAME",
              help="Which campaign / language pair of a multi-group file to use (once for both runs, or once "
                   "per run in order).")
@click.option("--qc", "qc_method", type=click.Choice(QC_METHODS), default=None,
              help="Quality-control test (default: each campaign's quality-control policy, or the one a "
                   "campaign's exported ratings carry, else wilcoxon).")
@click.option("--qc-scope", type=click.Choice(QC_SCOPES), default=None,
              help="Pool a worker's check pairs per group (default) or over all groups of a file.")
@click.option("--qc-alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
              help="Significance level of quality control (default 0.05 or the campaign's or file's policy).")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Level of the confidence intervals.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("reliability"),
              show_default=True, help="Folder for reliability.csv / .json and the scatter plot.")
@pass_context
def reliability(context: CliContext, campaigns: tuple[NamedCampaign, ...], ratings_files: tuple[Path, ...],
                file_format: str | None, groups: tuple[str, ...], qc_method: str | None, qc_scope: str | None,
                qc_alpha: float | None, confidence: float, out_dir: Path) -> None:
    """Self-replication: correlate the system z-scores of two runs of the same systems.

    Each run is analysed exactly as 'analyze' does (quality control, z-scores, system scores; a
    campaign with its review decisions). Prints Pearson r, Spearman ρ and Kendall τ over the systems
    both runs rated, with confidence intervals (Fisher z), and writes reliability.csv (system, z in
    each run), reliability.json and reliability.png (scatter plot with the line y = x).
    """
    from analysis.plots import replication_scatter
    from analysis.reliability import replication_intervals, self_replication
    from da_core.errors import InputError
    from da_platform.results.file_analysis import analysis_options

    runs: list[NamedCampaign | Path] = [*campaigns, *ratings_files]
    if len(runs) != 2:
        raise click.UsageError("give exactly two runs: --campaign NAME and/or --ratings FILE, twice in all")
    if len(groups) > 2:
        raise click.UsageError("--group: once for both runs or once per run")
    options = analysis_options(qc_method, qc_alpha, qc_scope, 0.05, None, False, None)
    z_by_run, labels = [], []
    for index, run in enumerate(runs):
        group = groups[index] if len(groups) == 2 else (groups[0] if groups else None)
        try:
            source, result = _analyse(context, run, file_format, options)
        except (InputError, ValueError) as error:
            raise click.ClickException(str(error)) from None
        available = list(result.groups) if result is not None else []
        if group is None:
            if len(available) != 1:
                raise click.ClickException(f"{source} has {len(available)} groups ({', '.join(available)}): "
                                           "choose one with --group")
            group = available[0]
        if group not in available:
            raise click.ClickException(f"{source} has no group {group!r} (it has: {', '.join(available) or 'none'})")
        z_by_run.append({s.system: s.z for s in result.groups[group].scores.systems if not math.isnan(s.z)})
        labels.append(source if group == source or len(available) == 1 else f"{source} [{group}]")
    try:
        replication = self_replication(*z_by_run)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    intervals = replication_intervals(replication, confidence)
    only = [sorted(set(z_by_run[i]) - set(replication.systems)) for i in (0, 1)]
    click.echo(f"{len(replication.systems)} systems in both runs: {labels[0]} and {labels[1]}")
    for i, missing in enumerate(only):
        if missing:
            click.echo(f"only in {labels[i]} (left out): {', '.join(missing)}")
    click.echo(f"{'coefficient':<12} {'value':>7}  {round(confidence * 100)}% interval     p")
    for iv in intervals:
        bounds = "not defined" if math.isnan(iv.low) else f"[{iv.low:.3f}, {iv.high:.3f}]"
        click.echo(f"{iv.name:<12} {iv.estimate:>7.3f}  {bounds:<16} {iv.pvalue:.2g}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "reliability.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(("system", "z_run_a", "z_run_b"))
        writer.writerows((_cell(s), repr(a), repr(b)) for s, a, b in zip(replication.systems, replication.run_a,
                                                                          replication.run_b))
    document = {"runs": labels, "systems": list(replication.systems), "z_run_a": list(replication.run_a),
                "z_run_b": list(replication.run_b), "confidence": confidence,
                "coefficients": [{"name": iv.name, "estimate": iv.estimate, "low": _num(iv.low),
                                  "high": _num(iv.high), "p": iv.pvalue, "method": iv.method} for iv in intervals]}
    (out_dir / "reliability.json").write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
    replication_scatter(replication.systems, replication.run_a, replication.run_b, out_dir / "reliability.png",
                        label_a=labels[0], label_b=labels[1],
                        title=f"r = {intervals[0].estimate:.3f}, rho = {intervals[1].estimate:.3f}, "
                              f"tau = {intervals[2].estimate:.3f}")
    click.echo(f"wrote reliability.csv, reliability.json and reliability.png to {out_dir}/")


def _analyse(context: CliContext, run: NamedCampaign | Path, file_format: str | None, options):
    """One run's name and analysis: a campaign's one analysis, or a file through the same options."""
    if isinstance(run, NamedCampaign):
        analysis = load_campaign_analysis(context, run, options)
        return analysis.campaign_name, analysis.result
    from analysis.readers import read_ratings_file
    from da_platform.results.file_analysis import analyse_file

    ratings = read_ratings_file(run, file_format)
    if len(ratings.table) == 0:
        raise click.ClickException(f"no ratings in {run}")
    return str(run), analyse_file(ratings, options)


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def _cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
