"""The report ``da-platform simulate`` prints: first how many bad workers of each kind were kept and the bad
workers' share of the campaign, then kept / flagged / excluded per kind, order, separation, ratings, cost, exports
and the commands that serve, analyse or export the copy."""
from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from da_platform.simulation.rehearsal import RehearsalOutcome


def print_report(outcome: RehearsalOutcome) -> None:
    """Print the rehearsal's findings (see the module docstring)."""
    from analysis.output import text_table
    from da_platform.simulation.text_raters import CROWD_KINDS

    echo = click.echo
    echo(f"\nRehearsal of campaign {outcome.campaign!r} on a copy ({outcome.database_url}); the live database "
         "was only read.")
    _lead(outcome)
    echo(f"Truth: {outcome.truth.describe()}.")
    echo(f"{outcome.ratings} ratings in {outcome.hits_rated} of the {outcome.places} assignments "
         f"({outcome.hits} HITs) of {len(outcome.ratings_by_system)} systems.")
    for line in outcome.merged:
        echo(f"  {line}")
    echo()

    echo(f"Quality control ({outcome.qc}), per kind of simulated worker:")
    width = max([len(k.kind) for k in outcome.kinds] + [4])
    echo(f"  {'kind':<{width}}  workers  kept  flagged  excluded  not judged")
    for k in sorted(outcome.kinds, key=lambda k: k.kind != "honest"):
        echo(f"  {k.kind:<{width}}  {k.workers:>7}  {k.kept:>4}  {k.flagged:>7}  {k.excluded:>8}  {k.unjudged:>10}"
             f"  ({CROWD_KINDS.get(k.kind, '')})")
        if k.why:
            echo(f"  {'':<{width}}  not kept because: " + ", ".join(f"{reason} {n}" for reason, n in k.why.items()))
    echo("  (kept: scored; flagged: left out for your review; excluded: failed a check; not judged: too few "
         "check pairs)")
    if outcome.idle:
        echo("  found no HIT left: " + ", ".join(f"{n} {kind}" for kind, n in outcome.idle.items()))
    if not any(k.kind == "honest" for k in outcome.kinds):
        bad = sum(k.workers for k in outcome.kinds)
        echo(f"  ✗ no honest simulated worker rated: {bad} bad worker(s) took the {outcome.places} assignment(s) "
             "first, so what follows shows bad workers only; ask for fewer with --bad")
    echo()

    group = outcome.group
    if group is not None and group.ranking.systems:
        echo("Human ranking on the copy (lines separate significance clusters):\n")
        echo(text_table(group), nl=False)
        echo()
    else:
        echo("No ranking on the copy: no system has ratings from a worker quality control kept.\n")
    truth = ", ".join(f"{s} {outcome.true_quality[s]:.1f}"
                      for s in sorted(outcome.true_quality, key=lambda s: -outcome.true_quality[s]))
    echo(f"True order (mean true quality of the answers shown): {truth}")
    echo(f"  {'✓' if outcome.order.held else '✗'} {outcome.order.statement}")
    echo(f"  {outcome.clusters} significance cluster(s) for {len(outcome.true_quality)} systems; adjacent systems "
         "in the true order:")
    for pair in outcome.separation:
        if pair.identical:
            echo(f"    {pair.better} = {pair.worse}: the same answers, rated once: the same ratings")
            continue
        p = "not ranked" if pair.pvalue is None else f"p = {pair.pvalue:.3g}"
        echo(f"    {pair.better} › {pair.worse}: {pair.true_difference:.1f} points apart, {p}, "
             f"{'separated' if pair.separated else 'NOT separated'}")

    if outcome.forecast:
        echo("  Forecast (people as real crowd workers rate, with their lapses): the chance that stopping after k of "
             f"the {outcome.places} assignments gives the clusters all of them give: "
             + ", ".join(f"k = {k}: {share:.0%}" for k, share in sorted(outcome.forecast.items())))


    echo("\nRatings per system (stored: every slot of the system; copies: ratings of its answers merged with "
         "another system's identical ones; scored: from workers kept):")
    name_width = max([len(row[0]) for row in outcome.ratings_by_system] + [6])
    echo(f"  {'system':<{name_width}}   stored   copies   scored")
    for system, stored, copies, scored in outcome.ratings_by_system:
        echo(f"  {system:<{name_width}}  {stored:>7}  {copies:>7}  {scored:>7}")

    if outcome.waves is not None:
        _print_waves(outcome)

    cost = outcome.cost
    if cost is None:
        echo(f"\nCost of the real campaign ({outcome.places} assignments): it has no reward settings yet (own pool, "
             "or not launched); --reward mturk:2.00 or --reward prolific:3.00 prices it with the provider's fees.")
    else:
        echo(f"\nCost of the real campaign: {cost.total} {cost.currency} on {cost.provider} for {outcome.places} "
             f"assignments ({cost.description}); bonuses not included.")

    echo(f"\nExports of the copy: {outcome.out / 'exports'}/ ({', '.join(p.name for p in outcome.exports) or 'none'})")
    for note in outcome.export_notes:
        echo(f"  note: {note}")
    echo(f"The copy on the dashboard: da-platform serve --rehearsal {shlex.quote(str(outcome.out))}")
    echo(f"  analysed or exported again: DA_DATABASE_URL={shlex.quote(outcome.database_url)} da-platform analyze "
         f"--campaign {shlex.quote(outcome.campaign)} --out {shlex.quote(str(outcome.out) + '-analysis')}  (or export "
         "... with the same DA_DATABASE_URL)")
    echo(", ".join(f"{step} {sec:.1f} s" for step, sec in outcome.seconds.items()))


