"""CLI: ``serve`` the worker pages for development, and mint own-pool ``invite`` links.

Production does not use ``serve``; run the application factory under gunicorn (docs/deploy.md)::

    DA_SECRET_KEY=… DA_DATABASE_URL=… da-platform init
    gunicorn --worker-class gthread --workers 3 --threads 4 --bind 127.0.0.1:8000 "da_platform.web:create_app()"

Extension point (``serve --demo``): build the app with :func:`development_app` (extra configuration
in ``config``) and run it with :func:`run_development_server`; add the option to :func:`serve`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from da_platform.cli import CliContext, find_campaign, pass_context

COMMANDS: list[click.Command] = []


def development_app(context: CliContext, config: dict[str, Any] | None = None):
    """The Flask app as ``serve`` runs it: migrated database, ``DA_ENV`` defaulting to development."""
    from da_platform.settings import Environment
    from da_platform.web import create_app

    _ = context.engine  # creates or upgrades the schema
    return create_app(
        {
            "ENVIRONMENT": str(context.settings.environment or Environment.development),
            "DATABASE_URL": context.settings.database_url,
            **(config or {}),
        },
        settings=context.settings,
    )


def run_development_server(app, host: str, port: int, debug: bool) -> None:
    """Werkzeug's development server (threaded; reloader and debugger only with ``debug``)."""
    click.echo(f"serving on http://{host}:{port}/  (dashboard: http://{host}:{port}/admin/; development "
               "server: use gunicorn in production)")
    app.run(host=host, port=port, debug=debug, use_reloader=debug, threaded=True)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535), help="Port.")
@click.option("--debug", is_flag=True, help="Flask debugger and auto-reload (never on a public interface).")
@click.option("--demo", "demo_out", is_flag=False, flag_value="demo-output", default=None,
              type=click.Path(file_okay=False, path_type=Path), metavar="[FOLDER]",
              help="Serve the dashboard on the demo campaign in FOLDER [default: demo-output], running "
                   "`da-platform demo` first if it has not been run there.")
@click.option("--out", "demo_folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="With --demo: the demo's folder (as `da-platform demo --out FOLDER`).")
@pass_context
def serve(context: CliContext, host: str, port: int, debug: bool, demo_out: Path | None,
          demo_folder: Path | None) -> None:
    """Serve the worker pages for development.

    Without $DA_SECRET_KEY a random key is used, so links stop working when the server restarts and
    invite links from `da-platform invite` (which needs the key) do not match. For production run
    the application under gunicorn as docs/deploy.md shows.
    """
    if debug and host not in ("127.0.0.1", "localhost", "::1"):
        raise click.ClickException("--debug exposes an interactive debugger: use it on 127.0.0.1 only")
    if demo_folder is not None:
        if demo_out is None:
            raise click.UsageError("--out names the demo's folder: use it with --demo")
        demo_out = demo_folder
    if demo_out is not None:
        app = _demo_app(demo_out, host, port, context)
    else:
        try:
            app = development_app(context)
        except RuntimeError as error:
            raise click.ClickException(str(error)) from None
    run_development_server(app, host, port, debug)


def _demo_app(out: Path, host: str, port: int, context: CliContext):
    """The app on the demo's database, after running the demo there if needed; prints the login."""
    from da_platform.demo import DEMO_ADMIN, DEMO_CAMPAIGN, demo_server_config
    from da_platform.web import create_app

    if not (out / "demo.sqlite").exists():
        click.echo(f"no demo in {out}/ yet: running `da-platform demo --out {out}` first", err=True)
        from da_platform.cli.demo import demo

        try:
            demo.main(["--out", str(out)], standalone_mode=False)
        except SystemExit as stop:  # the demo's facts did not all hold: still worth looking at
            if stop.code:
                click.echo("the demo reported a problem (above); serving it anyway", err=True)
    config, password = demo_server_config(out)
    click.echo(f"dashboard: http://{host}:{port}/admin/  (user {DEMO_ADMIN}, password {password}); "
               f"campaign {DEMO_CAMPAIGN!r}")
    return create_app(config, settings=context.settings)


@click.command()
@click.argument("campaign")
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
def invite(context: CliContext, campaign: str, count: int, days: float, public_url: str | None,
           open_campaign: bool, time_limit: float | None, output, labels: tuple[str, ...],
           labels_file: Path | None) -> None:
    """Mint invite links to CAMPAIGN for the lab's own pool (one anonymous worker per link).

    Links are signed with $DA_SECRET_KEY, which must be the server's key. Following a link again
    resumes the person's task, or gives them their next HIT up to the campaign's limit. A HIT left
    unfinished past the time limit goes to the next person who arrives.
    """
    from da_platform.db import transaction
    from da_platform.models import AuditLog
    from da_platform.sources.invite_labels import csv_cell, mint_labelled_invites
    from da_platform.sources.pool import TIME_LIMIT_SETTING, PoolSource, mint_invites
    from da_platform.sources.time_limits import time_limit_seconds
    from da_platform.sources.tokens import Tokens

    def time_limit_minutes(found) -> float:
        return (time_limit_seconds(PoolSource.name, found.settings) or 0) / 60

    secret = context.settings.secret_key
    if not secret:
        raise click.ClickException("DA_SECRET_KEY is not set: invite links are signed with the server's key")
    names = _labels(labels, labels_file, count)
    with transaction(context.sessions) as session:
        found = find_campaign(session, campaign)
        _ready_for_links(session, found, open_campaign)
        if time_limit is not None and time_limit != time_limit_minutes(found):
            found.settings = {**(found.settings or {}), TIME_LIMIT_SETTING: time_limit}
            session.add(AuditLog(actor="cli", campaign_id=found.id, action="campaign.pool_time_limit",
                                 target=campaign, reason=f"{time_limit:g} minutes (da-platform invite)"))
        click.echo(f"time limit per HIT: {time_limit_minutes(found):g} minutes", err=True)
        if names:
            labelled = mint_labelled_invites(session, Tokens(secret), public_url or context.settings.public_url,
                                             found.id, names, days)
        else:
            links = mint_invites(Tokens(secret), public_url or context.settings.public_url, found.id, count, days)
    if names:
        import csv

        writer = csv.writer(output, lineterminator="\n")
        writer.writerow(["label", "link"])
        writer.writerows([csv_cell(label), link] for label, link in labelled)
        return
    for link in links:
        output.write(link + "\n")


def _ready_for_links(session, campaign, open_campaign: bool) -> None:
    """Refuse links that could never work (a closed campaign), open a built campaign with --open, and
    warn when the links work only later (built without --open, paused)."""
    from da_platform.models import AuditLog, CampaignStatus

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


def _labels(labels: tuple[str, ...], labels_file: Path | None, count: int) -> list[str]:
    """The names given with --label / --labels (checked), or [] for anonymous links."""
    from da_core.errors import InputError
    from da_platform.sources.invite_labels import check_labels, read_labels

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


COMMANDS.extend([serve, invite])
