"""``metrics`` tells its progress answer by answer, and shows none of sacrebleu's warnings a user cannot act on."""
from __future__ import annotations

import logging

from analysis.metrics import Bleu4, QuestionInfo, RougeL
from analysis.metrics.scoring import SystemCorpus, score_systems


def _corpus(system: str, answers: list[str]) -> SystemCorpus:
    references = tuple(("The bridge opened in 1937 .",) for _ in answers)
    return SystemCorpus(system, tuple(answers), references, tuple(QuestionInfo() for _ in answers))


def test_progress_is_told_answer_by_answer():
    heard: list[int] = []
    corpora = [_corpus("a", ["It opened in 1937.", "1937", "In 1937."]), _corpus("b", ["No idea.", "x", "y"])]
    score_systems(corpora, [RougeL(), Bleu4()], progress=heard.append)
    # ROUGE-L is a mean of the answers' scores: one step per answer; corpus BLEU tells of its 3 at its end
    assert heard == [1, 1, 1, 3, 1, 1, 1, 3]


def test_no_detokenize_warning_for_the_platforms_own_tokens(caplog):
    answers = [f"Answer {k} ends with a full stop." for k in range(120)]
    references = [(f"Reference {k} ends too.",) for k in range(120)]
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        Bleu4().corpus_score(answers, references)      # our words, joined by spaces: "... stop ." on purpose
    assert not [r for r in caplog.records if "detokenize" in r.getMessage()]
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):     # sacrebleu's own tokenizer on text that
        Bleu4(tokenize="13a").corpus_score([a[:-1] + " ." for a in answers], references)   # is tokenized: warned
    assert [r for r in caplog.records if "detokenize" in r.getMessage()]
