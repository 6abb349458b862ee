"""``da-platform inspect``: a built campaign's summary and verification, one HIT's composition."""
from __future__ import annotations

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign
from da_platform.cli.tables import plain_table


@click.command("inspect")
@click.argument("campaign_name", type=CAMPAIGN)
@click.option("--hit", "hit_index", type=click.IntRange(min=0),
              help="Show the composition of HIT N (numbered from 0).")
@pass_context
def inspect_command(context: CliContext, campaign_name: NamedCampaign, hit_index: int | None) -> None:
    """Summarise a built campaign, verify its HITs, and show one HIT's composition as a table."""
    from da_core.errors import BuildError
    from da_platform.building.inspection import campaign_summary, hit_composition, verify_campaign
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.results.waves import design_lines
    from hit_builder.layouts import layout_named

    with context.sessions() as session:
        campaign = campaign_name.find(session)
        summary = campaign_summary(session, campaign)
        click.echo(f"campaign {summary.name!r} ({summary.status}) on test set {summary.test_set!r}")
        click.echo(f"criterion: {summary.criterion}: {summary.statement!r}; reference "
                   + ("shown" if summary.show_reference else "not shown"))
        click.echo(f"systems ({len(summary.systems)}): {', '.join(summary.systems)}")
        click.echo(f"seed {summary.seed}, {summary.passes} pass(es): {summary.hits} HITs, {summary.items} items; "
                   "ordinary ratings per item: "
                   + ", ".join(f"{n}×{count}" for n, count in summary.ratings_per_item.items()))
        click.echo(f"built for crowd: {summary.crowd or 'not recorded (built before crowd presets)'}")
        click.echo(CampaignSettings.of(campaign).worker.describe_language())
        click.echo(f"layout: {summary.layout}")
        for line in design_lines(CampaignSettings.of(campaign).waves):
            click.echo(line)
        click.echo("slots: " + ", ".join(f"{n} {t}" for t, n in summary.slots_by_type.items() if n or t != "MEANING")
                   + f"; {summary.images} distinct images; degradation: {summary.degradation}")
        try:
            checked = verify_campaign(session, campaign)
            click.echo(f"verified: all {checked} HITs hold {layout_named(summary.layout).composition()}, "
                       "each check in the partner half")
        except BuildError as error:
            raise click.ClickException(f"verification failed: {error}") from None
        if hit_index is not None:
            try:
                rows = hit_composition(session, campaign, hit_index)
            except BuildError as error:
                raise click.ClickException(str(error)) from None
            click.echo(f"\nHIT {hit_index}:")
            click.echo(plain_table(["position", "set", "type", "system", "question", "original"],
                              [[r.position, r.set_index, r.slot_type, r.system, r.question, r.original_position]
                               for r in rows]))
