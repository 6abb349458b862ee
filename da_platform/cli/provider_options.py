"""What the provider commands (``mturk``, ``prolific``, ``pool review``) share: the review options, amounts of
money, confirming a cost, a provider's refusal as a readable error, and what they print (status, decisions,
outcome). Heavy libraries are imported inside the functions, so that ``--help`` stays quick.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar, overload

import click

from da_platform.cli.context import CliContext
from da_platform.cli.params import NamedCampaign

if TYPE_CHECKING:
    from da_core.stored_record import StoredRecord
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.config.review_policy import ReviewPolicy
    from da_platform.db.models import Campaign
    from da_platform.db.states import WorkerSource
    from da_platform.operations.sync import SyncResult
    from da_platform.providers.base import Provider
    from da_platform.providers.money import CostEstimate
    from da_platform.review.apply import ExecutionReport
    from da_platform.review.provider_run import Pricing

Record = TypeVar("Record", bound="StoredRecord")


def find_campaign(context: CliContext, campaign: NamedCampaign) -> Campaign:
    """The campaign row the command names (detached: read its id, name and status)."""
    with context.sessions() as session:
        return campaign.find(session)


def stored_settings(context: CliContext, campaign_id: int) -> CampaignSettings:
    """The campaign's settings (one that cannot be read ends the command with an error naming it)."""
    from da_platform.config.setting_changes import stored_settings

    with context.sessions() as session:
        return stored_settings(session, campaign_id)


def with_changes(stored: Record, changes: dict[str, Any]) -> Record:
    """``stored`` (a policy or a provider's settings) with the command's options laid over it, checked."""
    from da_platform.config.setting_changes import InvalidSettings, changed

    try:
        return changed(stored, changes)
    except InvalidSettings as error:
        raise click.ClickException(str(error)) from None


@overload
def money(value: str, field: str) -> Decimal: ...
@overload
def money(value: str | None, field: str) -> Decimal | None: ...
def money(value: str | None, field: str) -> Decimal | None:
    """The amount given as option ``--field`` (None: not given); a bad one is that option's error."""
    from da_platform.providers.money import parse_amount

    if value is None:
        return None
    try:
        return parse_amount(value, field=field)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=f"--{field}") from None


def confirm_cost(what: str, cost: CostEstimate, confirm_total: str | None) -> None:
    """Show the total and ask; ``--confirm-total`` must equal it exactly (for scripts)."""
    from da_platform.providers.money import amount_string

    total = amount_string(cost.total)
    click.echo(f"{what}: {cost.describe()}")
    if confirm_total is not None:
        if money(confirm_total, "confirm-total") != cost.total:
            raise click.ClickException(f"--confirm-total {confirm_total} does not match the total {total} "
                                       f"{cost.currency}: nothing was sent")
        return
    click.confirm(f"Spend {total} {cost.currency} of real money?", abort=True)


@contextmanager
def provider_errors() -> Iterator[None]:
    """A provider's refusal, exhausted retries or a bad setting inside the block become a readable error."""
    from da_platform.providers.base import ProviderError
    from da_platform.providers.retry import RetriesExhausted

    try:
        yield
    except (ProviderError, RetriesExhausted, ValueError) as error:
        raise click.ClickException(str(error)) from None


def warn_crowd(campaign: Campaign, provider: str) -> None:
    """Warn (on stderr) when the campaign is not built as the paid crowd preset says."""
    from da_platform.building.crowds import launch_warning
    from da_platform.config.campaign_settings import CampaignSettings

    warning = launch_warning(CampaignSettings.of(campaign), provider)
    if warning:
        click.echo(f"warning: {warning}", err=True)


def show_status(context: CliContext, campaign_id: int, provider: WorkerSource) -> None:
    """Print where the campaign stands on ``provider`` (from the database)."""
    from da_platform.operations.provider_status import provider_progress

    with context.sessions() as session:
        progress = provider_progress(session, campaign_id, provider)
        click.echo(f"HITs launched on {provider}: {progress.launched} / {progress.hits}")
        click.echo("assignments: " + (", ".join(f"{s.value} {n}" for s, n in progress.assignments) or "none"))
        click.echo("decisions: " + (", ".join(f"{a} {s} {n}" for a, s, n in progress.decisions) or "none"))
        for d in progress.attention:
            click.echo(f"  ATTENTION decision {d.id} {d.action} {d.amount or ''} is {d.status}: {d.outcome}")


def report(result: ExecutionReport) -> None:
    """Print what sending the decisions did."""
    click.echo(f"done {result.done}, failed {result.failed}, unverified {result.unverified}")
    for note in result.notes:
        click.echo(f"  {note}")


def report_forged(result: SyncResult, provider: WorkerSource) -> None:
    """Say how many arrivals sync found under a real assignment id but another worker or HIT (abandoned)."""
    if result.forged:
        click.echo(f"{len(result.forged)} arrival(s) under an assignment id the provider has for another worker or "
                   f"HIT: abandoned, their ratings left out (audited as {provider}.sync.forged)")


def review_options(command: Callable) -> Callable:
    """The options of a review run (``mturk review``, ``prolific review``, ``pool review``)."""
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


def review_policy(context: CliContext, campaign_id: int, bonus: str | None, reject_enabled: bool | None,
                  reject_min_pairs: int | None, reject_min_p: float | None, reject_identical_run: int | None,
                  block_rejected: bool | None) -> ReviewPolicy:
    """The campaign's review policy with the review options given (:func:`review_options`)."""
    changes = dict(bonus=money(bonus, "bonus"), reject_enabled=reject_enabled, reject_min_pairs=reject_min_pairs,
                   reject_min_p=reject_min_p, reject_identical_run=reject_identical_run,
                   block_rejected=block_rejected)
    return with_changes(stored_settings(context, campaign_id).review_policy, changes)


def run_review(context: CliContext, campaign_id: int, provider: Provider, policy: ReviewPolicy, pricing: Pricing, *,
               dry_run: bool, confirm: Callable[[CostEstimate], None] | None) -> None:
    """Show what the policy decides now and its cost; unless ``dry_run``, have the cost confirmed (``confirm``;
    None: nothing to confirm) and send the decisions, then report the outcome."""
    from da_platform.providers.money import amount_string
    from da_platform.review.provider_run import carry_out_review, propose_review

    proposal = propose_review(context.sessions, campaign_id, provider.name, policy, pricing)
    for p in proposal.planned:
        data = "use" if p.use_data else "exclude"
        amount = amount_string(p.amount) if p.amount is not None else ""
        click.echo(f"{p.action:8} {p.worker:>16} {p.provider_assignment_id or '-':>32} "
                   f"{data:8} {amount:>7}  {p.reason}")
    click.echo(f"{len(proposal.planned)} decision(s); cost: {proposal.cost.describe()}")
    for assignment, reason in proposal.held:  # behaviour alone never rejects: the researcher decides in the dashboard
        click.echo(f"held for review (no decision sent): {assignment}: {reason}")
    if dry_run:
        click.echo("dry run: nothing was stored or sent")
        return
    if confirm is not None and proposal.planned:
        confirm(proposal.cost)
    with click.progressbar(length=len(proposal.planned) or 1, label="sending decisions") as bar, provider_errors():
        outcome = carry_out_review(context.sessions, campaign_id, provider, policy, proposal.planned,
                                   progress=bar.update)
    report(outcome)
