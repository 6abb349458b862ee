"""``da-platform mturk ...``: balance, launch, status, sync, review, expire, notify.

MTurk's sandbox is used unless ``--live`` is given; anything that spends real money shows its total cost first
and asks for confirmation (or takes ``--confirm-total`` with that exact amount). ``--dry-run`` shows every
decision and the total cost and sends nothing. Heavy libraries (boto3, scipy) are imported inside the commands.
"""
from __future__ import annotations

from collections.abc import Callable
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
from da_platform.providers.mturk import MTURK

if TYPE_CHECKING:
    from da_platform.providers.mturk.client import MTurk

ENDPOINT_HELP = "MTurk requester endpoint (default: the sandbox, or live with --live); $DA_MTURK_ENDPOINT_URL."


def _mturk_options(command: Callable) -> Callable:
    command = click.option("--endpoint-url", help=ENDPOINT_HELP)(command)
    return click.option("--live", is_flag=True, help="Use the live marketplace (real money) instead of the sandbox.")(
        command)


def _client(context: CliContext, campaign_id: int | None, live: bool, endpoint_url: str | None) -> MTurk:
    """The MTurk client, checked against the marketplace the campaign was launched on."""
    from da_platform.operations.clients import WrongMarketplace, mturk_client

    settings = stored_settings(context, campaign_id) if campaign_id is not None else None
    try:
        return mturk_client(settings, live=live, endpoint=endpoint_url or context.settings.mturk_endpoint_url)
    except WrongMarketplace as error:
        raise click.ClickException(str(error)) from None


@click.group()
def mturk() -> None:
    """Run a campaign on Amazon Mechanical Turk (the sandbox unless --live)."""


@mturk.command()
@_mturk_options
@pass_context
def balance(context: CliContext, live: bool, endpoint_url: str | None) -> None:
    """Show the requester account's available balance."""
    client = _client(context, None, live, endpoint_url)
    with provider_errors():
        available = client.balance()
    click.echo(f"{available} USD ({'live' if live else 'sandbox'})")


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--reward", help="Reward per assignment in USD, e.g. 2.00.")
@click.option("--assignments", "assignments_per_hit", type=int, help="Assignments (workers) per HIT.")
@click.option("--title")
@click.option("--description")
@click.option("--duration-minutes", type=int, help="Time a worker has for one HIT.")
@click.option("--lifetime-hours", type=int, help="How long the HITs stay available.")
@click.option("--auto-approve-hours", type=int, help="Approval happens automatically after this delay.")
@click.option("--locale", "locales", multiple=True, help="Allowed worker locale, e.g. US or US-NY (repeatable).")
@click.option("--min-approval-rate", type=int, help="Minimum approval rate in percent.")
@click.option("--min-approved", type=int, help="Minimum number of approved HITs.")
@click.option("--masters/--no-masters", default=None, help="Require the Masters qualification (+5 % fee).")
@click.option("--expected-bonus", default="0.00", show_default=True, help="Bonus per assignment "
                                                                          "to include in the cost.")
@click.option("--dry-run", is_flag=True, help="Show what would be created and the cost; send nothing.")
@click.option("--confirm-total", help="Confirm a live launch non-interactively with its exact total.")
@_mturk_options
@pass_context
def launch(context: CliContext, campaign: NamedCampaign, reward, assignments_per_hit, title, description,
           duration_minutes, lifetime_hours, auto_approve_hours, locales, min_approval_rate, min_approved, masters,
           expected_bonus, dry_run, confirm_total, live, endpoint_url) -> None:
    """Create one HIT per HIT of CAMPAIGN, with an ExternalQuestion pointing at $DA_PUBLIC_URL/mturk."""
    from da_platform.operations.launch import LaunchError, launch_mturk, plan_mturk

    row = find_campaign(context, campaign)
    changes = dict(reward=money(reward, "reward"), assignments_per_hit=assignments_per_hit, title=title,
                   description=description, assignment_duration=duration_minutes and duration_minutes * 60,
                   lifetime=lifetime_hours and lifetime_hours * 3600,
                   auto_approval_delay=auto_approve_hours and auto_approve_hours * 3600,
                   locales=tuple(locales) or None, min_approval_rate=min_approval_rate, min_approved=min_approved,
                   masters=masters)
    settings = with_changes(stored_settings(context, row.id).mturk_settings, changes)
    with context.sessions() as session:
        try:
            plan = plan_mturk(session, session.merge(row), settings, public_url=context.settings.public_url,
                              expected_bonus=money(expected_bonus, "expected-bonus"))
        except (LaunchError, ValueError) as error:
            raise click.ClickException(str(error)) from None
    where = "LIVE MTurk" if live else "the MTurk sandbox"
    click.echo(f"{plan.new_hits} HIT(s) x {settings.assignments_per_hit} assignment(s) on {where}, "
               f"reward {settings.reward} USD, URL {plan.url}")
    warn_crowd(row, "MTurk")
    if dry_run:
        click.echo(f"cost: {plan.cost.describe()}\ndry run: nothing was sent")
        return
    if live:
        confirm_cost("launch", plan.cost, confirm_total)
    else:
        click.echo(f"sandbox (no real money); live it would cost: {plan.cost.describe()}")
    client = _client(context, row.id, live, endpoint_url)
    with click.progressbar(length=plan.new_hits or 1, label="creating HITs") as bar, provider_errors():
        created = launch_mturk(context.sessions, row.id, client, settings, public_url=context.settings.public_url,
                               progress=bar.update)
    click.echo(f"created {len(created)} HIT(s)")


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@pass_context
def status(context: CliContext, campaign: NamedCampaign) -> None:
    """Show launched HITs, assignments and review decisions (from the database; sync first)."""
    show_status(context, find_campaign(context, campaign).id, MTURK.name)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@_mturk_options
