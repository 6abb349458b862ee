"""``da-platform mturk ...`` and ``da-platform prolific ...``: launch, status, sync, review, expire.

MTurk uses the sandbox unless ``--live`` is given; anything that spends real money shows its total
cost first and asks for confirmation (or takes ``--confirm-total`` with that exact amount). Prolific
has no sandbox: ``launch`` creates a draft study unless ``--live`` publishes it, and ``review``
sends nothing without ``--live``. ``--dry-run`` shows every decision and the total cost and sends
nothing. Heavy libraries (boto3, requests, scipy) are imported inside the commands.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any, overload

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign
from da_platform.db.rows import get_row
from da_platform.db.states import DecisionStatus, WorkerSource
from da_platform.providers.mturk import MTURK
from da_platform.providers.prolific import PROLIFIC

if TYPE_CHECKING:
    from da_platform.db.models import Campaign
    from da_platform.operations.sync import SyncResult

ENDPOINT_HELP = "MTurk requester endpoint (default: the sandbox, or live with --live); $DA_MTURK_ENDPOINT_URL."


# -- shared helpers -----------------------------------------------------------------------------

def _campaign(context: CliContext, campaign: NamedCampaign):
    with context.sessions() as session:
        return campaign.find(session)


@overload
def _money(value: str, field: str) -> Decimal: ...
@overload
def _money(value: str | None, field: str) -> Decimal | None: ...
def _money(value: str | None, field: str) -> Decimal | None:
    from da_platform.providers.money import parse_amount

    if value is None:
        return None
    try:
        return parse_amount(value, field=field)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=f"--{field}") from None


def _confirm_cost(what: str, cost, confirm_total: str | None) -> None:
    """Show the total and ask; ``--confirm-total`` must equal it exactly (for scripts)."""
    from da_platform.providers.money import amount_string

    total = amount_string(cost.total)
    click.echo(f"{what}: {cost.describe()}")
    if confirm_total is not None:
        if _money(confirm_total, "confirm-total") != cost.total:
            raise click.ClickException(f"--confirm-total {confirm_total} does not match the total {total} "
                                       f"{cost.currency}: nothing was sent")
        return
    click.confirm(f"Spend {total} {cost.currency} of real money?", abort=True)


def _stored(context: CliContext, campaign_id: int):
    """The campaign's settings (a clear error when a stored one cannot be read)."""
    from da_platform.config.campaign_settings import CampaignSettings, CampaignSettingsError
    from da_platform.db.models import Campaign

    with context.sessions() as session:
        try:
            return CampaignSettings.of(get_row(session, Campaign, campaign_id))
        except CampaignSettingsError as error:
            raise click.ClickException(str(error)) from None


def _changed(stored, changes: dict[str, Any]):
    """``stored`` (a policy or a provider's settings) with the command's ``changes``, checked."""
    try:
        return stored.with_changes(**changes)
    except (TypeError, ValueError) as error:
        raise click.ClickException(f"invalid settings: {error}") from None


def review_policy(context: CliContext, campaign_id: int, **changes: Any):
    return _changed(_stored(context, campaign_id).review_policy, changes)


def _provider_errors(call: Callable[[], Any]) -> Any:
    """Run ``call``; a provider's refusal or a bad setting becomes a readable error."""
    from da_platform.providers.base import ProviderError
    from da_platform.providers.retry import RetriesExhausted

    try:
        return call()
    except (ProviderError, RetriesExhausted, ValueError) as error:
        raise click.ClickException(str(error)) from None


def _show_status(context: CliContext, campaign_id: int, provider: WorkerSource) -> None:
    from sqlalchemy import func, select

    from da_platform.db.models import Assignment, Hit, ReviewDecision

    with context.sessions() as session:
        launched = session.scalar(select(func.count(Hit.id)).where(Hit.campaign_id == campaign_id,
                                                                    Hit.provider == provider))
        total = session.scalar(select(func.count(Hit.id)).where(Hit.campaign_id == campaign_id))
        click.echo(f"HITs launched on {provider}: {launched} / {total}")
        statuses = session.execute(
            select(Assignment.status, func.count(Assignment.id)).join(Hit, Hit.id == Assignment.hit_id)
            .where(Hit.campaign_id == campaign_id, Assignment.source == provider).group_by(Assignment.status)
        ).all()
        click.echo("assignments: " + (", ".join(f"{s.value} {n}" for s, n in sorted(statuses, key=lambda r: r[0].value))
                                      or "none"))
        decisions = session.execute(
            select(ReviewDecision.action, ReviewDecision.status, func.count(ReviewDecision.id))
            .where(ReviewDecision.campaign_id == campaign_id)
            .group_by(ReviewDecision.action, ReviewDecision.status)
        ).all()
        click.echo("decisions: " + (", ".join(f"{a} {s} {n}" for a, s, n in sorted(decisions)) or "none"))
        for d in session.scalars(select(ReviewDecision).where(ReviewDecision.campaign_id == campaign_id,
                                                              ReviewDecision.status.in_((DecisionStatus.sent,
                                                                                         DecisionStatus.failed)))):
            click.echo(f"  ATTENTION decision {d.id} {d.action} {d.amount or ''} is {d.status}: {d.outcome}")


