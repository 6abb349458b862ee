"""``da-platform analyze``: quality control, scores, ranking and report files for a campaign or a file."""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.cli import CliContext, find_campaign, pass_context


@click.command()
@click.option("--campaign", "campaign_name", metavar="NAME", help="Analyse this campaign in the database.")
@click.option("--ratings", "ratings_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Analyse a ratings file instead (long CSV, JSONL or a WMT DA table).")
@click.option("--format", "file_format", type=click.Choice(["csv", "jsonl", "wmt"]),
              help="Format of --ratings (default: guessed from the file).")
@click.option("--qc", "qc_method", type=click.Choice(["wilcoxon", "ttest", "mannwhitney"]), default="wilcoxon",
              show_default=True, help="Quality-control test on the BAD_REF pairs (SPEC §6).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level for QC and ranking.")
@click.option("--z-digits", type=click.IntRange(1, 17), default=None,
              help="Round each worker's mean and sd to this many significant digits before "
                   "standardising (7 reproduces WMT's R scripts).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the report files (default: ./analysis-<campaign or file name>).")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the p-value heatmap and "
              "ranking plot.")
@click.option("--fluency-campaign", metavar="NAME",
              help="A fluency campaign of the same systems: order systems inside each adequacy cluster by "
                   "its z-scores (SPEC §8).")
@pass_context
def analyze(context: CliContext, campaign_name: str | None, ratings_file: Path | None, file_format: str | None,
            qc_method: str, alpha: float, z_digits: int | None, out_dir: Path | None, plots: bool,
            fluency_campaign: str | None) -> None:
    """Rank systems: QC per worker, z-scores, system scores, significance clusters (SPEC §6-§8).

    Prints the ranking table of each campaign / language pair (lines between clusters) and a QC
    summary, and writes JSON, CSV, Markdown, LaTeX, WMT-format files and plots to --out.
    """
    from analysis.errors import InputError
    from analysis.output import text_table, write_report
    from analysis.report import analyze as run_analysis

    if (campaign_name is None) == (ratings_file is None):
        raise click.UsageError("give exactly one of --campaign NAME or --ratings FILE")
    if file_format and ratings_file is None:
        raise click.UsageError("--format applies to --ratings only")
    try:
        if ratings_file is not None:
            from analysis.readers import read_ratings

            table = read_ratings(ratings_file, file_format)
            name = ratings_file.stem
        else:
            table = _load_campaign(context, campaign_name)
            name = campaign_name
    except InputError as error:
        raise click.ClickException(str(error)) from None
    if len(table) == 0:
        raise click.ClickException(f"no ratings in {name}")
    out_dir = out_dir or Path(f"analysis-{name}")
    steps = ["quality control, scores and ranking", "report files"]
    with click.progressbar(steps, label="analysing", item_show_func=lambda s: s or "", file=click.get_text_stream("stderr")) as bar:
        for step in bar:
            if step == steps[0]:
                result = run_analysis(table, qc_method=qc_method, alpha=alpha, z_digits=z_digits)
            else:
                written = write_report(result, out_dir, plots=plots)
    for group, group_result in result.groups.items():
        click.echo(f"\n{group}")
        click.echo(text_table(group_result), nl=False)
        report = group_result.qc
        summary = ", ".join(f"{count} {status.replace('_', ' ')}" for status, count in sorted(report.summary().items()))
        click.echo(f"QC ({result.settings.qc.method}, {result.settings.qc.pass_rule} with alpha {result.settings.qc.alpha}): "
                   f"{len(report.workers)} workers: {summary}")
        _print_verdicts(group_result.verdicts)
    if fluency_campaign is not None:
        _print_fluency_tie_break(context, result, fluency_campaign, qc_method, alpha, z_digits)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"\nwrote {len(written)} files to {out_dir}/ (analysis.json, system-scores.csv, qc-workers.csv, "
               f"ranking-*.md/.tex{', plots' if plots else ''}, wmt/)")


def _print_verdicts(verdicts) -> None:
    """The combined verdicts (analysis.verdict): counts, and each worker flagged for review with its
    evidence (excluded workers are in qc-workers.csv)."""
    from analysis.verdict import VerdictStatus, summary

    if not verdicts:
        return
    counts = summary(verdicts)
    click.echo(f"Verdict (checks and behaviour signals): {counts['kept']} kept, {counts['flagged']} flagged for "
               f"review, {counts['excluded']} excluded; only kept workers are scored")
    for verdict in verdicts.values():
        if verdict.status == VerdictStatus.flagged:
            click.echo(f"  {verdict.worker}: {'; '.join(verdict.reasons)}")


def _print_fluency_tie_break(context: CliContext, adequacy, fluency_name: str, qc_method: str, alpha: float,
                             z_digits: int | None) -> None:
    """Print each adequacy ranking with its clusters' systems ordered by the fluency campaign's z."""
    from analysis.ranking import break_ties_by_fluency
    from analysis.report import analyze as run_analysis

    fluency = run_analysis(_load_campaign(context, fluency_name), qc_method=qc_method, alpha=alpha,
                           z_digits=z_digits)
    fluency_z = {s.system: s.z for scores in fluency.system_scores.values() for s in scores}
    for group, group_result in adequacy.groups.items():
        ordered = break_ties_by_fluency(group_result.ranking, fluency_z)
        click.echo(f"\n{group}, ties inside adequacy clusters broken by fluency ({fluency_name}):")
        click.echo(f"{'rank':>4}  {'system':<20} {'cluster':>7} {'adequacy z':>10} {'fluency z':>9}")
        for rank, (system, cluster, a_z, f_z) in enumerate(zip(ordered.systems, ordered.adequacy_cluster,
                                                              ordered.adequacy_z, ordered.fluency_z), start=1):
            click.echo(f"{rank:>4}  {system:<20} {cluster + 1:>7} {a_z:>10.3f} {f_z:>9.3f}")


def _load_campaign(context: CliContext, name: str):
    from da_platform.ratings import load_ratings

    with context.sessions() as session:
        return load_ratings(session, find_campaign(session, name))


COMMANDS: list[click.Command] = [analyze]
