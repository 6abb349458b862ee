"""CLI: ``decide``, one researcher's decision on one worker, as the dashboard's buttons take it.

The command parses its arguments, shows what would be recorded (``by_hand.plan``), asks for
confirmation and records it (``by_hand.record``): the same functions, tokens and effects as
the dashboard's confirmation page.
"""
from __future__ import annotations

import click

from da_platform.cli import CliContext, find_campaign, pass_context
from da_platform.review.actions import ACTIONS

COMMANDS: list[click.Command] = []


def _worker(session, campaign, name: str):
    """The campaign's worker called ``name`` (``source:id`` as in exports, or the id alone if unique)."""
    from sqlalchemy import select

    from da_platform.db.models import Assignment, Hit, Worker
    from da_platform.rating.campaign_ratings import worker_label

    workers = list(session.scalars(
        select(Worker).join(Assignment, Assignment.worker_id == Worker.id).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id).distinct().order_by(Worker.id)))
    matches = [w for w in workers if name in (worker_label(w.source, w.external_id), w.external_id)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(worker_label(w.source, w.external_id) for w in matches)
        raise click.ClickException(f"{name!r} names several workers of campaign {campaign.name!r} ({names}): "
                                   "give it as source:id")
    raise click.ClickException(f"no worker {name!r} in campaign {campaign.name!r} (name one as source:id, "
                               "as in the exports)")


@click.command()
@click.argument("campaign")
@click.argument("worker")
@click.argument("action", type=click.Choice(list(ACTIONS)))
@click.option("--reason", required=True, help="Why (stored with the decision and in the audit log).")
@click.option("--amount", help="The bonus, an exact amount such as 0.50 (with ACTION bonus).")
@click.option("--yes", is_flag=True, help="Record without asking for confirmation.")
@pass_context
def decide(context: CliContext, campaign: str, worker: str, action: str, reason: str, amount: str | None,
           yes: bool) -> None:
    """Take ACTION on WORKER's work in CAMPAIGN, as the dashboard's buttons do.

    ACTION: approve_use (pay, use the ratings), approve_exclude (pay, leave the ratings out), reject
    (do not pay; excludes), bonus (with --amount), block. Own-pool decisions take effect at once;
    MTurk and Prolific ones are sent by the next `da-platform mturk|prolific review`.
    """
    import secrets

    from sqlalchemy.exc import IntegrityError

    from da_platform.review.by_hand import DecisionError, plan, record

    if amount is not None and action != "bonus":
        raise click.UsageError("--amount is for ACTION bonus")
    with context.sessions() as session:
        found = find_campaign(session, campaign)
        person = _worker(session, found, worker)
        try:
            proposal = plan(session, found, person, action, amount=amount, reason=reason.strip(),
                            nonce=secrets.token_hex(8))
            for row in proposal.planned:
                click.echo(f"{row.action} {row.worker} {row.provider_assignment_id or row.assignment_id or '-'} "
                           f"{'use' if row.use_data else 'exclude'} {row.amount if row.amount is not None else ''}")
            for note in proposal.notes:
                click.echo(f"note: {note}")
            if not yes:
                click.confirm(f"Record {ACTIONS[action].label} ({len(proposal.planned)} decision(s))?", abort=True)
            rows = record(session, found, proposal, actor="cli")
            session.commit()
        except DecisionError as error:
            session.rollback()
            raise click.ClickException(f"nothing recorded: {error}") from None
        except IntegrityError:
            session.rollback()
            raise click.ClickException("nothing recorded: this decision was recorded already") from None
        for decision in rows:
            click.echo(f"recorded decision {decision.id}: {decision.action} {decision.status}"
                       + (f" ({decision.outcome})" if decision.outcome else ""))


COMMANDS.append(decide)
