"""What ``metrics`` and ``validate-metrics`` share: the options that set the metrics up, the systems' answers
loaded (from the database or from files) and scored. Heavy libraries are imported inside the functions."""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from da_platform.cli.context import CliContext
from da_platform.cli.params import NamedTestSet

if TYPE_CHECKING:
    from analysis.metrics.scoring import SystemCorpus


def metrics_named(names: tuple[str, ...], settings=None):
    """The metrics ``--metric`` names (none: every offline one) set up with ``settings``; an unknown name or a
    backend that is not installed ends the command with a message."""
    from analysis.metrics import MetricUnavailable
    from da_platform.results.metric_scores import UnknownMetric, chosen_metrics

    try:
        return chosen_metrics(names, settings)
    except (UnknownMetric, MetricUnavailable) as error:
        raise click.ClickException(str(error)) from None


def metric_options(command):
    """The options that set the metrics up, shared by ``metrics`` and ``validate-metrics``."""
    from analysis.metrics.bleu import SACREBLEU_TOKENIZERS, SMOOTHING
    from analysis.metrics.tokenize import TOKENIZATIONS

    options = [
        click.option("--preset", type=click.Choice(["scorer", "paper"]), default="scorer", show_default=True,
                     help="α, β, γ of the adapted metrics: the official MRC2018 scorer's (α=1, β=1, γ=1.2) "
                          "or the paper's experiments (α=2, β=1, γ=1.2)."),
        click.option("--alpha", type=click.FloatRange(min=0), help="Yes/no bonus weight α (overrides --preset)."),
        click.option("--beta", type=click.FloatRange(min=0), help="Entity bonus weight β (overrides --preset)."),
        click.option("--gamma", type=click.FloatRange(min=0, min_open=True),
                     help="ROUGE-L recall weight γ, for ROUGE-L and adapted ROUGE-L (overrides --preset)."),
        click.option("--tokenize", "tokenization", type=click.Choice(list(TOKENIZATIONS)), default="words",
                     show_default=True, help="Tokens of every metric: words (CJK/Thai text as characters, "
                                             "punctuation split off) or chars (the official scorer's)."),
        click.option("--bleu-tokenize", type=click.Choice([*TOKENIZATIONS, *SACREBLEU_TOKENIZERS]),
                     help="Tokenizer of plain BLEU-1/BLEU-4 only, e.g. sacrebleu's 13a, zh, intl or char "
                          "[default: --tokenize]."),
        click.option("--bleu-smooth", type=click.Choice(list(SMOOTHING)), default="none", show_default=True,
                     help="BLEU smoothing (sacrebleu's methods); none is the definition."),
        click.option("--guess-labels", is_flag=True,
                     help="Fallback: guess the yes/no label of answers that carry none from their opening "
                          "words (reported, and recorded in the signature as labels:data+guess)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def metric_settings_from(preset: str, alpha: float | None, beta: float | None, gamma: float | None,
                         tokenization: str, bleu_tokenize: str | None, bleu_smooth: str, guess_labels: bool):
    """The metrics' settings that :func:`metric_options` give."""
    from da_platform.results.metric_scores import metric_settings

    return metric_settings(preset, alpha, beta, gamma, tokenization, bleu_tokenize, bleu_smooth, guess_labels)


def report_labels(corpora, guess: bool) -> None:
    """Say how many yes/no answers had their label guessed, or had none (no yes/no bonus)."""
    guessed = sum(c.guessed for c in corpora)
    unlabelled = sum(c.unlabelled for c in corpora)
    if guess and guessed:
        click.echo(f"note: guessed the yes/no label of {guessed} answer(s) from their text "
                   f"(--guess-labels)", err=True)
    if unlabelled:
        hint = "" if guess else "; give a yes_no field with the answers, or --guess-labels"
        click.echo(f"warning: {unlabelled} answer(s) to yes/no questions have no yes/no label, so no "
                   f"yes/no bonus{hint}", err=True)


def split_names(systems: str | None) -> list[str] | None:
    """The names of a comma-separated option (None: not given)."""
    return [s.strip() for s in systems.split(",") if s.strip()] if systems else None


def corpora_from_database(context: CliContext, named: NamedTestSet, systems: list[str] | None,
                           guess_labels: bool = False):
    """The answers of the test set's systems, with the references and annotations of their questions."""
    from da_platform.results import metric_corpora

    with context.sessions() as session:
        return _corpora(lambda: metric_corpora.corpora_from_database(session, named.find(session), systems,
                                                                     guess_labels, note=_note, warn=_warn))


def corpora_from_files(references: Path, answers: tuple[Path, ...], systems: list[str] | None,
                        guess_labels: bool = False):
    """Test set and answer files in the import formats, scored without a database (notes on stderr)."""
    from da_platform.results import metric_corpora

    return _corpora(lambda: metric_corpora.corpora_from_files(references, answers, systems, guess_labels,
                                                              note=_note, warn=_warn))


def _note(text: str) -> None:
    click.echo(f"note: {text}", err=True)


def _warn(text: str) -> None:
    click.echo(f"warning: {text}", err=True)


def _corpora(load: Callable[[], list[SystemCorpus]]) -> list[SystemCorpus]:
    """The corpora ``load`` reads; bad input (``InputError``, an answer that cannot be aligned) is a CLI error."""
    try:
        return load()
    except ValueError as error:
        raise click.ClickException(str(error)) from None


def score(corpora, metrics, guess_labels: bool = False):
    """Score the corpora with the metrics (a progress bar on stderr); bad input ends the command with a message."""
    from analysis.metrics.scoring import score_systems

    report_labels(corpora, guess_labels)
    total = sum(len(c.hypotheses) for c in corpora) * len(metrics)
    with click.progressbar(length=total, label="scoring", file=sys.stderr) as bar:
        try:
            return score_systems(corpora, metrics, progress=bar.update)
        except ValueError as error:  # e.g. a question without references
            raise click.ClickException(str(error)) from None