def _lead(outcome: RehearsalOutcome) -> None:
    """What a researcher asks first: were the bad workers of each kind caught, were the honest ones kept, and was
    the crowd like a real one (the bad workers' share of the assignments)."""
    from da_platform.simulation.page_crowd import BAD_SHARE

    bad = [k for k in outcome.kinds if k.kind != "honest"]
    honest = [k for k in outcome.kinds if k.kind == "honest"]
    if bad:
        kept = sum(k.kept for k in bad)
        mark = "✗" if kept else "✓"
        click.echo(f"{mark} bad workers kept (scored as if honest): {kept} of {sum(k.workers for k in bad)}: "
                   + ", ".join(f"{k.kind} {k.kept} of {k.workers}" for k in bad)
                   + (f"; flagged for your review: {sum(k.flagged for k in bad)}" if any(k.flagged for k in bad)
                      else ""))
    else:
        click.echo("no bad workers asked for (--bad KIND=N adds them)")
    if honest:
        click.echo(f"  honest workers kept: {honest[0].kept} of {honest[0].workers}")
    if outcome.share.over_share:
        click.echo(f"warning: {outcome.share.describe()}, more than {100 * BAD_SHARE:.0f} %: the honest crowd is "
                   "smaller than a real campaign's would be (ask for fewer with --bad)")


def _print_waves(outcome: RehearsalOutcome) -> None:
    """A campaign in waves: the waves the copy ran, when it stopped, each pair's decision and the ratings spent."""
    from analysis.sequential import PairState

    status = outcome.waves
    assert status is not None
    record = status.record
    echo = click.echo
    echo(f"\nIn waves: {len(record.waves)} wave(s), {record.hits} of the fixed design's {record.reference_hits} HITs "
         f"({record.hits / record.reference_hits:.0%})" + (f"; stopped: {record.stopped}" if record.stopped else "")
         + (f"; ended: {outcome.waves_ended}" if outcome.waves_ended else ""))
    for wave in record.waves:
        echo(f"  wave {wave.wave}: {wave.hits} HITs, {wave.contention_share:.0%} of the ordinary slots for "
             + ", ".join(wave.contention))
    if status.decisions is not None:
        for pair in status.decisions.pairs:
            if pair.state is PairState.decided:
                echo(f"  {pair.first} › {pair.second}: decided at wave {pair.wave} (adjusted p {pair.pvalue:.3g})")
            else:
                more = "" if pair.more_ratings is None else f"; a decision would need about {pair.more_ratings} more " \
                                                            "ratings"
                echo(f"  {pair.first} / {pair.second}: {pair.state.value}{more}")
