"""``da-platform waves``: a campaign in waves, its decisions so far, and the next wave (docs/method.md §12)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign
from da_platform.cli.tables import plain_table

if TYPE_CHECKING:
    from da_platform.results.waves import WaveStatus


def _show(status: WaveStatus) -> None:
    from da_platform.results.waves import design_lines

    record = status.record
    for line in design_lines(record):
        click.echo(line)
    rows = [[w.wave, f"{w.first_hit}-{w.first_hit + w.hits - 1}", w.hits,
             f"{w.contention_share:.0%}", ", ".join(w.contention),
             w.look.taken_at[:19] if w.look else ("now (provisional)" if status.provisional else "-")]
            for w in record.waves]
    click.echo(plain_table(["wave", "HIT numbers", "HITs", "contention share", "in contention", "look"], rows))
    if status.decisions is None:
        click.echo("no ranking yet: the first wave needs ratings")
        return
    click.echo(("final decisions" if status.decisions.final else "decisions so far"
                + (" (the latest look is provisional)" if status.provisional else "")) + ":")
    pairs = sorted(status.decisions.pairs, key=lambda p: (p.state.value, p.first, p.second))
    click.echo(plain_table(
        ["pair", "state", "wave", "better", "adjusted p", "needed p", "information", "more ratings", "cond. power"],
        [[f"{p.first} / {p.second}", p.state.value, p.wave or "", p.better or "",
          _p(p.pvalue), _p(p.nominal),
          f"{p.fraction:.0%}", "" if p.more_ratings is None else p.more_ratings,
          "" if p.conditional_power is None else f"{p.conditional_power:.2f}"] for p in pairs]))
    if status.plan is not None:
        plan = status.plan
        if plan.stop is not None:
            click.echo(f"next: stop ({plan.stop.value})")
        else:
            shares = ", ".join(f"{s} {w:.0%}" for s, w in plan.shares.items())
            click.echo(f"next: wave {plan.wave}, {plan.hits} HITs; ordinary slots: {shares}")
    if status.projected_hits is not None:
        cost = status.projected_cost
        click.echo(f"projected to decide the open pairs: about {status.projected_hits} more HITs"
                   + (f", {cost.currency} {cost.total} ({cost.provider})" if cost is not None else ""))


def _p(value: float | None) -> str:
    """A p-value as the table shows it: 3 significant digits, an underflow as < 1e-16, none as blank."""
    if value is None:
        return ""
    return "< 1e-16" if value < 1e-16 else f"{value:.3g}"


@click.command("waves")
@click.argument("campaign_name", type=CAMPAIGN)
@click.option("--next", "add_next", is_flag=True,
              help="Take the look now, plan the next wave and add its HITs (or record that the campaign stops).")
@click.option("--force", is_flag=True, help="With --next: take the look although the latest wave is not finished.")
@click.option("--images", "image_folder", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the answer images when $DA_IMAGE_STORE is folder [default: as build's].")
@click.option("--processes", type=click.IntRange(min=1), help="Rendering processes for the new wave's images.")
@pass_context
def waves_command(context: CliContext, campaign_name: NamedCampaign, add_next: bool, force: bool,
                  image_folder: Path | None, processes: int | None) -> None:
    """A campaign in waves: its waves, each pair's sequential decision, what is undecided and what deciding it
    would likely cost; with --next, the next wave."""
    from da_core.errors import BuildError
    from da_platform.db.engine import transaction
    from da_platform.images.store import ImageStoreError, open_image_storage
    from da_platform.operations.waves import next_wave, provider_steps
    from da_platform.results.waves import wave_status
    from hit_builder.storage import StoreUnavailable

    if not add_next:
        with context.sessions() as session:
            status = wave_status(session, campaign_name.find(session))
            if status is None:
                raise click.ClickException(f"campaign {campaign_name.given!r} has the fixed design (build --design "
                                           "waves runs a campaign in waves)")
            _show(status)
        return
    try:
        storage = open_image_storage(context.settings, folder=image_folder)
    except ImageStoreError as error:
        raise click.ClickException(str(error)) from None
    try:
        with transaction(context.sessions) as session:
            campaign = campaign_name.find(session)
            step = next_wave(session, campaign, storage=storage, force=force, processes=processes)
            steps = provider_steps(session, campaign, step.added) if step.added is not None else []
    except (BuildError, StoreUnavailable) as error:
        raise click.ClickException(f"{error}\nnothing was changed") from None
    _show(step.status)
    if step.added is None:
        stop = step.plan.stop.value if step.plan.stop else "nothing to add"
        click.echo(f"campaign {campaign_name.given!r} stops: {stop}")
        return
    added = step.added
    click.echo(f"added wave {added.wave}: {added.hits} HITs ({added.first_hit}-{added.first_hit + added.hits - 1})")
    for line in steps:
        click.echo(line)
