"""``validate-metrics``: automatic metrics tested against human system scores (docs/method.md §9)."""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.metric_options import (
    corpora_from_database,
    metric_options,
    metric_settings_from,
    metrics_named,
    score,
    split_names,
)
from da_platform.cli.params import CAMPAIGN, TEST_SET, NamedCampaign, NamedTestSet


@click.command("validate-metrics")
@click.option("--campaign", type=CAMPAIGN, help="Human system z-scores from this campaign in the database.")
@click.option("--human-scores", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Or: a file of human system scores (CSV 'system,z' or WMT ad-sys-scores).")
@click.option("--test-set", "test_set", type=TEST_SET,
              help="Test set whose systems the metrics score (default: the campaign's).")
@click.option("--metric-scores", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Or: metric scores already computed ('metrics --out FILE.csv' or FILE.json; a CSV's "
                   "signatures are read from FILE.signatures.json beside it).")
@click.option("--metric", "metric_names", multiple=True, metavar="NAME",
              help="Metric to validate (repeatable; default: every offline metric).")
@click.option("--systems", help="Comma-separated systems to validate on (default: all with a human score).")
@click.option("--exclude-systems", help="Comma-separated systems to leave out (e.g. HUMAN).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("metric-validation"),
              show_default=True, help="Folder for the table (CSV, JSON, LaTeX, Markdown) and the heatmap.")
@metric_options
@pass_context
def validate_metrics_command(context: CliContext, campaign: NamedCampaign | None, human_scores: Path | None,
                             test_set: NamedTestSet | None, metric_scores: Path | None, metric_names: tuple[str, ...],
                             systems: str | None, exclude_systems: str | None, out: Path, preset: str,
                             alpha: float | None, beta: float | None, gamma: float | None, tokenization: str,
                             bleu_tokenize: str | None, bleu_smooth: str, guess_labels: bool) -> None:
    """Correlate automatic metrics with human system scores and compare them (Williams test).

    Prints Pearson r, Spearman ρ and Kendall τ per metric (best r first), and writes that table with
    a heatmap of Williams-test p-values for every ordered pair of metrics.
    """
    from analysis.metrics.human_scores import read_human_scores
    from analysis.metrics.scoring import read_metric_scores, read_metric_signatures, signatures_path
    from analysis.metrics.validation import validate_metrics, write_validation
    from da_core.errors import InputError

    if (campaign is None) == (human_scores is None):
        raise click.ClickException("give either --campaign NAME or --human-scores FILE")
    if metric_scores is not None and test_set is not None:
        raise click.ClickException("give --test-set or --metric-scores, not both")
    if campaign is not None:
        human, campaign_test_set = _campaign_scores(context, campaign)
        test_set = test_set or NamedTestSet(campaign_test_set)
    else:
        assert human_scores is not None  # exactly one of --campaign and --human-scores was given (checked above)
        try:
            human = read_human_scores(human_scores)
        except InputError as error:
            raise click.ClickException(str(error)) from None
        if test_set is None and metric_scores is None:
            raise click.ClickException("--human-scores needs --test-set NAME or --metric-scores FILE")
    human = _select_systems(human, split_names(systems), split_names(exclude_systems))
    labels: dict[str, str] = {}
    signatures: dict[str, str] = {}
    if metric_scores is not None:
        beside = signatures_path(metric_scores)
        try:
            text = metric_scores.read_text(encoding="utf-8-sig")
            by_metric = read_metric_scores(text, str(metric_scores))
            signatures = read_metric_signatures(beside.read_text(encoding="utf-8-sig") if beside.is_file() else text)
        except (InputError, OSError, UnicodeDecodeError) as error:
            raise click.ClickException(str(error)) from None
        if metric_names:
            unknown = [m for m in metric_names if m not in by_metric]
            if unknown:
                raise click.ClickException(f"{metric_scores} has no column {', '.join(unknown)}")
            by_metric = {m: by_metric[m] for m in metric_names}
        from analysis.metrics import METRICS

        labels = {m: METRICS[m].label for m in by_metric if m in METRICS}
    else:
        assert test_set is not None  # a campaign's own test set, or required with --human-scores (checked above)
        metrics = metrics_named(metric_names, metric_settings_from(preset, alpha, beta, gamma, tokenization,
                                                                   bleu_tokenize, bleu_smooth, guess_labels))
        corpora = corpora_from_database(context, test_set, list(human), guess_labels)
        scores = score(corpora, metrics, guess_labels)
        by_metric, labels, signatures = scores.by_metric(), dict(scores.labels), dict(scores.signatures)
    try:
        result = validate_metrics(human, by_metric, labels, signatures)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{len(result.systems)} systems: {', '.join(result.systems)}")
    for metric in result.constant_metrics:
        click.echo(f"note: {result.labels.get(metric, metric)} gives every system the same score; "
                   "it has no correlation (shown as –)", err=True)
    click.echo(result.to_markdown(), nl=False)
    for path in write_validation(result, out):
        click.echo(f"wrote {path}")
    from da_platform.cli.metrics_items import item_level_table, warn_if_few_systems

    warn_if_few_systems(result)
    if campaign is not None and metric_scores is None:
        item_level_table(context, campaign, corpora, metrics, out)


def _select_systems(human: dict[str, float], systems: list[str] | None,
                    exclude: list[str] | None) -> dict[str, float]:
    """The human scores of the systems chosen by ``--systems`` / ``--exclude-systems``."""
    from da_platform.results.metric_scores import UnknownSystems, select_systems

    try:
        return select_systems(human, systems, exclude)
    except UnknownSystems as error:
        raise click.ClickException(str(error)) from None


def _campaign_scores(context: CliContext, campaign: NamedCampaign) -> tuple[dict[str, float], str]:
    """Human system z-scores of a campaign and its test set's name: the campaign's one analysis
    (``CampaignAnalysis``: review-decision exclusions, its QC settings), as the dashboard shows it."""
    from da_platform.cli.analyses import load_campaign_analysis, print_exclusions

    analysis = load_campaign_analysis(context, campaign)
    name = analysis.campaign_name
    if len(analysis.table) == 0:
        raise click.ClickException(f"campaign {name!r} has no ratings yet")
    with context.sessions() as session:
        test_set = campaign.find(session).test_set.name
    result = analysis.result
    if result is None:
        raise click.ClickException(f"campaign {name!r}: no ratings left after the review decisions")
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    print_exclusions(result)
    return {s.system: s.z for s in result.system_scores.get(name, ())}, test_set
