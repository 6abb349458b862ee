"""``da-platform analyze``: quality control, scores, ranking and report files for a campaign or a file."""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from analysis.qc_policy import QC_METHODS, QC_SCOPES
from analysis.readers import FORMATS
from da_platform.cli.analyses import load_campaign_analysis, print_exclusions
from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign

if TYPE_CHECKING:
    from analysis.report import AnalysisResult
    from da_platform.results.campaign_analysis import AnalysisOptions

@click.command()
@click.option("--campaign", "campaign_name", type=CAMPAIGN, metavar="NAME",
              help="Analyse this campaign in the database.")
@click.option("--ratings", "ratings_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Analyse a ratings file instead (see --format).")
@click.option("--format", "file_format", type=click.Choice(list(FORMATS)),
              help="Format of --ratings: csv (the platform's long CSV), jsonl, wmt (WMT DA table, e.g. "
                   "ad-latest.csv), wmt15 (the 2015 11-column layout), wmt-stnd (a WMT good-stnd table of "
                   "z-scores, read with its ad-<lp>-trk-mean-sd.txt files), mturk (an MTurk batch-results "
                   "CSV). Default: guessed from the file.")
@click.option("--mturk-spec", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="JSON",
              help="Column spec for --format mturk (default: the published DA HIT templates; see "
                   "docs/ratings-format.md).")
@click.option("--mean-sd", "mean_sd_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              metavar="FILE", help="For --format wmt-stnd: a release's ad-<lp>-trk-mean-sd.txt (repeatable; "
                                   "default: those beside the table).")
@click.option("--qc", "qc_method", type=click.Choice(QC_METHODS), default=None,
              help="Quality-control test on the BAD_REF pairs (docs/method.md §6); 'none' = the ratings are "
                   "already filtered, everyone counts. Default: the campaign's quality-control policy (or the "
                   "one a campaign's exported ratings carry), else wilcoxon (ttest with --wmt-compat).")
@click.option("--qc-scope", type=click.Choice(QC_SCOPES), default=None,
              help="Pool a worker's check pairs per campaign / language pair (group, default) or over all of "
                   "them (worker, as WMT did; the default with --wmt-compat).")
@click.option("--qc-alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
              help="Significance level of quality control (default: the campaign's or the file's quality-control "
                   "policy, else 0.05; never --alpha).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level of the ranking.")
@click.option("--z-digits", type=click.IntRange(1, 17), default=None,
              help="Round each worker's mean and sd to this many significant digits before "
                   "standardising (7 reproduces WMT's R scripts).")
@click.option("--wmt-compat", is_flag=True,
              help="WMT's numeric path exactly (mean/sd at 7 digits, z printed at 15, R item means printed at "
                   "15, the tests on those) and its QC defaults (paired t-test pooled per worker).")
@click.option("--sd-zero", type=click.Choice(["exclude", "raw-only", "zero"]), default=None,
              help="Raters whose scores never vary: excluded (default), kept in raw scores and N only "
                   "(raw-only, WMT21; the default with --wmt-compat), or given z = 0 (zero, WMT22).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the report files (default: ./analysis-<campaign or file name>).")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the p-value heatmap and "
              "ranking plot.")
@click.option("--plot-format", "plot_formats", multiple=True, type=click.Choice(["png", "svg", "pdf"]),
              help="Format of the plots; repeat for several (svg and pdf are vector graphics for papers) "
                   "[default: png].")
@click.option("--fluency-campaign", type=CAMPAIGN, metavar="NAME",
              help="A fluency campaign of the same systems: order systems inside each adequacy cluster by "
                   "its z-scores (docs/method.md §8).")