@pass_context
def sync(context: CliContext, campaign: NamedCampaign, live: bool, endpoint_url: str | None) -> None:
    """Fetch every assignment of the campaign's HITs, grant exclusions, reconcile unfinished decisions."""
    from da_platform.operations.sync import sync_campaign

    row = find_campaign(context, campaign)
    client = _client(context, row.id, live, endpoint_url)
    policy = stored_settings(context, row.id).review_policy
    with provider_errors():
        result = sync_campaign(context.sessions, row.id, client, policy.messages())
    click.echo(f"{result.seen} assignment(s) seen, {result.updated} updated, {len(result.unknown)} unknown, "
               f"{result.excluded} worker(s) excluded, {len(result.released)} released (past the time limit, "
               f"never submitted to MTurk); by status: {result.by_status}")
    report_forged(result, MTURK.name)
    report(result.reconciled)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@review_options
@_mturk_options
@pass_context
def review(context: CliContext, campaign: NamedCampaign, dry_run, bonus, reject_enabled, reject_min_pairs, reject_min_p,
           reject_identical_run, block_rejected, confirm_total, live, endpoint_url) -> None:
    """Decide approve / reject / bonus / block for every submitted assignment, then send the decisions."""
    from da_platform.review.provider_run import pricing_at

    row = find_campaign(context, campaign)
    policy = review_policy(context, row.id, bonus, reject_enabled, reject_min_pairs, reject_min_p,
                           reject_identical_run, block_rejected)
    client = _client(context, row.id, live, endpoint_url)
    confirm = (lambda cost: confirm_cost("review", cost, confirm_total)) if live else None
    pricing = pricing_at(MTURK, stored_settings(context, row.id).mturk_settings)
    run_review(context, row.id, client, policy, pricing, dry_run=dry_run, confirm=confirm)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--extend-hours", type=int, help="Extend the HITs by this many hours from now instead of expiring them.")
@click.option("--delete", is_flag=True, help="Also delete HITs whose assignments are all reviewed.")
@_mturk_options
@pass_context
def expire(context: CliContext, campaign: NamedCampaign, extend_hours: int | None, delete: bool, live: bool,
           endpoint_url: str | None) -> None:
    """Expire the campaign's HITs now (or extend them); optionally delete finished ones."""
    from da_platform.operations.mturk_hits import expire_hits

    row = find_campaign(context, campaign)
    client = _client(context, row.id, live, endpoint_url)
    with provider_errors():
        for hit_id, outcome in expire_hits(context.sessions, row.id, client, extend_hours=extend_hours,
                                           delete=delete):
            click.echo(f"{hit_id}: {outcome}")


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--subject", required=True)
@click.option("--message", required=True)
@_mturk_options
@pass_context
def notify(context: CliContext, campaign: NamedCampaign, subject: str, message: str, live: bool,
           endpoint_url: str | None) -> None:
    """Send a message to every MTurk worker who took part in CAMPAIGN."""
    from da_platform.operations.mturk_hits import notify_workers

    row = find_campaign(context, campaign)
    client = _client(context, row.id, live, endpoint_url)
    with provider_errors():
        notified = notify_workers(context.sessions, row.id, client, subject=subject, message=message)
    click.echo(f"notified {notified.notified} of {notified.workers} worker(s)")
