"""The lab's own pool: ``invite`` links, and ``pool review`` (the review policy for every worker)."""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign
from da_platform.cli.provider_options import review_options, review_policy
from da_platform.db.rows import get_row


def _ready_for_links(session, campaign, open_campaign: bool) -> None:
    """Refuse links that could never work (a closed campaign), open a built campaign with --open, and
    warn when the links work only later (built without --open, paused)."""
    from da_platform.db.models import AuditLog, CampaignStatus

    name, status = campaign.name, campaign.status
    if status == CampaignStatus.running:
        return
    if status == CampaignStatus.closed:  # final: it never opens again
        raise click.ClickException(f"campaign {name!r} is closed for good: links to it would never work; no link "
                                   "was made (build a new campaign for more ratings)")
    if status == CampaignStatus.paused:
        if open_campaign:
            raise click.ClickException(f"campaign {name!r} is paused: resume it with `da-platform campaign resume "
                                       f"{name}` (--open opens a built campaign); no link was made")
        click.echo(f"warning: campaign {name!r} is paused; the links work once it is resumed "
                   f"(`da-platform campaign resume {name}`)", err=True)
    elif not open_campaign:
        click.echo(f"warning: campaign {name!r} is {status.value}; the links work once it is open (add --open)",
                   err=True)
    elif status != CampaignStatus.built:
        raise click.ClickException(f"campaign {name!r} is {status.value}: only a built campaign can be opened")
    else:
        campaign.status = CampaignStatus.running
        session.add(AuditLog(actor="cli", campaign_id=campaign.id, action="campaign.open", target=name,
                             reason="da-platform invite --open"))
        click.echo(f"opened campaign {name!r} (built → running): workers who follow a link get its HITs "
                   f"(`da-platform campaign pause {name}` stops new work)", err=True)


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--count", "-n", default=1, show_default=True, type=click.IntRange(1, 100_000),
              help="How many links (one per person).")
@click.option("--days", default=14.0, show_default=True, type=click.FloatRange(0, min_open=True),
              help="How long the links stay valid.")
@click.option("--public-url", default=None, help="Base URL workers reach [default: $DA_PUBLIC_URL].")
@click.option("--open", "open_campaign", is_flag=True, help="Also open a built campaign to workers.")
@click.option("--time-limit", type=click.FloatRange(1, 7 * 24 * 60), default=None,
              help="Minutes a pool worker has for one HIT before it goes back to others (the ratings given "
                   "are kept); stored with the campaign [default: as set before, else 180].")
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-", show_default=True,
              help="File to write the links to, one per line (with labels: CSV label,link).")
@click.option("--label", "labels", multiple=True, metavar="NAME",
              help="Your name for the person the link is for (repeat for several; one link each). Stored with "
                   "the worker and shown on the dashboard, never to the worker.")
@click.option("--labels", "labels_file", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file of names (first column; a header 'label' or 'name' is skipped): one link each.")
@pass_context
def invite(context: CliContext, campaign: NamedCampaign, count: int, days: float, public_url: str | None,
           open_campaign: bool, time_limit: float | None, output, labels: tuple[str, ...],
           labels_file: Path | None) -> None:
    """Mint invite links to CAMPAIGN for the lab's own pool (one anonymous worker per link).

    Links are signed with $DA_SECRET_KEY, which must be the server's key. Following a link again
    resumes the person's task, or gives them their next HIT up to the campaign's limit. A HIT left
    unfinished past the time limit goes to the next person who arrives.
    """
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.engine import transaction
    from da_platform.db.models import AuditLog
    from da_platform.providers.pool.arrival import PoolSource, mint_invites
    from da_platform.providers.pool.labels import csv_cell, mint_labelled_invites
    from da_platform.providers.tokens import Tokens

    def time_limit_minutes(found) -> float:
        return (CampaignSettings.of(found).time_limits.seconds(PoolSource.name) or 0) / 60

    secret = context.settings.secret_key
    if not secret:
        raise click.ClickException("DA_SECRET_KEY is not set: invite links are signed with the server's key")
    names = _labels(labels, labels_file, count)
    with transaction(context.sessions) as session:
        found = campaign.find(session)
        _ready_for_links(session, found, open_campaign)
        if time_limit is not None and time_limit != time_limit_minutes(found):
            CampaignSettings.update(found, pool_time_limit_minutes=time_limit)
            session.add(AuditLog(actor="cli", campaign_id=found.id, action="campaign.pool_time_limit",
                                 target=found.name, reason=f"{time_limit:g} minutes (da-platform invite)"))
        click.echo(f"time limit per HIT: {time_limit_minutes(found):g} minutes", err=True)
        if names:
            labelled = mint_labelled_invites(session, Tokens(secret), public_url or context.settings.public_url,
                                             found.id, names, days)
        else:
            links = mint_invites(Tokens(secret), public_url or context.settings.public_url, found.id, count, days)
    if names:
        from analysis import csv_safety

        writer = csv_safety.writer(output)
        writer.writerow(["label", "link"])
        writer.writerows([csv_cell(label), link] for label, link in labelled)
        return
    for link in links:
        output.write(link + "\n")


def _labels(labels: tuple[str, ...], labels_file: Path | None, count: int) -> list[str]:
    """The names given with --label / --labels (checked), or [] for anonymous links."""
    from da_core.errors import InputError
    from da_platform.providers.pool.labels import check_labels, read_labels

    if labels and labels_file:
        raise click.UsageError("give names with --label or with --labels FILE, not both")
    try:
        names = read_labels(labels_file) if labels_file else list(labels)
        check_labels(names, str(labels_file) if labels_file else "--label")
    except InputError as error:
        raise click.ClickException(f"{error}\nno link was made") from None
    if names and count not in (1, len(names)):
        raise click.UsageError(f"--count {count} but {len(names)} names: with names, one link per name")
    return names


@click.group("pool")
def pool_group() -> None:
    """The lab's own pool: apply the review policy to every worker at once."""


@pool_group.command("review")
@click.argument("campaign", type=CAMPAIGN)
@review_options
@pass_context
def pool_review(context: CliContext, campaign: NamedCampaign, dry_run, bonus, reject_enabled, reject_min_pairs,
                reject_min_p, reject_identical_run, block_rejected, confirm_total) -> None:
    """Decide approve / reject / bonus / block for every finished own-pool assignment (as `mturk review`).

    The decisions are recorded and applied at once (nothing to send: pay own-pool workers outside the
    platform). --dry-run shows them and stores nothing. --confirm-total is not used here.
    """
    from da_platform.providers.money import amount_string
    from da_platform.review.pool_run import plan_pool, review_pool

    with context.sessions() as session:
        found = campaign.find(session)
        campaign_id = found.id
    policy = review_policy(context, campaign_id, bonus, reject_enabled, reject_min_pairs, reject_min_p,
                           reject_identical_run, block_rejected)
    with context.sessions() as session:
        planned = plan_pool(session, get_row(session, type(found), campaign_id), policy)
    for p in planned:
        amount = amount_string(p.amount) if p.amount is not None else ""
        click.echo(f"{p.action:8} {p.worker:>20} {'use' if p.use_data else 'exclude':8} {amount:>7}  {p.reason}")
    click.echo(f"{len(planned)} decision(s) for own-pool workers")
    if dry_run:
        click.echo("dry run: nothing was stored")
        return
    done = review_pool(context.sessions, campaign_id, policy, planned)
    click.echo(f"recorded and applied {done} decision(s)")
