"""``validate-metrics``' additions: the few-systems warning and the item-level correlations
(``analysis.metrics.item_level``), printed and written beside the system-level table."""
from __future__ import annotations

from pathlib import Path

import click

from analysis import csv_safety
from da_platform.cli.context import CliContext
from da_platform.cli.params import NamedCampaign


def warn_if_few_systems(result) -> None:
    """Print the warning when the system-level table rests on too few systems."""
    from analysis.metrics.item_level import few_systems_warning

    rows = result.rows()
    best = rows[0]["r"] if rows else float("nan")
    warning = few_systems_warning(len(result.systems), float(best) if best is not None else float("nan"))
    if warning:
        click.echo(f"warning: {warning}", err=True)


def item_level_table(context: CliContext, campaign: NamedCampaign, corpora, metrics, out: Path) -> None:
    """Item-level correlations of the metrics with the campaign's human item z-scores."""
    from da_platform.results.metric_items import item_correlations

    with context.sessions() as session:
        table = item_correlations(session, campaign.find(session), corpora, metrics)
    if table is None:
        click.echo("item level: not enough data yet (no ratings kept after quality control)")
        return
    if not table:
        click.echo("item level: not enough data yet (fewer than 3 rated items)")
        return
    click.echo(f"\nitem level ({next(iter(table.values())).n} rated items: metric sentence score vs. human item z)")
    click.echo("| Metric | Pearson r | Spearman ρ | Kendall τ |\n|---|---:|---:|---:|")
    for name, c in sorted(table.items(), key=lambda kv: -kv[1].pearson if kv[1].pearson == kv[1].pearson else 0):
        click.echo(f"| {name} | {c.pearson:.3f} | {c.spearman:.3f} | {c.kendall:.3f} |")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "metric-validation-items.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv_safety.writer(f)
        writer.writerow(["metric", "n", "pearson", "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p"])
        for name, c in table.items():
            writer.writerow([name, c.n, repr(c.pearson), repr(c.pearson_p), repr(c.spearman), repr(c.spearman_p),
                             repr(c.kendall), repr(c.kendall_p)])
    click.echo(f"wrote {path}")
