"""``da-platform export ranking|ratings|wmt|bundle``.

The exports are the dashboard's (``da_platform.exports.files``): an empty campaign is refused, an
unfinished one unless ``--partial`` is given, and then the files say so.
"""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign

PARTIAL_HELP = "Export an unfinished campaign anyway (the files are marked 'unfinished: k of n HITs')."


def _export(context: CliContext, kind: str, named: NamedCampaign, out: Path, **options) -> None:
    from da_platform.exports import files as exports

    with context.sessions() as session:
        campaign = named.find(session)
        try:
            if kind == "bundle":  # long for large campaigns: a progress bar over its steps
                made = _bundle_with_progress(session, campaign, **options)
            else:
                made = getattr(exports, kind)(session, campaign, **options)
        except exports.ExportError as error:
            raise click.ClickException(str(error)) from None
    for note in made.notes:
        click.echo(f"note: {note}", err=True)
    if kind == "wmt" and out.suffix != ".zip":
        import io
        import zipfile

        out.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(io.BytesIO(made.content)) as archive:
            archive.extractall(out)
            names = archive.namelist()
        click.echo(f"wrote {len(names)} WMT files to {out}/")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(made.content)
    click.echo(f"wrote {out} ({len(made.content)} bytes)")


def _bundle_with_progress(session, campaign, **options):
    """``exports.bundle`` with a progress bar on stderr, one step per :data:`exports.BUNDLE_STEPS`."""
    import sys

    from da_platform.exports import files as exports

    with click.progressbar(length=len(exports.BUNDLE_STEPS), label="bundle", file=sys.stderr,
                           item_show_func=lambda step: step or "") as bar:
        def progress(step: str) -> None:
            index = exports.BUNDLE_STEPS.index(step)
            bar.update(index - bar.pos, step)

        made = exports.bundle(session, campaign, progress=progress, **options)
        bar.update(len(exports.BUNDLE_STEPS) - bar.pos, "done")
    return made


_partial = click.option("--partial", is_flag=True, help=PARTIAL_HELP)


@click.group()
def export() -> None:
    """Export a campaign's ranking, ratings, WMT files or reproducibility bundle."""


@export.command("ranking")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--out", "-o", type=click.Path(path_type=Path), required=True, help="File to write.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "latex"]), default=None,
              help="Default: from the file name (.csv, .json, .tex), else csv.")
@_partial
@pass_context
def export_ranking(context: CliContext, campaign: NamedCampaign, out: Path, fmt: str | None, partial: bool) -> None:
    """The human ranking (System | raw | z | N | n, clusters) as CSV, JSON or LaTeX."""
    fmt = fmt or {".json": "json", ".tex": "latex"}.get(out.suffix.lower(), "csv")
    _export(context, "ranking", campaign, out, fmt=fmt, partial=partial)


def _file_export(kind: str, help_text: str, out_help: str = "File to write.") -> click.Command:
    """``da-platform export <kind> CAMPAIGN --out PATH [--partial]``."""
    @click.argument("campaign", type=CAMPAIGN)
    @click.option("--out", "-o", type=click.Path(path_type=Path), required=True, help=out_help)
    @_partial
    @pass_context
    def command(context: CliContext, campaign: NamedCampaign, out: Path, partial: bool) -> None:
        _export(context, kind, campaign, out, partial=partial)

    command.__doc__ = help_text
    return export.command(kind)(command)


@export.command("ratings")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--out", "-o", type=click.Path(path_type=Path), required=True, help="File to write.")
@click.option("--with-texts", is_flag=True, help="Add the question, reference, candidate and check type of each "
                                                 "rating (for error analysis; still readable by 'analyze').")
@_partial
@pass_context
def export_ratings(context: CliContext, campaign: NamedCampaign, out: Path, with_texts: bool, partial: bool) -> None:
    """Every rating as the platform's long CSV (readable by 'da-platform analyze')."""
    _export(context, "ratings", campaign, out, partial=partial, with_texts=with_texts)


_file_export("wmt", "The WMT release files: ad-sys-scores, ad-seg-scores, adwilcox, clusters.",
             "Folder to write the files into, or a .zip file.")
_file_export("bundle", "A reproducibility zip: settings, seed, HIT composition, degradation, QC, exclusions, "
                       "versions, results.")
