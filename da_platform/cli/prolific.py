"""``da-platform prolific ...``: launch, status, sync, review.

Prolific has no sandbox: ``launch`` creates a draft study unless ``--live`` publishes it, and ``review`` sends
nothing without ``--live``; anything that spends real money shows its total cost first and asks for confirmation
(or takes ``--confirm-total`` with that exact amount). ``--dry-run`` shows every decision and the total cost and
sends nothing. Heavy libraries (requests, scipy) are imported inside the commands.
"""
from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign
from da_platform.cli.provider_options import (
    confirm_cost,
    find_campaign,
    money,
    provider_errors,
    report,
    report_forged,
    review_options,
    review_policy,
    run_review,
    show_status,
    stored_settings,
    warn_crowd,
    with_changes,
)
from da_platform.providers.prolific import PROLIFIC

if TYPE_CHECKING:
    from da_platform.providers.prolific.client import Prolific
    from da_platform.providers.prolific.settings import ProlificSettings


def _prolific_options(command: Callable) -> Callable:
    command = click.option("--base-url", help="Prolific API base URL [default: $DA_PROLIFIC_API_URL, else "
                                              "Prolific's].")(command)
    return click.option("--live", is_flag=True, help="Actually publish / pay (Prolific has no sandbox).")(command)


def _client(context: CliContext, campaign_id: int, base_url: str | None) -> tuple[Prolific, ProlificSettings]:
    """The Prolific client for the campaign's stored settings, and those settings."""
    from da_platform.operations.clients import prolific_client

    settings = stored_settings(context, campaign_id)
    with provider_errors():
        client = prolific_client(settings, endpoint=base_url or context.settings.prolific_api_url,
                                 token=context.settings.prolific_api_token)
    return client, settings.prolific_settings


@click.group()
def prolific() -> None:
    """Run a campaign on Prolific (token in $PROLIFIC_API_TOKEN)."""


@prolific.command("launch")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--reward", help="Reward per participant, e.g. 3.00.")
@click.option("--currency", type=click.Choice(["GBP", "USD"]))
@click.option("--places-per-hit", type=int, help="Participants per HIT (places = HITs x this).")
@click.option("--minutes", "estimated_minutes", type=int, help="Estimated completion time in minutes.")
@click.option("--max-minutes", "maximum_minutes", type=int, help="Maximum allowed time in minutes.")
@click.option("--title")
@click.option("--description")
@click.option("--fee-rate", help="Prolific's service fee rate for the cost estimate, e.g. 0.3333.")
@click.option("--expected-bonus", default="0.00", show_default=True, help="Bonus per participant "
                                                                          "to include in the cost.")
@click.option("--dry-run", is_flag=True, help="Show the study and the cost; send nothing.")
@click.option("--confirm-total", help="Confirm publishing non-interactively with its exact total.")
@_prolific_options
@pass_context
def prolific_launch(context: CliContext, campaign, reward, currency, places_per_hit, estimated_minutes,
                    maximum_minutes, title, description, fee_rate, expected_bonus, dry_run, confirm_total, live,
                    base_url) -> None:
    """Create CAMPAIGN's study as a draft; with --live (and confirmation) publish it."""
    from da_platform.db.models import CampaignStatus
    from da_platform.operations.launch import LaunchError, launch_prolific, plan_prolific

    row = find_campaign(context, campaign)
    changes = dict(reward=money(reward, "reward"), currency=currency, places_per_hit=places_per_hit,
                   estimated_minutes=estimated_minutes, maximum_minutes=maximum_minutes, title=title,
                   description=description, fee_rate=Decimal(fee_rate) if fee_rate else None)
    settings = with_changes(stored_settings(context, row.id).prolific_settings, changes)
    with context.sessions() as session:
        try:
            plan = plan_prolific(session, session.merge(row), settings, public_url=context.settings.public_url,
                                 secret_key=context.settings.secret_key,
                                 expected_bonus=money(expected_bonus, "expected-bonus"))
        except (LaunchError, ValueError) as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"study of {plan.assignments} place(s), reward {settings.reward} {settings.currency}, URL {plan.url}")
    warn_crowd(row, "Prolific")
    if dry_run:
        click.echo(f"cost: {plan.cost.describe()}\ndry run: nothing was sent")
        return
    if row.status is CampaignStatus.running and not plan.new_hits:
        click.echo(f"every HIT of campaign {row.name!r} is on study {settings.study_id} already: nothing was sent")
        return
    if live:
        confirm_cost("add places to" if row.status is CampaignStatus.running else "publish", plan.cost,
                     confirm_total)
    client, _ = _client(context, row.id, base_url)
    with provider_errors():
        study = launch_prolific(context.sessions, row.id, client, settings, public_url=context.settings.public_url,
                                secret_key=context.settings.secret_key, publish=live)
    if settings.study_id and plan.new_hits:
        click.echo(f"study {study}: places raised to {plan.assignments} ({plan.assignments // settings.places_per_hit} "
                   f"HIT(s) x {settings.places_per_hit} place(s) per HIT); the {plan.new_hits} new HIT(s) joined it")
    if row.status is CampaignStatus.running:
        return
    click.echo(f"study {study} {'published' if live else 'created as a draft (add --live to publish)'}")


@prolific.command("status")
@click.argument("campaign", type=CAMPAIGN)
@pass_context
def prolific_status(context: CliContext, campaign: NamedCampaign) -> None:
    """Show the study, submissions and review decisions (from the database; sync first)."""
    show_status(context, find_campaign(context, campaign).id, PROLIFIC.name)


@prolific.command("sync")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--resend-unverified", is_flag=True,
              help="Resend bonuses Prolific does not show as paid (only after checking on Prolific!).")
@_prolific_options
@pass_context
def prolific_sync(context: CliContext, campaign: NamedCampaign,
                  resend_unverified: bool, live: bool, base_url: str | None) -> None:
    """Fetch every submission of the study and reconcile unfinished decisions."""
    from da_platform.operations.sync import sync_campaign

    row = find_campaign(context, campaign)
    client, _ = _client(context, row.id, base_url)
    policy = stored_settings(context, row.id).review_policy
    with provider_errors():
        result = sync_campaign(context.sessions, row.id, client, policy.messages(),
                               resend_unverified_bonuses=resend_unverified)
    click.echo(f"{result.seen} submission(s) seen, {result.updated} updated, {len(result.unknown)} unknown, "
               f"{len(result.released)} released (past the time limit, unknown to Prolific); "
               f"by status: {result.by_status}")
    report_forged(result, PROLIFIC.name)
    report(result.reconciled)


@prolific.command("review")
@click.argument("campaign", type=CAMPAIGN)
@review_options
@_prolific_options
@pass_context
def prolific_review(context: CliContext, campaign: NamedCampaign, dry_run, bonus, reject_enabled, reject_min_pairs,
                    reject_min_p, reject_identical_run, block_rejected, confirm_total, live, base_url) -> None:
    """Decide approve / reject / bonus / block for every submission awaiting review, then send them."""
    from da_platform.review.provider_run import pricing_at

    row = find_campaign(context, campaign)
    if not (dry_run or live):
        raise click.ClickException("Prolific has no sandbox: use --dry-run to look, or --live to pay")
    policy = review_policy(context, row.id, bonus, reject_enabled, reject_min_pairs, reject_min_p,
                           reject_identical_run, block_rejected)
    client, settings = _client(context, row.id, base_url)
    run_review(context, row.id, client, policy, pricing_at(PROLIFIC, settings), dry_run=dry_run,
               confirm=lambda cost: confirm_cost("review", cost, confirm_total))
