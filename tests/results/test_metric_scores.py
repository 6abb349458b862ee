"""The metrics a command sets up and each answer's score it writes, as a library: the presets' α, β, γ as
docs/metrics.md gives them, unknown names refused, the systems a validation keeps, and SQuAD token F1 per answer
worked out by hand."""
from __future__ import annotations

import csv
import json

import pytest

from analysis.metrics.base import QuestionInfo
from analysis.metrics.scoring import SystemCorpus
from da_platform.results.metric_scores import (
    UnknownMetric,
    UnknownSystems,
    chosen_metrics,
    metric_settings,
    select_systems,
    write_per_answer,
)


def test_a_preset_gives_alpha_beta_gamma_unless_an_option_overrides_one():
    # the official MRC2018 scorer: α=1, β=1, γ=1.2; the paper's experiments: α=2, β=1, γ=1.2
    scorer = metric_settings("scorer", None, None, None, "words", None, "none", False)
    assert (scorer.alpha, scorer.beta, scorer.gamma) == (1, 1, 1.2)
    paper = metric_settings("paper", None, 3.0, None, "chars", "13a", "exp", True)
    assert (paper.alpha, paper.beta, paper.gamma) == (2, 3.0, 1.2)
    assert (paper.tokenization, paper.bleu_tokenize, paper.smooth) == ("chars", "13a", "exp")
    assert paper.labels != scorer.labels  # guessing the yes/no labels is recorded


def test_metrics_are_chosen_by_name_and_an_unknown_one_is_named():
    assert [m.name for m in chosen_metrics(("f1", "rouge-l"))] == ["f1", "rouge-l"]
    with pytest.raises(UnknownMetric, match="^unknown metric blue, rogue; choose from rouge-l, "):
        chosen_metrics(("f1", "blue", "rogue"))


def test_the_systems_kept_for_a_validation():
    human = {"a": 0.3, "b": -0.1, "HUMAN": 0.9}
    assert select_systems(human, None, ["HUMAN"]) == {"a": 0.3, "b": -0.1}
    assert select_systems(human, ["b", "HUMAN"], None) == {"b": -0.1, "HUMAN": 0.9}
    with pytest.raises(UnknownSystems, match=r"^--exclude-systems: no human score for c \(systems: a, b, HUMAN\)$"):
        select_systems(human, None, ["c"])


def _corpus(system: str, answers: tuple[str, ...]) -> SystemCorpus:
    return SystemCorpus(system, answers, (("red apple pie", "apple pie"), ("green pear",)),
                        (QuestionInfo(), QuestionInfo()), ids=("q1", "q2"))


def test_each_answers_score_is_written_per_metric_in_the_judge_scores_formats(tmp_path):
    corpora = [_corpus("pie", ("red apple", "green pear")), _corpus("sour", ("apple", "pear"))]
    # SQuAD token F1 against the best reference: "red apple" vs "red apple pie": P 1, R 2/3 -> 0.8; "green pear": 1;
    # "apple" vs "apple pie": P 1, R 1/2 -> 2/3; "pear" vs "green pear": 2/3. Exact match: only "green pear".
    f1 = {("pie", "q1"): 0.8, ("pie", "q2"): 1.0, ("sour", "q1"): 2 / 3, ("sour", "q2"): 2 / 3}
    (only,) = write_per_answer(tmp_path / "one.jsonl", corpora, chosen_metrics(("f1",)))
    assert only[1] == tmp_path / "one.jsonl"
    rows = [json.loads(line) for line in only[1].read_text(encoding="utf-8").splitlines()]
    assert {(r["system"], r["id"]): r["score"] for r in rows} == pytest.approx(f1)

    written = write_per_answer(tmp_path / "all.tsv", corpora, chosen_metrics(("f1", "exact-match")))
    assert [path.name for _, path in written] == ["all.f1.tsv", "all.exact-match.tsv"]
    with open(written[1][1], encoding="utf-8", newline="") as stream:
        table = list(csv.reader(stream, delimiter="\t"))
    assert table[0] == ["system", "id", "score"]
    assert {(s, i): float(v) for s, i, v in table[1:]} == {("pie", "q1"): 0.0, ("pie", "q2"): 1.0,
                                                          ("sour", "q1"): 0.0, ("sour", "q2"): 0.0}