def _show_plan(planned, cost) -> None:
    from da_platform.providers.money import amount_string

    for p in planned:
        data = "use" if p.use_data else "exclude"
        amount = amount_string(p.amount) if p.amount is not None else ""
        click.echo(f"{p.action:8} {p.worker:>16} {p.provider_assignment_id or '-':>32} "
                   f"{data:8} {amount:>7}  {p.reason}")
    click.echo(f"{len(planned)} decision(s); cost: {cost.describe()}")


def _report(result) -> None:
    click.echo(f"done {result.done}, failed {result.failed}, unverified {result.unverified}")
    for note in result.notes:
        click.echo(f"  {note}")


def _review(context: CliContext, campaign_id: int, provider, policy, pricing, *, dry_run: bool,
            confirm: Callable[[Any], None] | None) -> None:
    from da_platform.review.provider_run import carry_out_review, propose_review

    proposal = propose_review(context.sessions, campaign_id, provider.name, policy, pricing)
    _show_plan(proposal.planned, proposal.cost)
    for assignment, reason in proposal.held:  # behaviour alone never rejects: the researcher decides in the dashboard
        click.echo(f"held for review (no decision sent): {assignment}: {reason}")
    if dry_run:
        click.echo("dry run: nothing was stored or sent")
        return
    if confirm is not None and proposal.planned:
        confirm(proposal.cost)
    with click.progressbar(length=len(proposal.planned) or 1, label="sending decisions") as bar:
        report = _provider_errors(lambda: carry_out_review(context.sessions, campaign_id, provider, policy,
                                                           proposal.planned, progress=bar.update))
    _report(report)


# -- MTurk --------------------------------------------------------------------------------------

def _mturk_options(command: Callable) -> Callable:
    command = click.option("--endpoint-url", help=ENDPOINT_HELP)(command)
    return click.option("--live", is_flag=True, help="Use the live marketplace (real money) instead of the sandbox.")(
        command)


def _mturk(context: CliContext, campaign_id: int | None, live: bool, endpoint_url: str | None):
    """The MTurk client, checked against the environment the campaign was launched in."""
    from da_platform.providers.mturk.settings import MTurkSettings

    settings = None
    if campaign_id is not None:
        settings = _stored(context, campaign_id)
        launched = settings.mturk_launch
        if launched is not None and bool(launched.live) != live:
            where = "live MTurk" if launched.live else "the MTurk sandbox"
            raise click.ClickException(f"this campaign was launched on {where}: "
                                       f"{'add' if launched.live else 'remove'} --live")
    stored = settings.stored_mturk if settings is not None else None
    return MTURK.client(stored or MTurkSettings(), live=live,
                        endpoint=endpoint_url or context.settings.mturk_endpoint_url)


def _mturk_pricing(context: CliContext, campaign_id: int):
    settings = _stored(context, campaign_id).mturk_settings
    return lambda approvals, bonuses: MTURK.cost(settings, assignments=approvals, bonuses=bonuses)


@click.group()
def mturk() -> None:
    """Run a campaign on Amazon Mechanical Turk (the sandbox unless --live)."""


