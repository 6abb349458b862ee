"""CLI: ``da-platform simulate CAMPAIGN`` — rehearse one's own campaign on a copy before paying for it."""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, NamedCampaign
from da_platform.cli.progress import click_steps

BAD_KINDS_HELP = ("random, constant, bot (90-100 to everything), overlap (ROUGE-L of B against A + noise), "
                  "check-aware (overlap that spots repeats and rewrites), judge (chrF + noise), competent "
                  "(true quality with a person's noise: nothing catches it), ocr-overlap, rapidocr-overlap, "
                  "ocr-overlap-paced, rapidocr-overlap-paced (read the images by OCR), oracle-agent")


def _bad_workers(_ctx, _param, values: tuple[str, ...]) -> dict[str, int]:
    """``KIND=N`` options as {kind: N} (a kind given twice: the counts add up)."""
    counts: dict[str, int] = {}
    for value in values:
        kind, _, number = value.partition("=")
        if not kind or not number.isdigit():
            raise click.BadParameter(f"{value!r}: give KIND=N, e.g. random=2")
        counts[kind] = counts.get(kind, 0) + int(number)
    return counts


def _reward(value: str | None) -> tuple[str, str] | None:
    """``PROVIDER:AMOUNT``, the amount checked as money here, before any work."""
    from da_platform.providers.money import parse_amount

    if value is None:
        return None
    provider, _, amount = value.partition(":")
    if provider not in ("mturk", "prolific") or not amount:
        raise click.BadParameter(f"{value!r}: give PROVIDER:AMOUNT, e.g. mturk:2.00 or prolific:3.00")
    try:
        parse_amount(amount, field="the amount")
    except ValueError as error:
        raise click.BadParameter(f"{value!r}: {error}") from None
    return provider, amount


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--truth", default="metric:rouge-l", show_default=True, metavar="metric:NAME|labels:FILE",
              help="Each answer's true quality for the honest simulated workers: an automatic metric against the "
                   "references x 100 (metric:rouge-l, metric:chrf, metric:f1, metric:bleu-4, metric:meteor, ...) "
                   "or your own labels (labels:FILE: JSONL, CSV or TSV with system, id, quality 0-100).")
@click.option("--workers", type=click.IntRange(1, None), default=None,
              help="Honest simulated workers [default: enough for every assignment of every HIT].")
@click.option("--hits-per-worker", type=click.IntRange(1, None), default=None,
              help="HITs one honest worker takes [default: the campaign's maximum per worker].")
@click.option("--bad", "bad_workers", multiple=True, callback=_bad_workers, metavar="KIND=N",
              help=f"Add N bad workers of a kind (repeatable; each takes one HIT, arriving first): {BAD_KINDS_HELP}.")
@click.option("--reward", callback=lambda _c, _p, v: _reward(v), metavar="PROVIDER:AMOUNT",
              help="Price the real campaign at this reward per assignment, e.g. mturk:2.00 or prolific:3.00 "
                   "[default: the campaign's reward settings, which a launch stores].")
@click.option("--seed", default=1, show_default=True, help="Seed of the simulated crowd: the same seed gives the "
                                                           "same ratings.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Scratch folder for the copy, its images and the exports (emptied first) [default: "
                   "simulations/<campaign> in the instance folder].")
@click.option("--threads", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Simulated workers rating at the same time.")
@click.option("--images/--no-images", default=True, show_default=True,
              help="Let simulated workers download the answer images, as a browser does.")
@pass_context
def simulate(context: CliContext, campaign: NamedCampaign, truth: str, workers: int | None, hits_per_worker: int | None,
             bad_workers: dict[str, int], reward: tuple[str, str] | None, seed: int, out: Path | None, threads: int,
             images: bool) -> None:
    """Rehearse CAMPAIGN before paying for it: a simulated crowd on a copy, then the real analysis and exports.

    The campaign's test set, HITs, slots and images are copied into a scratch SQLite database (the live
    database, SQLite or PostgreSQL, is only read); its real worker pages are served on 127.0.0.1 and
    simulated honest workers (bias, scale use, noise; some on a phone), plus the bad workers asked for,
    rate through them over HTTP; then the campaign's own quality control, analysis and exports run on the
    copy. Prints, per kind of worker, how many quality control kept, flagged and excluded; whether the
    systems' true order was recovered and adjacent systems separate; the ratings per system; the cost of
    the real campaign at its reward settings (fees included); and where the exports are.
    """
    import requests

    from da_core.errors import InputError
    from da_platform.images.store import ImageStoreError, open_image_storage
    from da_platform.simulation.campaign_copy import CopyError
    from da_platform.simulation.crowd import CrowdError
    from da_platform.simulation.ocr import OcrUnavailable
    from da_platform.simulation.rehearsal import RehearsalError, RehearsalOptions, default_out, run_rehearsal
    from da_platform.simulation.truth import TruthError

    steps = click_steps()
    with context.sessions() as session:
        live = campaign.find(session)
        folder = out or default_out(context.settings.instance_path, live.name)
        options = RehearsalOptions(out=folder, truth=truth, honest=workers, hits_per_worker=hits_per_worker,
                                   bad_workers=bad_workers, seed=seed, threads=threads, fetch_images=images,
                                   reward=reward)
        try:
            store = open_image_storage(context.settings, engine=context.engine)
            outcome = run_rehearsal(session, live, store, options, steps)
        except OcrUnavailable as error:
            steps.done()
            raise click.ClickException(f"{error} (needed by the OCR bots)") from None
        except (CrowdError, requests.RequestException) as error:
            steps.done()
            raise click.ClickException(f"the simulated crowd stopped: {error}") from None
        except (RehearsalError, TruthError, InputError, CopyError, ImageStoreError) as error:
            steps.done()
            raise click.ClickException(str(error)) from None
    from da_platform.cli.simulate_report import print_report

    print_report(outcome)
