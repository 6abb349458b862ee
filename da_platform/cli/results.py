"""CLI: ``subsets`` (rankings per subset of questions) and ``agreement`` (inter-rater agreement)."""
from __future__ import annotations

from pathlib import Path

import click

from analysis import csv_safety
from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign


def _analysis(session, named: NamedCampaign):
    from da_platform.results.campaign_analysis import CampaignAnalysis

    campaign = named.find(session)
    analysis = CampaignAnalysis(session, campaign)
    if analysis.load_error:
        raise click.ClickException(f"the ratings of campaign {campaign.name!r} cannot be read: "
                                   f"{analysis.load_error}")
    return campaign, analysis


@click.command("subsets")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--by", type=click.Choice(["answer_type", "yes_no_label", "script"]),
              help="A built-in attribute of the questions (script: character scripts such as Chinese vs. "
                   "space-separated ones, a proxy for the language).")
@click.option("--file", "metadata", type=click.Path(dir_okay=False, path_type=Path),
              help="Or: a JSONL/CSV/TSV file keyed by question id (e.g. the test set file) ...")
@click.option("--column", help="... and the column of it that defines the subsets (e.g. language, source).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Also write the rankings as CSV.")
@pass_context
def subsets(context: CliContext, campaign: NamedCampaign, by: str | None, metadata: Path | None, column: str | None,
            out: Path | None) -> None:
    """Rank the systems within each subset of the questions (QC and z-scores from the whole campaign)."""
    from da_core.errors import InputError
    from da_platform.providers.pool.labels import csv_cell
    from da_platform.results.subsets import file_values, question_values, subset_rankings

    if (by is None) == (metadata is None) or (metadata is None) != (column is None):
        raise click.UsageError("give --by ATTRIBUTE, or --file FILE with --column NAME")
    with context.sessions() as session:
        found, analysis = _analysis(session, campaign)
        if not analysis.ranked:
            raise click.ClickException(f"campaign {found.name!r} has no ranking yet (not enough data yet)")
        try:
            if by:
                values = question_values(session, found, by)
            else:
                assert metadata is not None and column is not None  # --file with --column (checked above)
                values = file_values(metadata, column)
        except InputError as error:
            raise click.ClickException(str(error)) from None
    rankings = subset_rankings(analysis.ranked_group, values, alpha=analysis.ranked_result.settings.alpha)
    rows = []
    for subset in rankings:
        click.echo(f"\n{by or column} = {subset.value}: {subset.questions} questions")
        cluster = subset.ranking.cluster_index()
        previous = None
        for rank, s in enumerate(subset.systems, start=1):
            if previous is not None and cluster[s.system] != previous:
                click.echo("  " + "-" * 50)
            previous = cluster[s.system]
            click.echo(f"  {rank:>3} {s.system:<20} z {s.z:+.3f}  "
                       f"raw {s.raw:6.2f}  N {s.n_ratings:>5}  n {s.n_items:>4}")
            rows.append([csv_cell(subset.value), rank, cluster[s.system] + 1, csv_cell(s.system), repr(s.z),
                         repr(s.raw), s.n_ratings, s.n_items])
        if len(subset.systems) < 2:
            click.echo("  (one system: nothing to compare)")
    if out is not None:
        with open(out, "w", encoding="utf-8", newline="") as f:
            writer = csv_safety.writer(f)
            writer.writerow(["subset", "rank", "cluster", "system", "z", "raw", "N", "n"])
            writer.writerows(rows)
        click.echo(f"\nwrote {out}", err=True)


@click.command("agreement")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--all-workers", is_flag=True, help="Include workers who failed quality control or were excluded.")
@pass_context
def agreement_command(context: CliContext, campaign: NamedCampaign, all_workers: bool) -> None:
    """Inter-rater agreement (Krippendorff's α, interval) on items rated by several workers.

    Only items rated by at least two workers count: build with --passes 2 or more to have them.
    """
    from analysis.agreement import LIBRARY, agreement

    with context.sessions() as session:
        _found, analysis = _analysis(session, campaign)
    workers = None
    if not all_workers:
        group = analysis.group
        workers = frozenset() if group is None else group.qc.passed_workers - frozenset(analysis.excluded)
    result = agreement(analysis.table, workers)
    click.echo(result.describe())
    click.echo(f"computed with {LIBRARY}; workers: {'all' if all_workers else 'passing quality control'}",
               err=True)
