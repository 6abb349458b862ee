"""CLI: ``decide``, one researcher's decision on one worker, as the dashboard's buttons take it.

The command parses its arguments, shows what would be recorded (``by_hand.plan``), asks for
confirmation and records it (``by_hand.record``): the same functions, tokens and effects as
the dashboard's confirmation page.
"""
from __future__ import annotations

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, WORKER, NamedCampaign, NamedWorker
from da_platform.review.actions import ACTIONS


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.argument("worker", type=WORKER)
@click.argument("action", type=click.Choice(list(ACTIONS)))
@click.option("--reason", required=True, help="Why (stored with the decision and in the audit log).")
@click.option("--amount", help="The bonus, an exact amount such as 0.50 (with ACTION bonus).")
@click.option("--yes", is_flag=True, help="Record without asking for confirmation.")
@pass_context
def decide(context: CliContext, campaign: NamedCampaign, worker: NamedWorker, action: str, reason: str,
           amount: str | None, yes: bool) -> None:
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
        found = campaign.find(session)
        person = worker.find(session, found)
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
