"""``da-platform build``: a campaign from an imported test set (HITs, degraded answers, images)."""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from analysis.qc_policy import QC_METHODS
from da_platform.building.crowds import DEFAULT_CROWD, PRESETS, Crowd
from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import TEST_SET, NamedTestSet
from hit_builder.layouts import LAYOUTS
from hit_builder.ocr_resistant import RENDER_STYLES

if TYPE_CHECKING:
    from analysis.sequential_plan import WaveDesign
    from da_platform.building.build import BuildSpec
    from da_platform.building.crowds import CrowdChoice
    from da_platform.config.campaign_settings import CampaignSettings
    from hit_builder.storage import ImageStorage
    from hit_builder.worker_settings import WorkerPageOptions


def spec_options(command: Callable) -> Callable:
    """--test-set, --name and how the HITs are assembled, passed to ``command`` as one ``spec: BuildSpec`` (its
    test set the name or id given, found by the builder; its worker pages and crowd parts set by the command)."""
    options = [
        click.option("--test-set", "test_set", type=TEST_SET, required=True, help="Name of the imported test set."),
        click.option("--name", required=True, help="Name of the new campaign."),
        click.option("--criterion", type=click.Choice(["adequacy", "fluency", "custom"]), default="adequacy",
                     show_default=True, help="What workers judge (custom: give --statement and a reference flag)."),
        click.option("--statement", help="The statement workers rate, for --criterion custom."),
        click.option("--show-reference/--hide-reference", default=None,
                     help="Whether a custom criterion shows the reference as Answer A."),
        click.option("--systems", help="Comma-separated system names [default: every system of the test set]."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of the HIT assembly and degradation."),
        click.option("--passes", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Passes over the items (more ratings per item)."),
        click.option("--max-hits-per-worker", type=click.IntRange(min=1), default=1, show_default=True,
                     help="How many HITs of this campaign one worker may take."),
        click.option("--merge-identical/--no-merge-identical", default=True, show_default=True,
                     help="Rate an answer that several systems gave to the same question once, and count the "
                          "rating for each of them (as WMT did)."),
        click.option("--allow-missing", is_flag=True,
                     help="Leave out the items of systems that abstain on a question (imported with "
                          "--allow-missing) instead of refusing to build."),
        click.option("--id-salt", help="Salt of the public ids, to reproduce an earlier build exactly "
                                       "[default: random, stored with the campaign]."),
    ]

    @functools.wraps(command)
    def with_spec(*args, test_set: NamedTestSet, name: str, criterion: str, statement: str | None,
                  show_reference: bool | None, systems: str | None, seed: int, passes: int, max_hits_per_worker: int,
                  id_salt: str | None, merge_identical: bool, allow_missing: bool, **kwargs):
        from da_platform.building.build import BuildSpec

        spec = BuildSpec(name=name, test_set=test_set.given, criterion=criterion, statement=statement,
                         show_reference=show_reference, seed=seed, passes=passes,
                         max_hits_per_worker=max_hits_per_worker,
                         systems=[s.strip() for s in systems.split(",") if s.strip()] if systems else None,
                         id_salt=id_salt, merge_identical=merge_identical, allow_missing=allow_missing)
        return command(*args, spec=spec, **kwargs)

    return _with_options(with_spec, options)


def drawing_options(command: Callable) -> Callable:
    """Fonts, where the images go and how many processes draw them: ``fonts``, ``image_folder``, ``processes``
(the fonts default to $DA_FONT's, which only the command knows)."""
    return _with_options(command, [
        click.option("--font", "fonts", multiple=True,
                     help="Font file (path, or path#face for a .ttc); repeat for a fallback chain "
                          "[default: $DA_FONT, else Noto Sans CJK SC then DejaVu Sans]."),
        click.option("--images", "image_folder", type=click.Path(file_okay=False, path_type=Path),
                     help="Folder for the answer images when $DA_IMAGE_STORE is folder (the default) "
                          "[default: $DA_IMAGE_FOLDER or INSTANCE/images]; $DA_IMAGE_STORE=database or s3 "
                          "writes them to the database or the object store instead."),
        click.option("--processes", type=click.IntRange(min=1), help="Rendering processes [default: all cores "
                                                                      "for large campaigns]."),
    ])


def worker_page_options(command: Callable) -> Callable:
    """--lang and the other options of the worker pages, passed to ``command`` as one ``worker:
    WorkerPageOptions`` with the files they name read (one that cannot be read: nothing is built)."""
    options = [
        click.option("--lang", default="en", show_default=True,
                     help="Language of the worker pages: en or zh-Hans (shipped), or any tag with --messages."),
        click.option("--messages", "messages_file", type=click.Path(dir_okay=False, path_type=Path),
                     help="PO catalogue of the worker pages for a language not shipped (start from "
                          "da_platform/rating/translations/worker.pot)."),
        click.option("--instructions", "instructions_file", type=click.Path(dir_okay=False, path_type=Path),
                     help="Your own instruction text (Markdown, shown escaped) above the standard instructions."),
        click.option("--contact", help="Contact line shown in the instructions (e.g. an e-mail address)."),
        click.option("--pay", help="Pay shown in the instructions, e.g. '2.00 USD' [default: from the campaign's "
                                   "MTurk or Prolific settings when known]."),
        click.option("--minutes", type=click.IntRange(min=1),
                     help="Expected time in minutes shown in the instructions."),
        click.option("--example", "example_file", type=click.Path(dir_okay=False, path_type=Path),
                     help="Example item (JSON: question, reference, good, bad, good_note, bad_note) "
                          "[default: the shipped one for en and zh-Hans, adequacy and fluency]."),
        click.option("--practice/--no-practice", default=False, show_default=True,
                     help="Let workers rate the example's answers for practice before the HIT (never stored)."),
        click.option("--show-context/--hide-context", default=False, show_default=True,
                     help="Let workers open each question's context passage (collapsed by default)."),
    ]

    @functools.wraps(command)
    def with_worker_pages(*args, lang: str, messages_file: Path | None, instructions_file: Path | None,
                          contact: str | None, pay: str | None, minutes: int | None, example_file: Path | None,
                          practice: bool, show_context: bool, **kwargs):
        from da_core.errors import BuildError, InputError
        from hit_builder.worker_settings import WorkerPageOptions, read_example

        try:
            worker = WorkerPageOptions(
                lang=lang, instructions=_read_text(instructions_file) if instructions_file else None,
                contact=contact, pay=pay, minutes=minutes,
                example=read_example(example_file) if example_file else None, practice=practice,
                show_context=show_context, messages=_read_messages(messages_file) if messages_file else None)
        except (BuildError, InputError) as error:
            raise _nothing_built(error) from None
        return command(*args, worker=worker, **kwargs)

    return _with_options(with_worker_pages, options)


def crowd_options(command: Callable) -> Callable:
    """--crowd and the parts of its preset set by hand, passed to ``command`` as one ``crowd: CrowdChoice``."""
    options = [
        click.option("--crowd", type=click.Choice([c.value for c in Crowd]), default=DEFAULT_CROWD.value,
                     show_default=True,
                     help="Who will rate it, which sets the layout, render and quality-control test (each "
                          "overridable below): " + "; ".join("{} = {} ({layout} layout, {render} render, {qc} "
                                                             "test)".format(p.crowd.value, p.description,
                                                                            **p.parts())
                                                             for p in PRESETS.values())
                          + ". Measured in docs/quality-control.md, 'The defaults, and why'."),
        click.option("--layout", type=click.Choice(list(LAYOUTS)),
                     help="HIT layout [default: the crowd's]. classic = the published 70 SYSTEM + 10 each of "
                          "BAD_REF, REPEAT, REF (reproduces WMT); targeted = 60 SYSTEM + 10 each of BAD_REF, "
                          "MEANING, REF, REPEAT, the damaged copies made of the answers closest to the reference "
                          "and the reference shown beside the furthest (for the published test alone at one HIT); "
                          "hardened = targeted's composition with checks on random answers."),
        click.option("--qc", "qc_method", type=click.Choice(QC_METHODS),
                     help="Quality-control test stored with the campaign [default: the crowd's] (analyze --qc "
                          "overrides it per run): weighted = every check family of a HIT in one test, each pair "
                          "weighed by what real people do, for one HIT per worker; pooled = the same pairs ranked "
                          "(the test of earlier versions); wilcoxon = the published BAD_REF test."),
        click.option("--render", "render_name", type=click.Choice(list(RENDER_STYLES)),
                     help="Answer images [default: the crowd's]: plain, or hardened = drawn to resist OCR bots "
                          "(set on one gentle wave, a font per word, light texture; never smaller, AA contrast)."),
    ]

    @functools.wraps(command)
    def with_crowd(*args, crowd: str, layout: str | None, qc_method: str | None, render_name: str | None,
                   **kwargs):
        from da_platform.building.crowds import choose

        return command(*args, crowd=choose(crowd, layout=layout, render=render_name, qc=qc_method), **kwargs)

    return _with_options(with_crowd, options)


def design_options(command: Callable) -> Callable:
    """--design and the waves' sizes, passed to ``command`` as ``waves: WaveDesign | None`` (None: the fixed
    design)."""
    options = [
        click.option("--design", type=click.Choice(["fixed", "waves"]), default="fixed", show_default=True,
                     help="fixed = every HIT built at once; waves = only a first wave, then each next wave "
                          "(da-platform waves CAMPAIGN --next) rates the systems whose order is still undecided, "
                          "with a sequential test that stays honest under repeated looks (docs/method.md §12)."),
        click.option("--first-wave", type=click.FloatRange(min=0, min_open=True, max=1), default=0.25,
                     show_default=True,
                     help="With --design waves: the first wave's share of the fixed design's HITs."),
        click.option("--wave-size", type=click.FloatRange(min=0, min_open=True, max=1), default=0.15,
                     show_default=True,
                     help="With --design waves: each later wave's share of the fixed design's HITs."),
        click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
                     help="With --design waves: the most HITs all waves may have, as a share of the fixed design's."),
    ]

    @functools.wraps(command)
    def with_design(*args, design: str, first_wave: float, wave_size: float, budget: float, **kwargs):
        from analysis.sequential_plan import WaveDesign

        try:
            waves = WaveDesign(first_wave=first_wave, wave=wave_size, budget=budget) if design == "waves" else None
        except ValueError as error:
            raise click.UsageError(str(error)) from None
        return command(*args, waves=waves, **kwargs)

    return _with_options(with_design, options)


def _with_options(command: Callable, options: Sequence[Callable[[Any], Any]]) -> Callable:
    """``command`` under ``options``, the first shown first in --help."""
    for option in reversed(options):
        command = option(command)
    return command


@click.command("build")
@spec_options
@drawing_options
@worker_page_options
@crowd_options
@design_options
@pass_context
def build_command(context: CliContext, spec: BuildSpec, fonts: tuple[str, ...], image_folder: Path | None,
                  processes: int | None, worker: WorkerPageOptions, crowd: CrowdChoice,
                  waves: WaveDesign | None) -> None:
    """Build a campaign: HITs of 100 slots with hidden checks, degraded answers and answer images.

    Everything is checked before anything is stored: on any error nothing is built.
    """
    from dataclasses import replace

    from da_core.errors import BuildError, InputError
    from da_platform.building.build import build_campaign
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.engine import transaction
    from hit_builder.storage import StoreUnavailable

    storage = _image_storage(context, image_folder)
    spec = replace(spec, font_paths=list(fonts or context.settings.font_paths), worker=worker, crowd=crowd,
                   waves=waves)
    warnings: list[str] = []
    with _image_progress() as progress:
        try:
            with transaction(context.sessions) as session:
                campaign = build_campaign(session, spec, storage=storage, progress=progress, processes=processes,
                                          warn=warnings.append)
                settings = CampaignSettings.of(campaign)
        except (BuildError, InputError, StoreUnavailable) as error:
            raise _nothing_built(error) from None
    _summary(spec.name, settings, storage)
    click.echo(f"built for crowd {crowd.describe()}")
    for warning in warnings:
        click.echo(warning, err=True)
    click.echo(f"see its composition with: da-platform inspect {spec.name!r} --hit 0")


def _image_storage(context: CliContext, image_folder: Path | None) -> ImageStorage:
    """Where the images go: $DA_IMAGE_STORE's store (--images: the folder, for the folder store only)."""
    from da_platform.config.settings import ImageStore
    from da_platform.images.store import ImageStoreError, open_image_storage

    if image_folder is not None and context.settings.image_store is not ImageStore.folder:
        raise click.UsageError(f"--images is for DA_IMAGE_STORE=folder (it is {context.settings.image_store.value!r})")
    try:
        return open_image_storage(context.settings, folder=image_folder)
    except ImageStoreError as error:
        raise click.ClickException(str(error)) from None


@contextlib.contextmanager
def _image_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback for the images drawn: a bar from the first report on, closed on the way out."""
    bar = None

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label=f"{stage} images", show_pos=True)
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


def _nothing_built(error: Exception) -> click.ClickException:
    return click.ClickException(f"{error}\nnothing was built")


def _summary(name: str, settings: CampaignSettings, storage: ImageStorage) -> None:
    """What was built: HITs, items, images, layout, quality control, the worker pages' language, the design, merged
    answers, abstentions."""
    from da_platform.results.waves import design_lines

    assembly, render, layout = settings.assembly, settings.render, settings.layout_description
    assert assembly is not None and render is not None and layout is not None  # every build records them
    click.echo(f"built campaign {name!r}: {assembly.hits} HITs of 100 slots over {assembly.items} items, "
               f"{render.images} images in {_where(storage)}")
    click.echo(f"layout {settings.hit_layout.name} ({layout.description}); quality control: "
               f"{settings.qc_policy.method.value} test, alpha {settings.qc_policy.alpha:g}")
    click.echo(f"{settings.worker.describe_language()} (--lang; `da-platform campaign preview {name}` shows a slot "
               "as workers see it)")
    for line in design_lines(settings.waves):
        click.echo(line)
    merged = settings.identical_answers
    if merged and not merged.saved:
        click.echo("no identical answers to merge")
    elif merged:
        click.echo(f"identical answers merged: {merged.saved} of {merged.items_before} items are rated once "
                   f"for several systems ({len(merged.groups)} groups; --no-merge-identical rates each)")
    for system_name, skipped in (settings.abstentions or {}).items():
        click.echo(f"{system_name} abstains on {len(skipped)} question(s): those items are not rated "
                   f"({', '.join(skipped[:5])}{', ...' if len(skipped) > 5 else ''})")


def _read_text(path: Path) -> str:
    from da_core.errors import BuildError

    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise BuildError(f"{path}: cannot read it ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise BuildError(f"{path}: not UTF-8 text (byte {error.start})") from None


def _read_messages(path: Path) -> dict[str, str]:
    from da_platform.rating.language import load_catalogue

    return load_catalogue(path)


def _where(storage: object) -> str:
    """Where a storage keeps its images, for a message (the folder, or the store's description)."""
    folder = getattr(storage, "folder", None)
    return str(folder) if folder is not None else repr(storage)