@mturk.command()
@_mturk_options
@pass_context
def balance(context: CliContext, live: bool, endpoint_url: str | None) -> None:
    """Show the requester account's available balance."""
    client = _mturk(context, None, live, endpoint_url)
    click.echo(f"{_provider_errors(client.balance)} USD ({'live' if live else 'sandbox'})")


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

    row = _campaign(context, campaign)
    changes = dict(reward=_money(reward, "reward"), assignments_per_hit=assignments_per_hit, title=title,
                   description=description, assignment_duration=duration_minutes and duration_minutes * 60,
                   lifetime=lifetime_hours and lifetime_hours * 3600,
                   auto_approval_delay=auto_approve_hours and auto_approve_hours * 3600,
                   locales=tuple(locales) or None, min_approval_rate=min_approval_rate, min_approved=min_approved,
                   masters=masters)
    settings = _changed(_stored(context, row.id).mturk_settings, changes)
    with context.sessions() as session:
        try:
            plan = plan_mturk(session, session.merge(row), settings, public_url=context.settings.public_url,
                              expected_bonus=_money(expected_bonus, "expected-bonus"))
        except (LaunchError, ValueError) as error:
            raise click.ClickException(str(error)) from None
    where = "LIVE MTurk" if live else "the MTurk sandbox"
    click.echo(f"{plan.new_hits} HIT(s) x {settings.assignments_per_hit} assignment(s) on {where}, "
               f"reward {settings.reward} USD, URL {plan.url}")
    _warn_crowd(row, "MTurk")
    if dry_run:
        click.echo(f"cost: {plan.cost.describe()}\ndry run: nothing was sent")
        return
    if live:
        _confirm_cost("launch", plan.cost, confirm_total)
    else:
        click.echo(f"sandbox (no real money); live it would cost: {plan.cost.describe()}")
    client = _mturk(context, row.id, live, endpoint_url)
    with click.progressbar(length=plan.new_hits or 1, label="creating HITs") as bar:
        created = _provider_errors(lambda: launch_mturk(context.sessions, row.id, client, settings,
                                                        public_url=context.settings.public_url, progress=bar.update))
    click.echo(f"created {len(created)} HIT(s)")


def _warn_crowd(campaign: Campaign, provider: str) -> None:
    """Warn (on stderr) when the campaign is not built as the paid crowd preset says."""
    from da_platform.building.crowds import launch_warning
    from da_platform.config.campaign_settings import CampaignSettings

    warning = launch_warning(CampaignSettings.of(campaign), provider)
    if warning:
        click.echo(f"warning: {warning}", err=True)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@pass_context
def status(context: CliContext, campaign: NamedCampaign) -> None:
    """Show launched HITs, assignments and review decisions (from the database; sync first)."""
    _show_status(context, _campaign(context, campaign).id, MTURK.name)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@_mturk_options
@pass_context
def sync(context: CliContext, campaign: NamedCampaign, live: bool, endpoint_url: str | None) -> None:
    """Fetch every assignment of the campaign's HITs, grant exclusions, reconcile unfinished decisions."""
    from da_platform.operations.sync import sync_campaign

    row = _campaign(context, campaign)
    client = _mturk(context, row.id, live, endpoint_url)
    policy = review_policy(context, row.id)
    result = _provider_errors(lambda: sync_campaign(context.sessions, row.id, client, policy.messages()))
    click.echo(f"{result.seen} assignment(s) seen, {result.updated} updated, {len(result.unknown)} unknown, "
               f"{result.excluded} worker(s) excluded, {len(result.released)} released (past the time limit, "
               f"never submitted to MTurk); by status: {result.by_status}")
    _report_forged(result, MTURK.name)
    _report(result.reconciled)


def _report_forged(result: SyncResult, provider: WorkerSource) -> None:
    """Say how many arrivals sync found under a real assignment id but another worker or HIT (abandoned)."""
    if result.forged:
        click.echo(f"{len(result.forged)} arrival(s) under an assignment id the provider has for another worker or "
                   f"HIT: abandoned, their ratings left out (audited as {provider}.sync.forged)")


def review_options(command: Callable) -> Callable:
    for option in reversed([
        click.option("--dry-run", is_flag=True, help="Show every decision and the total cost; send nothing."),
        click.option("--bonus", help="Bonus per assignment that passes quality control (e.g. 0.50)."),
        click.option("--reject/--no-reject", "reject_enabled", default=None,
                     help="Allow rejections on clear evidence (default: allowed)."),
        click.option("--reject-min-pairs", type=int, help="Non-zero BAD_REF pairs needed to reject a failed worker."),
        click.option("--reject-min-p", type=float, help="Reject a failed worker only when p is above this."),
        click.option("--identical-run", "reject_identical_run", type=int,
                     help="Reject a run of at least this many identical scores (0: off)."),
        click.option("--block/--no-block", "block_rejected", default=None, help="Block rejected workers."),
        click.option("--confirm-total", help="Confirm non-interactively with the exact total cost."),
    ]):
        command = option(command)
    return command


