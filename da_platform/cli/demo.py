"""CLI: ``da-platform demo`` — a whole simulated campaign on the embedded default, in one command."""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.building.crowds import DEFAULT_CROWD, PRESETS, Crowd, choose, render_kind
from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.progress import click_steps
from da_platform.cli.progress import progress_lines as progress_lines  # (tests and scripts import it from here)


@click.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("demo-output"),
              show_default=True, help="Folder for the demo database, images and report (emptied first).")
@click.option("--questions", type=click.IntRange(10, None), default=None,
              help="Size: how many of the sample's questions to use [default: all 300].")
@click.option("--seed", default=1, show_default=True, help="Seed for the build and the simulated crowd: "
                                                           "the same seed gives the same ratings.")
@click.option("--criterion", type=click.Choice(["adequacy", "fluency"]), default="adequacy", show_default=True)
@click.option("--honest", type=click.IntRange(1, None), default=None,
              help="Honest workers [default: enough for every HIT].")
@click.option("--random", "random_", type=click.IntRange(0, None), default=2, show_default=True,
              help="Random clickers. Unless --random, --constant, --bots, --ocr-bots or --agents is given, the "
                   "default bad workers are made fewer for a small campaign, to take a third of its HITs at most.")
@click.option("--constant", type=click.IntRange(0, None), default=2, show_default=True,
              help="Workers who give every answer the same score.")
@click.option("--bots", type=click.IntRange(0, None), default=2, show_default=True,
              help="Fast bot-like workers who rate everything 90-100 %.")
@click.option("--ocr-bots", type=click.IntRange(0, None), default=0, show_default=True,
              help="Bots that read the answer images with Tesseract and score by text overlap (ocr-overlap).")
@click.option("--agents", type=click.IntRange(0, None), default=0, show_default=True,
              help="Scripted agents that know each answer's true quality (oracle-agent): no input events, "
                   "regular timing.")
@click.option("--crowd", type=click.Choice([c.value for c in Crowd]), default=DEFAULT_CROWD.value, show_default=True,
              help="The crowd preset the campaign is built for, as `da-platform build --crowd` (the same default): "
                   "its layout, render and quality-control test, each overridable below.")
@click.option("--layout", type=click.Choice(["classic", "hardened", "targeted"]), default=None,
              help="HIT layout [default: the crowd's] (hardened adds meaning-change checks; targeted makes the checks "
                   "of the answers closest to and furthest from the reference).")
@click.option("--render", "render", type=click.Choice(["plain", "hardened"]), default=None,
              help="Answer images (hardened: drawn to resist OCR) [default: plain unless --ocr-bots, which read "
                   "them; the crowd's, hardened for paid, take several times as long to draw].")
@click.option("--qc", "qc_method", type=click.Choice(["weighted", "pooled", "wilcoxon"]), default=None,
              help="Quality-control test [default: the crowd's].")
@click.option("--hits-per-worker", type=click.IntRange(1, None), default=3, show_default=True,
              help="How many HITs one honest worker may do.")
