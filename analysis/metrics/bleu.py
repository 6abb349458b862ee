"""BLEU-1 and BLEU-4 through sacrebleu, by default exactly as defined: no smoothing.

Tokenisation: by default the metrics' own ``words`` tokenisation (``analysis.metrics.tokenize``; ``chars``
is the other one), joined by spaces and given to sacrebleu with its ``none`` tokenizer, so one corpus
may mix languages and every metric sees the same tokens. One of sacrebleu's tokenizers (``13a``,
``zh``, ``intl``, ``char``) may be named instead, to reproduce published sacrebleu numbers.

Smoothing: ``none`` by default (a zero n-gram precision makes BLEU 0, and a candidate shorter than
the order has no 4-grams, so it scores 0), as the definition and DuReader's scorer have it; sacrebleu's
``exp``, ``floor`` and ``add-k`` (and its effective order for sentences) only when chosen. Sentence
and corpus scores use the same settings. Scores are sacrebleu's divided by 100, so never above 1.
"""
from __future__ import annotations

from collections.abc import Sequence

from analysis.metrics.base import (
    Metric,
    MetricScore,
    Progress,
    QuestionInfo,
    check_corpus,
    check_references,
)
from analysis.metrics.tokenize import DEFAULT_TOKENIZATION, TOKENIZATIONS

#: sacrebleu tokenizers offered for plain BLEU (the adapted metrics always use the metrics' own).
SACREBLEU_TOKENIZERS = ("13a", "zh", "intl", "char")
#: sacrebleu smoothing methods; ``none`` is the definition.
SMOOTHING = ("none", "exp", "floor", "add-k")
#: Back-compatible name of the default tokenisation.
PLATFORM_TOKENIZER = DEFAULT_TOKENIZATION


def unit_score(percent: float) -> float:
    """sacrebleu's percentage as a fraction; its exp(log 100)/100 can pass 1 by an ulp, which is cut off."""
    return min(1.0, percent / 100)


class Bleu(Metric):
    """BLEU up to n-grams of ``max_order`` (sacrebleu's implementation)."""

    name = "bleu"
    label = "BLEU"
    max_order = 4

    def __init__(self, tokenize: str = DEFAULT_TOKENIZATION, lowercase: bool = False, smooth: str = "none",
                 effective_order: bool = False) -> None:
        from sacrebleu.metrics import BLEU

        if tokenize not in TOKENIZATIONS and tokenize not in SACREBLEU_TOKENIZERS:
            raise ValueError(f"unknown BLEU tokenisation {tokenize!r}; known: "
                             f"{', '.join((*TOKENIZATIONS, *SACREBLEU_TOKENIZERS))}")
        if smooth not in SMOOTHING:
            raise ValueError(f"unknown BLEU smoothing {smooth!r}; known: {', '.join(SMOOTHING)}")
        self.tokenize = tokenize
        self.lowercase = lowercase
        self.smooth = smooth
        self.effective_order = effective_order
        own = tokenize in TOKENIZATIONS
        if own:
            self.tokenization = tokenize
        # force: our own tokens are joined by spaces, so a sentence-final period is " ." on purpose; sacrebleu
        # would warn "you forgot to detokenize" after 100 of them, which a user cannot act on.
        self._bleu = BLEU(tokenize="none" if own else tokenize, lowercase=False if own else lowercase,
                          max_ngram_order=self.max_order, smooth_method=smooth, effective_order=effective_order,
                          force=own)

    def signature_fields(self) -> dict[str, str]:
        tok = self.tokenize if self.tokenize in TOKENIZATIONS else f"sacrebleu-{self.tokenize}"
        return {"tok": tok, "case": "lc" if self.lowercase else "mixed", "smooth": self.smooth,
                "eff": "yes" if self.effective_order else "no", "max-order": str(self.max_order)}

    def prepare(self, text: str) -> str:
        """The text as sacrebleu should see it: space-joined tokens of our own, or unchanged."""
        if self.tokenize in TOKENIZATIONS:
            return " ".join(self.tokens(text))
        return text

    def sentence_score(self, hypothesis: str, references: Sequence[str],
                       question: QuestionInfo | None = None) -> float:
        check_references(references)
        result = self._bleu.corpus_score([self.prepare(hypothesis)], [[self.prepare(r)] for r in references])
        return unit_score(result.score)

    def corpus_score(self, hypotheses: Sequence[str], references_lists: Sequence[Sequence[str]],
                     questions: Sequence[QuestionInfo | None] | None = None, *,
                     progress: Progress | None = None) -> MetricScore:
        check_corpus(hypotheses, references_lists, questions)
        if not hypotheses:
            return MetricScore(self.name, 0.0, 0)
        for references in references_lists:
            check_references(references)
        width = max(len(references) for references in references_lists)
        # sacrebleu takes reference streams; None pads segments with fewer references.
        streams = [[self.prepare(references[k]) if k < len(references) else None
                    for references in references_lists] for k in range(width)]
        # sacrebleu documents None for a missing reference (metrics/base.py, _extract_corpus_statistics)
        # but annotates the streams as Sequence[Sequence[str]].
        result = self._bleu.corpus_score([self.prepare(h) for h in hypotheses], streams)  # type: ignore[arg-type]
        details = {f"precision_{n + 1}": p / 100 for n, p in enumerate(result.precisions)}
        details.update(brevity_penalty=result.bp, hypothesis_length=result.sys_len,
                       reference_length=result.ref_len)
        if progress is not None:
            progress(len(hypotheses))
        return MetricScore(self.name, unit_score(result.score), len(hypotheses), details)


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