def review_changes(bonus, reject_enabled, reject_min_pairs, reject_min_p, reject_identical_run, block_rejected):
    return dict(bonus=_money(bonus, "bonus"), reject_enabled=reject_enabled, reject_min_pairs=reject_min_pairs,
                reject_min_p=reject_min_p, reject_identical_run=reject_identical_run, block_rejected=block_rejected)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@review_options
@_mturk_options
@pass_context
def review(context: CliContext, campaign: NamedCampaign, dry_run, bonus, reject_enabled, reject_min_pairs, reject_min_p,
           reject_identical_run, block_rejected, confirm_total, live, endpoint_url) -> None:
    """Decide approve / reject / bonus / block for every submitted assignment, then send the decisions."""
    row = _campaign(context, campaign)
    policy = review_policy(context, row.id, **review_changes(bonus, reject_enabled, reject_min_pairs, reject_min_p,
                                                        reject_identical_run, block_rejected))
    client = _mturk(context, row.id, live, endpoint_url)
    confirm = (lambda cost: _confirm_cost("review", cost, confirm_total)) if live else None
    _review(context, row.id, client, policy, _mturk_pricing(context, row.id), dry_run=dry_run, confirm=confirm)


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--extend-hours", type=int, help="Extend the HITs by this many hours from now instead of expiring them.")
@click.option("--delete", is_flag=True, help="Also delete HITs whose assignments are all reviewed.")
@_mturk_options
@pass_context
def expire(context: CliContext, campaign: NamedCampaign, extend_hours: int | None, delete: bool, live: bool,
           endpoint_url: str | None) -> None:
    """Expire the campaign's HITs now (or extend them); optionally delete finished ones."""
    from datetime import datetime, timedelta, timezone

    from da_platform.config.campaign_settings import CampaignSettings, MTurkLaunch
    from da_platform.db.audit import audit
    from da_platform.db.models import Campaign, CampaignStatus
    from da_platform.operations.sync import work_ids
    from da_platform.providers.base import ProviderError

    row = _campaign(context, campaign)
    client = _mturk(context, row.id, live, endpoint_url)
    with context.sessions() as session:
        hits = work_ids(session, get_row(session, Campaign, row.id), MTURK.name)
    deleted = set((_stored(context, row.id).mturk_launch or MTurkLaunch()).deleted_hits or ())
    for hit_id in [h for h in hits if h not in deleted]:
        if extend_hours:
            until = datetime.now(timezone.utc) + timedelta(hours=extend_hours)
            _provider_errors(partial(client.extend, hit_id, until))
            action, outcome = "mturk.extend", f"until {until.isoformat()}"
        else:
            _provider_errors(partial(client.expire, hit_id))
            action, outcome = "mturk.expire", "expired"
        if delete and not extend_hours:
            try:
                client.delete(hit_id)
                outcome += ", deleted"
                deleted.add(hit_id)
            except ProviderError as error:
                outcome += f", not deleted ({error})"
        with context.sessions.begin() as session:
            audit(session, action, campaign_id=row.id, target=hit_id, outcome=outcome)
            stored = get_row(session, Campaign, row.id)
            launched = CampaignSettings.of(stored).mturk_launch or MTurkLaunch()
            launched = dataclasses.replace(launched, deleted_hits=tuple(sorted(deleted)))
            CampaignSettings.update(stored, mturk_launch=launched)
        click.echo(f"{hit_id}: {outcome}")
    if not extend_hours:
        with context.sessions.begin() as session:
            get_row(session, Campaign, row.id).status = CampaignStatus.closed


@mturk.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--subject", required=True)
@click.option("--message", required=True)
@_mturk_options
@pass_context
def notify(context: CliContext, campaign: NamedCampaign, subject: str, message: str, live: bool,
           endpoint_url: str | None) -> None:
    """Send a message to every MTurk worker who took part in CAMPAIGN."""
    from sqlalchemy import select

    from da_platform.db.audit import audit
    from da_platform.db.models import Assignment, Hit, Worker

    row = _campaign(context, campaign)
    client = _mturk(context, row.id, live, endpoint_url)
    with context.sessions() as session:
        workers = sorted(set(session.scalars(
            select(Worker.external_id).join(Assignment, Assignment.worker_id == Worker.id)
            .join(Hit, Hit.id == Assignment.hit_id).where(Hit.campaign_id == row.id, Worker.source == MTURK.name))))
    failures = _provider_errors(lambda: client.notify(workers, subject=subject, message=message))
    with context.sessions.begin() as session:
        audit(session, "mturk.notify", campaign_id=row.id, target=f"{len(workers)} worker(s)", reason=subject,
              outcome=f"{len(failures)} failure(s)")
    click.echo(f"notified {len(workers) - len(failures)} of {len(workers)} worker(s)")