@click.option("--threads", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Simulated workers rating at the same time.")
@click.option("--images/--no-images", default=True, show_default=True,
              help="Let simulated workers download the answer images, as a browser does.")
@pass_context
def demo(context: CliContext, out: Path, questions: int | None, seed: int, criterion: str, honest: int | None,
         random_: int, constant: int, bots: int, ocr_bots: int, agents: int, crowd: str, layout: str | None,
         render: str | None, qc_method: str | None, hits_per_worker: int, threads: int, images: bool) -> None:
    """Run a whole simulated campaign and print the human ranking.

    On a fresh SQLite database in --out and the bundled sample data: build a campaign, serve the
    worker pages on 127.0.0.1, let a simulated crowd (honest workers plus random, constant and
    bot-like ones, and on request OCR text-overlap bots and scripted agents) rate through them over HTTP, then run
    quality control and the analysis. Prints
    the ranking, the QC summary, where the report went, and checks that the bad workers were caught
    and the systems' known order recovered (exit status 1 if not).
    """
    from analysis.output import text_table
    from da_platform.simulation.demo import CROWD_KIND_DESCRIPTIONS, DemoError, DemoOptions, run_demo

    given = click.get_current_context().get_parameter_source
    default_crowd = all(given(name) is not click.core.ParameterSource.COMMANDLINE
                        for name in ("random_", "constant", "bots", "ocr_bots", "agents"))
    plain = render is None and not ocr_bots and render_kind(PRESETS[Crowd(crowd)].render) != "plain"
    preset = choose(crowd, layout=layout, render="plain" if plain else render, qc=qc_method)
    options = DemoOptions(out=out, questions=questions, seed=seed, criterion=criterion,
                          bad_workers={"random": random_, "constant": constant, "bot": bots, "ocr-overlap": ocr_bots,
                                       "oracle-agent": agents}, honest=honest,
                          hits_per_worker=hits_per_worker, threads=threads, fetch_images=images,
                          layout=preset.layout, render=render_kind(preset.render),
                          font_paths=context.settings.font_paths,
                          fit_crowd=default_crowd, preset=preset)
    steps = click_steps()
    done = steps.done
    import requests

    from da_core.errors import BuildError
    from da_platform.simulation.crowd import CrowdError
    from da_platform.simulation.ocr import OcrUnavailable

    try:
        outcome = run_demo(options, steps)
    except OcrUnavailable as error:
        done()
        raise click.ClickException(f"{error} (needed by --ocr-bots)") from None
    except (CrowdError, requests.RequestException) as error:
        done()
        raise click.ClickException(f"the simulated crowd stopped: {error}") from None
    except (DemoError, BuildError) as error:
        done()
        raise click.ClickException(str(error)) from None

    group = outcome.group
    default = crowd == DEFAULT_CROWD.value
    click.echo(f"\nbuilt for crowd {preset.describe()}"
               + (": build's default, as a campaign for MTurk or Prolific gets it" if default and not preset.overrides
                  else ": build's default, except the images" if default and plain and preset.overrides == {
                      "render": "plain"} else "")
               + (f"; drawn plain, as no simulated worker here reads them by OCR: {crowd}'s OCR-resistant ones take "
                  "several times as long to draw (--render hardened or --ocr-bots draws them)" if plain else ""))
    for note in outcome.notes:
        click.echo(f"\n{note if note.startswith('warning') else 'note: ' + note}")
    click.echo(f"\nHuman ranking, {outcome.campaign} ({criterion}; lines separate significance clusters):\n")
    click.echo(text_table(group), nl=False)
    click.echo(f"\nQuality control ({outcome.result.settings.qc.policy.method}, pass when p < "
               f"{outcome.result.settings.qc.policy.alpha}):")
    verdicts = {w.worker: w for w in group.qc.workers}
    for kind, description in CROWD_KIND_DESCRIPTIONS.items():
        names = [w for w, k in outcome.workers.items() if k == kind and w in verdicts]
        if names:
            passed = sum(verdicts[w].passed for w in names)
            # kept: the combined verdict (the checks and the behaviour and content signals), what is scored
            kept = sum(group.verdicts[w].kept if w in group.verdicts else verdicts[w].passed for w in names)
            click.echo(f"  {kind:<12} {len(names):>3} workers, {passed:>3} passed the checks, {kept:>3} kept  "
                       f"({description})")
    click.echo(f"\n{outcome.ratings} ratings over {outcome.hits_rated} of {outcome.hits} HITs; "
               + ", ".join(f"{step} {sec:.1f} s" for step, sec in outcome.seconds.items()))
    report = out.resolve() / "report"
    click.echo(f"report and plots: {report}/ (analysis.json, system-scores.csv, qc-workers.csv, "
               "ranking tables, p-value heatmap, ranking plot, WMT files)")
    click.echo(f"database: {outcome.database_url}   (browse it: da-platform serve --demo --out {out})\n")
    for fact in outcome.facts:
        click.echo(f"  {'✓' if fact.held else '✗'} {fact.statement}")
    if not all(fact.held for fact in outcome.facts):
        raise SystemExit(1)
