"""What the commands that analyse share (analyze, validate-metrics, reliability): a campaign's one analysis
loaded for a command, and the workers it excluded, printed."""
from __future__ import annotations

import click

from da_platform.cli.context import CliContext
from da_platform.cli.params import NamedCampaign


def load_campaign_analysis(context: CliContext, campaign: NamedCampaign, options=None):
    """The campaign's ``CampaignAnalysis``: the same ratings, decisions and path as the dashboard."""
    from da_platform.results.campaign_analysis import CampaignAnalysis

    with context.sessions() as session:
        analysis = CampaignAnalysis(session, campaign.find(session), options)
    if analysis.load_error:
        raise click.ClickException(analysis.load_error)
    return analysis


def print_exclusions(result) -> None:
    """Which workers were left out, by a review decision and by quality control (sd 0 too), per group."""
    from analysis.report import EXCLUDED_BY_DECISION, EXCLUDED_BY_QC, EXCLUDED_BY_SD

    for by, label in ((EXCLUDED_BY_DECISION, "excluded by a review decision"),
                      (EXCLUDED_BY_QC, "excluded by quality control"),
                      (EXCLUDED_BY_SD, "excluded for standard deviation 0")):
        for group, workers in result.excluded(by).items():
            click.echo(f"{group}: {len(workers)} {label}: {', '.join(sorted(workers))}")
