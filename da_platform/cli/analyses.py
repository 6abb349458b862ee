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
    """Which workers were left out, per group and cause (``analysis.qc_states.ExcludedBy``, in the verdict's words:
    excluded by a review decision, excluded by quality control, flagged for review, sd 0)."""
    from analysis.qc_states import ExcludedBy

    for by in ExcludedBy:
        for group, workers in result.excluded(by).items():
            click.echo(f"{group}: {len(workers)} {by.describe}: {', '.join(sorted(workers))}")