@pass_context
def analyze(context: CliContext, campaign_name: NamedCampaign | None, ratings_file: Path | None,
            file_format: str | None, mturk_spec: Path | None, mean_sd_files: tuple[Path, ...], qc_method: str | None,
            qc_scope: str | None, qc_alpha: float | None, alpha: float, z_digits: int | None, wmt_compat: bool,
            sd_zero: str | None, out_dir: Path | None, plots: bool, plot_formats: tuple[str, ...],
            fluency_campaign: NamedCampaign | None) -> None:
    """Rank systems: QC per worker, z-scores, system scores, significance clusters (docs/method.md §6-§8).

    Prints the ranking table of each campaign / language pair (lines between clusters), a QC
    summary and which workers were excluded by a review decision and which by quality control, and
    writes JSON, CSV, Markdown, LaTeX, WMT-format files and plots to --out. A campaign is analysed
    exactly as the dashboard and the exports show it.
    """
    from da_core.errors import InputError
    from da_platform.results.file_analysis import analysis_options

    if (campaign_name is None) == (ratings_file is None):
        raise click.UsageError("give exactly one of --campaign NAME or --ratings FILE")
    if file_format and ratings_file is None:
        raise click.UsageError("--format applies to --ratings only")
    if wmt_compat and z_digits not in (None, 7):
        raise click.UsageError("--wmt-compat uses 7 digits for mean and sd; leave out --z-digits")
    options = analysis_options(qc_method, qc_alpha, qc_scope, alpha, z_digits, wmt_compat, sd_zero)
    try:
        if ratings_file is not None:
            name, options, run = _file_analysis(ratings_file, file_format, mturk_spec, mean_sd_files, qc_method,
                                                options)
        else:
            assert campaign_name is not None  # exactly one of the two was given
            name, run = _campaign_analysis(context, campaign_name, options)
    except (InputError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    out_dir = out_dir or Path(f"analysis-{name}")
    result, written = _analyse_and_write(run, out_dir, plots, plot_formats or ("png",))
    if result is None:
        raise click.ClickException(f"no ratings of {name} are left after the review decisions")
    _print_groups(result)
    print_exclusions(result)
    if fluency_campaign is not None:
        _print_fluency_tie_break(context, result, fluency_campaign, options)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"\nwrote {len(written)} files to {out_dir}/ (analysis.json, system-scores.csv, qc-workers.csv, "
               f"ranking-*.md/.tex{', plots' if plots else ''}, wmt/)")


def _file_analysis(ratings_file: Path, file_format: str | None, mturk_spec: Path | None,
                   mean_sd_files: tuple[Path, ...], qc_method: str | None, options: AnalysisOptions
                   ) -> tuple[str, AnalysisOptions, Callable[[], AnalysisResult | None]]:
    """Read a ratings file: its name, the options (no QC for z-scores only) and the analysis to run;
    ``qc_method`` is the one asked for on the command line (None: not asked)."""
    from analysis.qc_states import QCMethod
    from analysis.readers import read_ratings_file
    from da_platform.results.file_analysis import analyse_file, file_notes

    ratings = read_ratings_file(ratings_file, file_format, mturk_spec=mturk_spec, mean_sd=list(mean_sd_files) or None)
    table = ratings.table
    name = ratings_file.stem
    if len(table) == 0:
        raise click.ClickException(f"no ratings in {name}")
    for note in file_notes(ratings_file, ratings, options):
        click.echo(f"note: {note}", err=True)
    if table.given_z is not None:  # z-scores only (a good-stnd table without its trk-mean-sd files)
        if qc_method is not None and QCMethod(qc_method) is not QCMethod.none:
            raise click.UsageError(f"{ratings_file} holds z-scores only: quality control cannot run "
                                   "(use --qc none, or give the trk-mean-sd files with --mean-sd)")
        options = replace(options, qc=replace(options.qc, method=QCMethod.none))
        click.echo(f"{ratings_file}: z-scores only (no trk-mean-sd file): raw scores unknown, "
                   "no quality control (the table is already filtered)", err=True)
    return name, options, lambda: analyse_file(ratings, options)


