"""Automatic metrics: ``metrics`` scores systems, ``validate-metrics`` tests metrics against humans (docs/method.md
§9)."""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import CAMPAIGN, TEST_SET, NamedCampaign, NamedTestSet

if TYPE_CHECKING:
    from analysis.metrics.scoring import SystemCorpus


def _metrics(names: tuple[str, ...], settings=None):
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


def _settings(preset: str, alpha: float | None, beta: float | None, gamma: float | None, tokenization: str,
              bleu_tokenize: str | None, bleu_smooth: str, guess_labels: bool):
    from da_platform.results.metric_scores import metric_settings

    return metric_settings(preset, alpha, beta, gamma, tokenization, bleu_tokenize, bleu_smooth, guess_labels)


def _report_labels(corpora, guess: bool) -> None:
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


def _split(systems: str | None) -> list[str] | None:
    return [s.strip() for s in systems.split(",") if s.strip()] if systems else None


def _corpora_from_database(context: CliContext, named: NamedTestSet, systems: list[str] | None,
                           guess_labels: bool = False):
    """The answers of the test set's systems, with the references and annotations of their questions."""
    from da_platform.results.metric_corpora import corpora_from_database

    with context.sessions() as session:
        return _corpora(lambda: corpora_from_database(session, named.find(session), systems, guess_labels,
                                                      note=_note, warn=_warn))


def _corpora_from_files(references: Path, answers: tuple[Path, ...], systems: list[str] | None,
                        guess_labels: bool = False):
    """Test set and answer files in the import formats, scored without a database (notes on stderr)."""
    from da_platform.results.metric_corpora import corpora_from_files

    return _corpora(lambda: corpora_from_files(references, answers, systems, guess_labels, note=_note, warn=_warn))


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


def _score(corpora, metrics, guess_labels: bool = False):
    from analysis.metrics.scoring import score_systems

    _report_labels(corpora, guess_labels)
    total = sum(len(c.hypotheses) for c in corpora) * len(metrics)
    with click.progressbar(length=total, label="scoring", file=sys.stderr) as bar:
        try:
            return score_systems(corpora, metrics, progress=bar.update)
        except ValueError as error:  # e.g. a question without references
            raise click.ClickException(str(error)) from None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@click.command("metrics")