# -- Prolific -----------------------------------------------------------------------------------

def _prolific_options(command: Callable) -> Callable:
    command = click.option("--base-url", help="Prolific API base URL [default: $DA_PROLIFIC_API_URL, else "
                                              "Prolific's].")(command)
    return click.option("--live", is_flag=True, help="Actually publish / pay (Prolific has no sandbox).")(command)


def _prolific(context: CliContext, campaign_id: int, base_url: str | None):
    settings = _stored(context, campaign_id).prolific_settings
    return _provider_errors(lambda: PROLIFIC.client(settings, endpoint=base_url or context.settings.prolific_api_url,
                                                    token=context.settings.prolific_api_token)), settings


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

    row = _campaign(context, campaign)
    changes = dict(reward=_money(reward, "reward"), currency=currency, places_per_hit=places_per_hit,
                   estimated_minutes=estimated_minutes, maximum_minutes=maximum_minutes, title=title,
                   description=description, fee_rate=Decimal(fee_rate) if fee_rate else None)
    settings = _changed(_stored(context, row.id).prolific_settings, changes)
    with context.sessions() as session:
        try:
            plan = plan_prolific(session, session.merge(row), settings, public_url=context.settings.public_url,
                                 secret_key=context.settings.secret_key,
                                 expected_bonus=_money(expected_bonus, "expected-bonus"))
        except (LaunchError, ValueError) as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"study of {plan.assignments} place(s), reward {settings.reward} {settings.currency}, URL {plan.url}")
    _warn_crowd(row, "Prolific")
    if dry_run:
        click.echo(f"cost: {plan.cost.describe()}\ndry run: nothing was sent")
        return
    if row.status is CampaignStatus.running and not plan.new_hits:
        click.echo(f"every HIT of campaign {row.name!r} is on study {settings.study_id} already: nothing was sent")
        return
    if live:
        _confirm_cost("add places to" if row.status is CampaignStatus.running else "publish", plan.cost,
                      confirm_total)
    client, _ = _prolific(context, row.id, base_url)
    study = _provider_errors(lambda: launch_prolific(context.sessions, row.id, client, settings,
                                                     public_url=context.settings.public_url,
                                                     secret_key=context.settings.secret_key, publish=live))
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
    _show_status(context, _campaign(context, campaign).id, PROLIFIC.name)


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

    row = _campaign(context, campaign)
    client, _ = _prolific(context, row.id, base_url)
    policy = review_policy(context, row.id)
    result = _provider_errors(lambda: sync_campaign(context.sessions, row.id, client, policy.messages(),
                                                    resend_unverified_bonuses=resend_unverified))
    click.echo(f"{result.seen} submission(s) seen, {result.updated} updated, {len(result.unknown)} unknown, "
               f"{len(result.released)} released (past the time limit, unknown to Prolific); "
               f"by status: {result.by_status}")
    _report_forged(result, PROLIFIC.name)
    _report(result.reconciled)


@prolific.command("review")
@click.argument("campaign", type=CAMPAIGN)
@review_options
@_prolific_options
@pass_context
def prolific_review(context: CliContext, campaign: NamedCampaign, dry_run, bonus, reject_enabled, reject_min_pairs,
                    reject_min_p, reject_identical_run, block_rejected, confirm_total, live, base_url) -> None:
    """Decide approve / reject / bonus / block for every submission awaiting review, then send them."""
    row = _campaign(context, campaign)
    if not (dry_run or live):
        raise click.ClickException("Prolific has no sandbox: use --dry-run to look, or --live to pay")
    policy = review_policy(context, row.id, **review_changes(bonus, reject_enabled, reject_min_pairs, reject_min_p,
                                                        reject_identical_run, block_rejected))
    client, settings = _prolific(context, row.id, base_url)
    pricing = lambda approvals, bonuses: PROLIFIC.cost(settings, assignments=approvals, bonuses=bonuses)  # noqa: E731
    _review(context, row.id, client, policy, pricing, dry_run=dry_run,
            confirm=lambda cost: _confirm_cost("review", cost, confirm_total))
