"""``metrics``: automatic metrics score systems (docs/method.md §9; ``validate-metrics`` tests them against
humans)."""
from __future__ import annotations

from pathlib import Path

import click

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.metric_options import (
    corpora_from_database,
    corpora_from_files,
    metric_options,
    metric_settings_from,
    metrics_named,
    score,
    split_names,
)
from da_platform.cli.params import TEST_SET, NamedTestSet


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
    metrics = metrics_named(metric_names, metric_settings_from(preset, alpha, beta, gamma, tokenization, bleu_tokenize,
                                                               bleu_smooth, guess_labels))
    if test_set is not None:
        corpora = corpora_from_database(context, test_set, split_names(systems), guess_labels)
    else:
        assert references is not None  # exactly one of --test-set and --references was given (checked above)
        corpora = corpora_from_files(references, answers, split_names(systems), guess_labels)
    scores = score(corpora, metrics, guess_labels)
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