def _campaign_analysis(context: CliContext, campaign_name: NamedCampaign, options: AnalysisOptions
                       ) -> tuple[str, Callable[[], AnalysisResult | None]]:
    """A campaign's analysis as the dashboard shows it: its name and the analysis to run."""
    from da_platform.rating.campaign_ratings import abandoned_note, unconfirmed_note

    campaign = load_campaign_analysis(context, campaign_name, options)
    left = sum(campaign.abandoned.values())
    if left:
        click.echo(f"note: {abandoned_note(left)}: their HITs were left unfinished (docs/security.md)", err=True)
    waiting = sum(campaign.unconfirmed.values())
    if waiting:
        click.echo(f"note: {unconfirmed_note(waiting)}: run 'da-platform mturk sync' / 'prolific sync' "
                   "(docs/security.md)", err=True)
    if len(campaign.table) == 0:
        raise click.ClickException(f"no ratings in {campaign.campaign_name}")
    return campaign.campaign_name, lambda: campaign.result


def _analyse_and_write(run: Callable[[], AnalysisResult | None], out_dir: Path, plots: bool,
                       plot_formats: tuple[str, ...]) -> tuple[AnalysisResult | None, list[Path]]:
    """Run the analysis and write the report files, with a progress bar of the two steps on stderr."""
    from analysis.output import write_report

    steps = ["quality control, scores and ranking", "report files"]
    result: AnalysisResult | None = None
    written: list[Path] = []
    with click.progressbar(steps, label="analysing", item_show_func=lambda s: s or "", file=sys.stderr) as bar:
        for step in bar:
            if step == steps[0]:
                result = run()
            elif result is not None:
                written = write_report(result, out_dir, plots=plots, plot_formats=plot_formats)
    return result, written


def _print_groups(result: AnalysisResult) -> None:
    """Each group's ranking table, its quality-control summary and the combined verdicts."""
    from analysis.output import text_table

    for group, group_result in result.groups.items():
        click.echo(f"\n{group}")
        click.echo(text_table(group_result), nl=False)
        report = group_result.qc
        summary = ", ".join(f"{count} {status.replace('_', ' ')}" for status, count in sorted(report.summary().items()))
        qc = result.settings.qc
        click.echo(f"QC ({qc.policy.method}, {qc.pass_rule} with alpha {qc.policy.alpha}, scope {qc.policy.scope}): "
                   f"{len(report.workers)} workers: {summary}")
        _print_verdicts(group_result.verdicts)


def _print_verdicts(verdicts) -> None:
    """The combined verdicts (analysis.verdict): counts, and each worker flagged for review with its
    evidence (excluded workers are in qc-workers.csv)."""
    from analysis.verdict import VerdictStatus, summary

    if not verdicts:
        return
    counts = summary(verdicts)
    click.echo(f"Verdict (checks and behaviour signals): {counts['kept']} kept, {counts['flagged']} flagged for "
               f"review, {counts['excluded']} excluded by quality control; only kept workers are scored")
    for verdict in verdicts.values():
        if verdict.status == VerdictStatus.flagged:
            click.echo(f"  {verdict.worker}: {'; '.join(verdict.reasons)}")


def _print_fluency_tie_break(context: CliContext, adequacy, fluency_campaign: NamedCampaign, options) -> None:
    """Print each adequacy ranking with its clusters' systems ordered by the fluency campaign's z."""
    from analysis.ranking import break_ties_by_fluency

    loaded = load_campaign_analysis(context, fluency_campaign, options)
    fluency, fluency_name = loaded.result, loaded.campaign_name
    if fluency is None:
        raise click.ClickException(f"no ratings in fluency campaign {fluency_name}")
    fluency_z = {s.system: s.z for scores in fluency.system_scores.values() for s in scores}
    for group, group_result in adequacy.groups.items():
        ordered = break_ties_by_fluency(group_result.ranking, fluency_z)
        click.echo(f"\n{group}, ties inside adequacy clusters broken by fluency ({fluency_name}):")
        click.echo(f"{'rank':>4}  {'system':<20} {'cluster':>7} {'adequacy z':>10} {'fluency z':>9}")
        for rank, (system, cluster, a_z, f_z) in enumerate(zip(ordered.systems, ordered.adequacy_cluster,
                                                              ordered.adequacy_z, ordered.fluency_z), start=1):
            click.echo(f"{rank:>4}  {system:<20} {cluster + 1:>7} {a_z:>10.3f} {f_z:>9.3f}")