@click.option("--test-set", "test_set", type=TEST_SET, help="Score the systems of this test set in the database.")
@click.option("--references", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Or: a test-set file (an import format: JSONL/CSV/TSV, SQuAD, CMRC, DuReader, MS MARCO; "
                   "the question text may be missing, as in the MRC2018 evaluation kit's reference files) ...")
@click.option("--answers", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="... and system answer files (one per system, named by file stem, or a long table).")
@click.option("--systems", help="Comma-separated system names to score (default: all).")
@click.option("--metric", "metric_names", multiple=True, metavar="NAME",
              help="Metric to compute (repeatable; default: every offline metric). See --list.")
@click.option("--list", "list_metrics", is_flag=True, help="List the metrics and exit.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the scores: .csv, .json or .md by the file's ending (a CSV is plain, header "
                   "first; its signatures go to FILE.signatures.json beside it).")
@click.option("--per-answer", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Also write each answer's score (system, id, score in [0, 1]; .jsonl, .csv or .tsv), the file "
                   "`import judge-scores` reads: one file per metric, FILE itself for one --metric, else FILE with "
                   "the metric's name before its ending (scores.rouge-l.jsonl).")
@metric_options
@pass_context
def metrics_command(context: CliContext, test_set: NamedTestSet | None, references: Path | None,
                    answers: tuple[Path, ...], systems: str | None, metric_names: tuple[str, ...], list_metrics: bool,
                    out: Path | None, per_answer: Path | None, preset: str, alpha: float | None, beta: float | None,
                    gamma: float | None, tokenization: str, bleu_tokenize: str | None, bleu_smooth: str,
                    guess_labels: bool) -> None:
    """Score every system's answers against the references with automatic metrics.

    ROUGE-L (γ = 1.2), BLEU-1, BLEU-4 (no smoothing), METEOR, exact match, token F1 and the adapted
    ROUGE-L / BLEU-4 of Yang et al. 2018: yes/no bonus α from the references' and the answers' own
    yes/no labels, entity bonus β from the gold entities (docs/metrics.md). Chinese, Japanese and
    Thai text is compared character by character. Scores are in [0, 1]; each metric's signature
    (tokens, labels, α, β, γ, smoothing, version) is printed and written with them. A human system
    (e.g. HUMAN, the second references) is scored against the other references, not itself.
    """
    if list_metrics:
        from analysis.metrics import DEFAULT_METRICS, METRICS

        for name, cls in METRICS.items():
            click.echo(f"{name:18} {cls.label}{'' if name in DEFAULT_METRICS else '  (optional backend)'}")
        return
    if out is not None and out.suffix.lower() not in (".csv", ".json", ".md"):
        raise click.ClickException(f"--out {out}: use a .csv, .json or .md file")
    from da_platform.results.metric_scores import PER_ANSWER_FORMATS, write_per_answer

    if per_answer is not None and per_answer.suffix.lower() not in PER_ANSWER_FORMATS:
        raise click.ClickException(f"--per-answer {per_answer}: use a .jsonl, .csv or .tsv file (what `import "
                                   "judge-scores` reads)")
    if (test_set is None) == (references is None):
        raise click.ClickException("give either --test-set NAME or --references FILE with --answers FILE...")
    if references is not None and not answers:
        raise click.ClickException("--references needs at least one --answers FILE")
    if test_set is not None and answers:
        raise click.ClickException("--answers goes with --references, not with --test-set")
    metrics = _metrics(metric_names, _settings(preset, alpha, beta, gamma, tokenization, bleu_tokenize,
                                               bleu_smooth, guess_labels))
    if test_set is not None:
        corpora = _corpora_from_database(context, test_set, _split(systems), guess_labels)
    else:
        assert references is not None  # exactly one of --test-set and --references was given (checked above)
        corpora = _corpora_from_files(references, answers, _split(systems), guess_labels)
    scores = _score(corpora, metrics, guess_labels)
    click.echo(scores.to_markdown(), nl=False)
    if out is not None:
        from analysis.metrics.scoring import signatures_path

        suffix = out.suffix.lower()
        _write(out, {".csv": scores.to_csv, ".json": scores.to_json, ".md": scores.to_markdown}[suffix]())
        click.echo(f"scores written to {out}")
        if suffix == ".csv":  # a plain CSV (header first): the signatures go beside it
            _write(signatures_path(out), scores.signatures_json())
            click.echo(f"signatures written to {signatures_path(out)}")
    if per_answer is not None:
        for metric, path in write_per_answer(per_answer, corpora, metrics):
            click.echo(f"each answer's {metric.label} written to {path} (import it with `da-platform import "
                       f"judge-scores {path} --test-set NAME --judge {metric.name}`)")


@click.command("validate-metrics")
@click.option("--campaign", type=CAMPAIGN, help="Human system z-scores from this campaign in the database.")
@click.option("--human-scores", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Or: a file of human system scores (CSV 'system,z' or WMT ad-sys-scores).")
@click.option("--test-set", "test_set", type=TEST_SET,
              help="Test set whose systems the metrics score (default: the campaign's).")
@click.option("--metric-scores", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Or: metric scores already computed ('metrics --out FILE.csv' or FILE.json; a CSV's "
                   "signatures are read from FILE.signatures.json beside it).")
@click.option("--metric", "metric_names", multiple=True, metavar="NAME",
              help="Metric to validate (repeatable; default: every offline metric).")
@click.option("--systems", help="Comma-separated systems to validate on (default: all with a human score).")
@click.option("--exclude-systems", help="Comma-separated systems to leave out (e.g. HUMAN).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("metric-validation"),
              show_default=True, help="Folder for the table (CSV, JSON, LaTeX, Markdown) and the heatmap.")
@metric_options
@pass_context
def validate_metrics_command(context: CliContext, campaign: NamedCampaign | None, human_scores: Path | None,
                             test_set: NamedTestSet | None, metric_scores: Path | None, metric_names: tuple[str, ...],
                             systems: str | None, exclude_systems: str | None, out: Path, preset: str,
                             alpha: float | None, beta: float | None, gamma: float | None, tokenization: str,
                             bleu_tokenize: str | None, bleu_smooth: str, guess_labels: bool) -> None:
    """Correlate automatic metrics with human system scores and compare them (Williams test).

    Prints Pearson r, Spearman ρ and Kendall τ per metric (best r first), and writes that table with
    a heatmap of Williams-test p-values for every ordered pair of metrics.
    """
    from analysis.metrics.human_scores import read_human_scores
    from analysis.metrics.scoring import read_metric_scores, read_metric_signatures, signatures_path
    from analysis.metrics.validation import validate_metrics, write_validation
    from da_core.errors import InputError

    if (campaign is None) == (human_scores is None):
        raise click.ClickException("give either --campaign NAME or --human-scores FILE")
    if metric_scores is not None and test_set is not None:
        raise click.ClickException("give --test-set or --metric-scores, not both")
    if campaign is not None:
        human, campaign_test_set = _campaign_scores(context, campaign)
        test_set = test_set or NamedTestSet(campaign_test_set)
    else:
        assert human_scores is not None  # exactly one of --campaign and --human-scores was given (checked above)
        try:
            human = read_human_scores(human_scores)
        except InputError as error:
            raise click.ClickException(str(error)) from None
        if test_set is None and metric_scores is None:
            raise click.ClickException("--human-scores needs --test-set NAME or --metric-scores FILE")
    human = _select_systems(human, _split(systems), _split(exclude_systems))
    labels: dict[str, str] = {}
    signatures: dict[str, str] = {}
    if metric_scores is not None:
        beside = signatures_path(metric_scores)
        try:
            text = metric_scores.read_text(encoding="utf-8-sig")
            by_metric = read_metric_scores(text, str(metric_scores))
            signatures = read_metric_signatures(beside.read_text(encoding="utf-8-sig") if beside.is_file() else text)
        except (InputError, OSError, UnicodeDecodeError) as error:
            raise click.ClickException(str(error)) from None
        if metric_names:
            unknown = [m for m in metric_names if m not in by_metric]
            if unknown:
                raise click.ClickException(f"{metric_scores} has no column {', '.join(unknown)}")
            by_metric = {m: by_metric[m] for m in metric_names}
        from analysis.metrics import METRICS

        labels = {m: METRICS[m].label for m in by_metric if m in METRICS}
    else:
        assert test_set is not None  # a campaign's own test set, or required with --human-scores (checked above)
        metrics = _metrics(metric_names, _settings(preset, alpha, beta, gamma, tokenization, bleu_tokenize,
                                                   bleu_smooth, guess_labels))
        corpora = _corpora_from_database(context, test_set, list(human), guess_labels)
        scores = _score(corpora, metrics, guess_labels)
        by_metric, labels, signatures = scores.by_metric(), dict(scores.labels), dict(scores.signatures)
    try:
        result = validate_metrics(human, by_metric, labels, signatures)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{len(result.systems)} systems: {', '.join(result.systems)}")
    for metric in result.constant_metrics:
        click.echo(f"note: {result.labels.get(metric, metric)} gives every system the same score; "
                   "it has no correlation (shown as –)", err=True)
    click.echo(result.to_markdown(), nl=False)
    for path in write_validation(result, out):
        click.echo(f"wrote {path}")
    from da_platform.cli.metrics_items import item_level_table, warn_if_few_systems

    warn_if_few_systems(result)
    if campaign is not None and metric_scores is None:
        item_level_table(context, campaign, corpora, metrics, out)


def _select_systems(human: dict[str, float], systems: list[str] | None,
                    exclude: list[str] | None) -> dict[str, float]:
    """The human scores of the systems chosen by ``--systems`` / ``--exclude-systems``."""
    from da_platform.results.metric_scores import UnknownSystems, select_systems

    try:
        return select_systems(human, systems, exclude)
    except UnknownSystems as error:
        raise click.ClickException(str(error)) from None


def _campaign_scores(context: CliContext, campaign: NamedCampaign) -> tuple[dict[str, float], str]:
    """Human system z-scores of a campaign and its test set's name: the campaign's one analysis
    (``CampaignAnalysis``: review-decision exclusions, its QC settings), as the dashboard shows it."""
    from da_platform.cli.analyses import load_campaign_analysis, print_exclusions

    analysis = load_campaign_analysis(context, campaign)
    name = analysis.campaign_name
    if len(analysis.table) == 0:
        raise click.ClickException(f"campaign {name!r} has no ratings yet")
    with context.sessions() as session:
        test_set = campaign.find(session).test_set.name
    result = analysis.result
    if result is None:
        raise click.ClickException(f"campaign {name!r}: no ratings left after the review decisions")
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    print_exclusions(result)
    return {s.system: s.z for s in result.system_scores.get(name, ())}, test_set
