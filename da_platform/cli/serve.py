"""CLI: ``serve`` the worker pages for development.

Production does not use ``serve``; run the application factory under gunicorn (docs/deploy.md)::

    DA_SECRET_KEY=… DA_DATABASE_URL=… da-platform init
    gunicorn --worker-class gthread --workers 3 --threads 4 --bind 127.0.0.1:8000 "da_platform.web:create_app()"

Extension points (``serve --demo``, ``serve --rehearsal``): build the app with :func:`development_app` (extra
configuration in ``config``) and run it with :func:`run_development_server`; add the option to :func:`serve`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from da_platform.cli.context import CliContext, pass_context


def development_app(context: CliContext, config: dict[str, Any] | None = None):
    """The Flask app as ``serve`` runs it: migrated database, ``DA_ENV`` defaulting to development."""
    from da_platform.config.settings import Environment
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
@click.option("--rehearsal", "rehearsal_out", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="FOLDER", help="Serve the dashboard on the copy a `da-platform simulate` rehearsal left in "
                                     "FOLDER (its --out, which its report prints); the live database is not opened.")
@pass_context
def serve(context: CliContext, host: str, port: int, debug: bool, demo_out: Path | None,
          demo_folder: Path | None, rehearsal_out: Path | None) -> None:
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
    if rehearsal_out is not None:
        if demo_out is not None:
            raise click.UsageError("--rehearsal and --demo each name what to serve: give one")
        app = _rehearsal_app(rehearsal_out, host, port, context)
    elif demo_out is not None:
        app = _demo_app(demo_out, host, port, context)
    else:
        try:
            app = development_app(context)
        except RuntimeError as error:
            raise click.ClickException(str(error)) from None
    run_development_server(app, host, port, debug)


def _demo_app(out: Path, host: str, port: int, context: CliContext):
    """The app on the demo's database, after running the demo there if needed; prints the login."""
    from da_platform.simulation.demo import DEMO_ADMIN, DEMO_CAMPAIGN, demo_server_config
    from da_platform.web import create_app

    if not (out / "demo.sqlite").exists():
        click.echo(f"no demo in {out}/ yet: running `da-platform demo --out {out}` first", err=True)
        root = click.get_current_context().find_root()
        assert isinstance(root.command, click.Group)  # (the demo by its name: command modules import no other)
        demo = root.command.get_command(root, "demo")
        assert demo is not None
        try:
            demo.main(["--out", str(out)], standalone_mode=False)
        except SystemExit as stop:  # the demo's facts did not all hold: still worth looking at
            if stop.code:
                click.echo("the demo reported a problem (above); serving it anyway", err=True)
    config, password = demo_server_config(out)
    click.echo(f"dashboard: http://{host}:{port}/admin/  (user {DEMO_ADMIN}, password {password}); "
               f"campaign {DEMO_CAMPAIGN!r}")
    return create_app(config, settings=context.settings)


def _rehearsal_app(out: Path, host: str, port: int, context: CliContext):
    """The app on a rehearsal's copy (``simulation.sqlite`` and ``images/`` in ``out``); prints the login."""
    from da_platform.simulation.rehearsal import REHEARSAL_ADMIN, rehearsal_server_config
    from da_platform.web import create_app

    try:
        config, password = rehearsal_server_config(out)
    except FileNotFoundError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"dashboard of the rehearsal copy in {out}: http://{host}:{port}/admin/  (user {REHEARSAL_ADMIN}, "
               f"password {password})")
    return create_app(config, settings=context.settings)
