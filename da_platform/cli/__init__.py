"""The ``da-platform`` command line: import → build → serve → collect → analyse → export.

A thin layer over the rooms below: a command parses its options, calls the room that does the work and
prints what came back. A new command goes in the module of its area here (a new area: a new module), is
added to :data:`main` below, and imports from the CLI only the shared modules ``context`` (settings and
database), ``params`` (a campaign, test set, system or worker by name or id), ``tables``, ``progress``,
``analyses`` (a campaign's analysis for the commands that analyse) and ``provider_options`` (what the
commands of the worker sources share: review options, money, confirming a cost), and what its own area keeps
beside it (``metric_options``, ``lifecycle_steps``): command modules never import each
other (an import-linter contract in pyproject.toml; CONTRIBUTING.md says more). Heavy libraries are imported
inside the commands so that ``--help`` stays quick.
"""
from __future__ import annotations

import click

from da_platform import __version__
from da_platform.cli import (
    admin,
    analyze,
    build,
    decide,
    demo,
    export,
    imports,
    inspect,
    instance,
    lifecycle,
    metrics,
    mturk,
    pool,
    prolific,
    reliability,
    results,
    serve,
    simulate,
    test_sets,
    validate_metrics,
    waves,
)
from da_platform.cli.context import CliContext


class _Commands(click.Group):
    """The command group: a campaign's stored settings that cannot be read end a command with an error
    naming the setting, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        from da_platform.config.stored_json import CampaignSettingsError

        try:
            return super().invoke(ctx)
        except CampaignSettingsError as error:
            raise click.ClickException(str(error)) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="da-platform")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Crowdsourced Direct Assessment (DA) of question-answering and other text systems.

    The database is $DA_DATABASE_URL, else a SQLite file in $DA_INSTANCE_PATH, else the one named by
    the nearest da-platform.ini in this folder or above (written by `init`), else ./instance.
    Only init, import and admin create-user create a database. `da-platform where` shows which.

    A campaign, test set or system is named by its name or by its id; a name that exists wins (a
    campaign named 7 is what 7 finds). A worker is named source:id as the exports print it, or by
    the id alone when no other worker of the campaign has it.
    """
    ctx.ensure_object(CliContext)


for _command in (
    instance.init, instance.where,
    imports.import_group, build.build_command, inspect.inspect_command,
    analyze.analyze, metrics.metrics_command, validate_metrics.validate_metrics_command,
    serve.serve, pool.invite, pool.pool_group, mturk.mturk, prolific.prolific,
    export.export, admin.admin, demo.demo, simulate.simulate,
    lifecycle.campaign_group, test_sets.test_set_group, test_sets.system_group,
    results.subsets, results.agreement_command, reliability.reliability, decide.decide, waves.waves_command,
):
    main.add_command(_command)
