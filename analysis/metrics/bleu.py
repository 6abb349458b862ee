"""BLEU-1 and BLEU-4 through sacrebleu.

Tokenisation: by default (``tokenize="platform"``) text is split by ``analysis.text.tokenize``
(Chinese, Japanese and Thai as characters, other scripts on whitespace), so one corpus may mix
languages and every metric sees the same tokens; sacrebleu then runs with its ``none`` tokenizer.
Any sacrebleu tokenizer name (``13a``, ``zh``, ``intl``, ...) may be given instead to reproduce
published sacrebleu numbers. Sentence scores use sacrebleu's sentence-BLEU settings (exponential
smoothing, effective order); corpus scores its corpus BLEU. Scores are sacrebleu's divided by 100.
"""
from __future__ import annotations

from typing import Sequence

from analysis.metrics.base import Metric, MetricScore, QuestionInfo, check_corpus, check_references, tokens

PLATFORM_TOKENIZER = "platform"


class Bleu(Metric):
    """BLEU up to n-grams of ``max_order`` (sacrebleu's implementation)."""

    name = "bleu"
    label = "BLEU"
    max_order = 4

    def __init__(self, tokenize: str = PLATFORM_TOKENIZER, lowercase: bool = False) -> None:
        from sacrebleu.metrics import BLEU

        self.tokenize = tokenize
        self.lowercase = lowercase
        sacre_tokenizer = "none" if tokenize == PLATFORM_TOKENIZER else tokenize
        self._sentence = BLEU(tokenize=sacre_tokenizer, lowercase=lowercase,
                              max_ngram_order=self.max_order, effective_order=True)
        self._corpus = BLEU(tokenize=sacre_tokenizer, lowercase=lowercase,
                            max_ngram_order=self.max_order)

    def prepare(self, text: str) -> str:
        """The text as sacrebleu should see it: space-joined platform tokens, or unchanged."""
        if self.tokenize == PLATFORM_TOKENIZER:
            return " ".join(tokens(text))
        return text

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        check_references(references)
        result = self._sentence.sentence_score(self.prepare(hypothesis),
                                               [self.prepare(r) for r in references])
        return result.score / 100

    def corpus_score(self, hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                     questions: Sequence[QuestionInfo | None] | None = None) -> MetricScore:
        check_corpus(hypotheses, references_lists, questions)
        if not hypotheses:
            return MetricScore(self.name, 0.0, 0)
        for references in references_lists:
            check_references(references)
        width = max(len(references) for references in references_lists)
        # sacrebleu takes reference streams; None pads segments with fewer references.
        streams = [[self.prepare(references[k]) if k < len(references) else None
                    for references in references_lists] for k in range(width)]
        result = self._corpus.corpus_score([self.prepare(h) for h in hypotheses], streams)
        details = {f"precision_{n + 1}": p / 100 for n, p in enumerate(result.precisions)}
        details.update(brevity_penalty=result.bp, hypothesis_length=result.sys_len,
                       reference_length=result.ref_len)
        return MetricScore(self.name, result.score / 100, len(hypotheses), details)


class Bleu1(Bleu):
    """BLEU with unigrams only."""

    name = "bleu-1"
    label = "BLEU-1"
    max_order = 1


class Bleu4(Bleu):
    """BLEU with n-grams up to 4 (the usual BLEU)."""

    name = "bleu-4"
    label = "BLEU-4"
    max_order = 4
