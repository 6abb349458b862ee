"""The metrics exactly as defined (docs/metrics.md): tokens, the four worked checks of Yang et al. 2018
on our own sentences built to those counts, no smoothing, signatures, METEOR's fewest-crossings
alignment, and properties against rouge-score and sacrebleu on the same tokens."""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from analysis.metrics import (
    PAPER,
    AdaptedBleu,
    AdaptedRougeL,
    Bleu1,
    Bleu4,
    Meteor,
    QuestionInfo,
    RougeL,
)
from analysis.metrics.config import MetricSettings, configure
from analysis.metrics.meteor import align, crossings
from analysis.metrics.tokenize import char_tokens, word_tokens

# --- tokens --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, tokens", [
    ("Regular exercise helps.", ["Regular", "exercise", "helps", "."]),       # the period is a token
    ("It wasn't 8,848.86 m high, was it?", ["It", "wasn", "'", "t", "8,848.86", "m", "high", ",", "was", "it", "?"]),
    ("8848.86米", ["8", "8", "4", "8", ".", "8", "6", "米"]),                   # digits inside Chinese: characters
    ("iPhone手机。", ["i", "P", "h", "o", "n", "e", "手", "机", "。"]),
    ("我用 Python 编程", ["我", "用", "Python", "编", "程"]),
    ("กินข้าว", list("กินข้าว")),                                               # Thai as characters
    ("Straße", ["Straße"]),                                                    # case and letters kept
])
def test_words_tokenisation(text, tokens):
    assert word_tokens(text) == tokens


def test_chars_tokenisation_is_the_official_scorers():
    assert char_tokens("8848.86 米 high") == list("8848.86米high")


# --- the four worked checks (METRICS.md), word tokens with the period as a token -------------------

# BLEU, yes/no, α = 1: 6 candidate bigrams, 4 match the references; the reference with the candidate's
# label ("yes") holds 3 of them, the one with the opposite label holds "eat raw", which must not count.
YN_CANDIDATE = "Yes you can eat raw eggs."                      # 7 tokens, 6 bigrams
YN_SAME = "Yes you can, but cook raw eggs first"                 # Yes you, you can, raw eggs
YN_OPPOSITE = "No, never eat raw meat."                          # eat raw
YN_INFO = QuestionInfo(answer_type="yes_no", reference_labels=("yes", "no"), answer_label="yes")


def test_worked_check_bleu_yes_no_bonus():
    metric = AdaptedBleu(alpha=1.0)
    stats = metric.statistics(YN_CANDIDATE, [YN_SAME, YN_OPPOSITE], YN_INFO)
    plain = AdaptedBleu(alpha=0.0).statistics(YN_CANDIDATE, [YN_SAME, YN_OPPOSITE], YN_INFO)
    assert Fraction(plain[3]) / Fraction(plain[7]) == Fraction(4, 6)
    assert Fraction(stats[3]) / Fraction(stats[7]) == Fraction(7, 9)            # (4 + 3) / (6 + 3)
    # counting the opposite reference too would give (4 + 4) / (6 + 4)
    both_yes = QuestionInfo(answer_type="yes_no", reference_labels=("yes", "yes"), answer_label="yes")
    wrong = metric.statistics(YN_CANDIDATE, [YN_SAME, YN_OPPOSITE], both_yes)
    assert Fraction(wrong[3]) / Fraction(wrong[7]) == Fraction(8, 10)


ENTITY_CANDIDATE = "the most famous one is the Golden Gate Bridge, which opened in 1937 to traffic."  # 17 tokens
ENTITY_REFERENCE_BLEU = "the Golden Gate Bridge opened in 1937."   # 5 bigrams in common with the candidate


def test_worked_check_bleu_entity_bonus():
    info = QuestionInfo(answer_type="entity", gold_entities=("Golden Gate Bridge", "Bay Bridge"))
    assert len(word_tokens(ENTITY_CANDIDATE)) == 17
    plain = AdaptedBleu(beta=0.0).statistics(ENTITY_CANDIDATE, [ENTITY_REFERENCE_BLEU], info)
    stats = AdaptedBleu(beta=1.0).statistics(ENTITY_CANDIDATE, [ENTITY_REFERENCE_BLEU], info)
    assert Fraction(plain[3]) / Fraction(plain[7]) == Fraction(5, 16)
    assert Fraction(stats[3]) / Fraction(stats[7]) == Fraction(7, 18)            # (5 + 2) / (16 + 2)


def test_worked_check_rouge_l_yes_no_bonus():
    candidate = "Yes, boiled eggs are safe."                                 # 7 tokens
    reference = "Yes, fresh raw eggs are usually safe for healthy adults."    # 12 tokens, LCS 6
    info = QuestionInfo(answer_type="yes_no", reference_labels=("yes",), answer_label="yes")
    assert RougeL().precision_recall(candidate, [reference]) == (pytest.approx(6 / 7), pytest.approx(6 / 12))
    p, r = AdaptedRougeL(alpha=1.0).precision_recall(candidate, [reference], info)
    assert (p, r) == (pytest.approx(12 / 13), pytest.approx(12 / 18))
    f = Fraction(1 + Fraction(36, 25)) * Fraction(12, 13) * Fraction(12, 18) / (
        Fraction(12, 18) + Fraction(36, 25) * Fraction(12, 13))
    assert AdaptedRougeL(alpha=1.0).sentence_score(candidate, [reference], info) == pytest.approx(float(f), abs=1e-15)
    # the paper's 0.78 is the harmonic mean (γ = 1) of the rounded 0.92 and 0.67; exactly it is 48/62
    assert AdaptedRougeL(alpha=1.0, gamma=1.0).sentence_score(candidate, [reference], info) == \
        pytest.approx(48 / 62, abs=1e-15)
    opposite = QuestionInfo(answer_type="yes_no", reference_labels=("no",), answer_label="yes")
    assert AdaptedRougeL().precision_recall(candidate, [reference], opposite) == \
        RougeL().precision_recall(candidate, [reference])


def test_worked_check_rouge_l_entity_bonus():
    reference = "it is the Golden Gate Bridge in San Francisco, finished four years."  # 14 tokens, LCS 7
    info = QuestionInfo(answer_type="entity", gold_entities=("Golden Gate Bridge", "1937", "Bay Bridge", "1937"))
    assert len(word_tokens(reference)) == 14
    assert RougeL().precision_recall(ENTITY_CANDIDATE, [reference]) == (pytest.approx(7 / 17), pytest.approx(7 / 14))
    p, r = AdaptedRougeL(beta=1.0).precision_recall(ENTITY_CANDIDATE, [reference], info)
    assert (p, r) == (pytest.approx(11 / 21), pytest.approx(11 / 18))          # entities 3 + 1 tokens


def test_a_question_gets_one_bonus_type():
    both = QuestionInfo(yes_no_label="yes", gold_entities=("eggs",), answer_label="yes")
    assert both.bonus_type == "yes_no"
    assert QuestionInfo(gold_entities=("eggs",)).bonus_type == "entity"
    assert QuestionInfo(answer_type="description", yes_no_label="yes").bonus_type is None
    # yes/no question: the entity list gives no bonus
    assert AdaptedRougeL().sentence_score("eggs", ["no eggs"], QuestionInfo("yes_no", "yes", ("eggs",))) == \
        RougeL().sentence_score("eggs", ["no eggs"])


def test_paper_preset_and_parameters_reach_the_metrics():
    metrics = configure(["rouge-l", "meteor", "rouge-l-adapted", "bleu-4-adapted"],
                        MetricSettings(alpha=PAPER["alpha"], beta=PAPER["beta"], gamma=PAPER["gamma"]))
    rouge, meteor, adapted_rouge, adapted_bleu = metrics
    assert (adapted_rouge.alpha, adapted_rouge.beta, adapted_rouge.gamma) == (2.0, 1.0, 1.2)
    assert adapted_bleu.alpha == 2.0 and rouge.gamma == 1.2
    assert (meteor.alpha, meteor.beta, meteor.gamma) == (0.9, 3.0, 0.5)   # METEOR keeps its own parameters
    info = QuestionInfo(answer_type="yes_no", reference_labels=("yes",), answer_label="yes")
    p, r = adapted_rouge.precision_recall("Yes, boiled eggs are safe.",
                                          ["Yes, fresh raw eggs are usually safe for healthy adults."], info)
    assert (p, r) == (pytest.approx(18 / 19), pytest.approx(18 / 24))      # (6 + 2·6) / (7 + 2·6), ...


# --- BLEU as defined -------------------------------------------------------------------------------

def test_bleu_has_no_smoothing_by_default():
    # a 3-token exact answer has no 4-grams: BLEU-4 is 0 as defined (sacrebleu's sentence default gives 1)
    assert Bleu4().sentence_score("北京市", ["北京市"]) == 0.0
    assert AdaptedBleu().sentence_score("北京市", ["北京市"]) == 0.0
    assert Bleu1().sentence_score("北京市", ["北京市"]) == 1.0
    assert Bleu4(smooth="exp", effective_order=True).sentence_score("北京市", ["北京市"]) == 1.0


def test_signatures_name_everything_the_score_depends_on():
    metrics = configure(["rouge-l", "bleu-4", "meteor", "rouge-l-adapted", "bleu-4-adapted"],
                        MetricSettings(alpha=2.0, bleu_tokenize="13a", labels="data+guess"))
    rouge, bleu, meteor, adapted_rouge, adapted_bleu = (m.signature() for m in metrics)
    assert rouge.startswith("rouge-l|tok:words|case:mixed|gamma:1.2|") and "|version:" in rouge
    assert bleu.startswith("bleu-4|tok:sacrebleu-13a|case:mixed|smooth:none|eff:no|max-order:4|")
    assert "align:fewest-crossings" in meteor
    assert adapted_rouge.startswith("rouge-l-adapted|tok:words|case:mixed|labels:data+guess|alpha:2|beta:1|gamma:1.2|")
    assert "|smooth:none|" in adapted_bleu and "|alpha:2|" in adapted_bleu


@pytest.mark.parametrize("tokenize", ["13a", "zh", "intl", "char"])
def test_plain_bleu_takes_sacrebleus_tokenizers(tokenize):
    hyp, refs = "The dog bit the man, it wasn't 北京的狗.", ["The dog bit the man.", "It was not 北京的狗."]
    expected = sacrebleu.BLEU(tokenize=tokenize, smooth_method="none").corpus_score([hyp], [[r] for r in refs])
    assert 0 < expected.score < 100
    assert Bleu4(tokenize=tokenize).sentence_score(hyp, refs) == pytest.approx(expected.score / 100, abs=1e-15)
    assert Bleu4(tokenize=tokenize).signature().startswith(f"bleu-4|tok:sacrebleu-{tokenize}|")


# --- METEOR's alignment ----------------------------------------------------------------------------

def test_meteor_alignment_chooses_the_fewest_crossings():
    # "the" twice in the reference: the greedy pairing takes the first and crosses "cat";
    # the fewest-crossings alignment takes the second and crosses nothing.
    hyp, ref = ["cat", "the"], ["the", "cat", "the"]
    matches = align(hyp, ref, (str,))
    assert sorted(matches) == [(0, 1), (1, 2)]
    assert crossings(matches, matches) == 0
    # one chunk instead of two
    assert Meteor(stem=False).score_tokens(hyp, ref) == pytest.approx(
        (1 * (2 / 3) / (0.9 * 1 + 0.1 * (2 / 3))) * (1 - 0.5 * (1 / 2) ** 3))


def _brute_force_fewest_crossings(hyp, ref):
    """Every maximum matching of equal tokens, the smallest number of crossings among them."""
    best = None
    pairs = [(i, j) for i, h in enumerate(hyp) for j, r in enumerate(ref) if h == r]
    size = sum(min(hyp.count(t), ref.count(t)) for t in set(hyp))
    for chosen in combinations(pairs, size):
        if len({i for i, _ in chosen}) < size or len({j for _, j in chosen}) < size:
            continue
        cost = sum(1 for a, (i, j) in enumerate(chosen) for k, m in chosen[a + 1:] if (i - k) * (j - m) < 0)
        best = cost if best is None else min(best, cost)
    return best or 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=6), st.lists(st.sampled_from("abcd"), max_size=7))
def test_meteor_alignment_is_a_maximum_matching_with_fewest_crossings(hyp, ref):
    matches = align(hyp, ref, (str,))
    assert len(matches) == sum(min(hyp.count(t), ref.count(t)) for t in set(hyp))
    assert all(hyp[i] == ref[j] for i, j in matches)
    internal = sum(1 for a, (i, j) in enumerate(matches) for k, m in matches[a + 1:] if (i - k) * (j - m) < 0)
    assert internal == _brute_force_fewest_crossings(hyp, ref)


# --- properties against rouge-score and sacrebleu on the same tokens ------------------------------

TOKENS = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "a", ".", ",", "北", "京", "8848"]),
                  min_size=0, max_size=14)


class _Whitespace:
    """rouge-score tokenizer that keeps our tokens as they are."""

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return text.split()


@settings(max_examples=200, deadline=None)
@given(TOKENS, TOKENS)
def test_rouge_l_equals_rouge_score_recombined_at_gamma_1_2(hyp, ref):
    hyp_text, ref_text = " ".join(hyp), " ".join(ref)
    assert word_tokens(hyp_text) == hyp and word_tokens(ref_text) == ref
    score = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Whitespace()).score(ref_text, hyp_text)["rougeL"]
    p, r = score.precision, score.recall
    expected = 0.0 if p == 0 or r == 0 else (1 + 1.2**2) * p * r / (r + 1.2**2 * p)
    assert RougeL().precision_recall(hyp_text, [ref_text]) == (pytest.approx(p), pytest.approx(r))
    assert RougeL().sentence_score(hyp_text, [ref_text]) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(TOKENS, st.lists(TOKENS.filter(bool), min_size=1, max_size=3))
def test_bleu_equals_sacrebleu_without_smoothing_on_the_same_tokens(hyp, refs):
    hyp_text, ref_texts = " ".join(hyp), [" ".join(r) for r in refs]
    for metric, order in ((Bleu4(), 4), (Bleu1(), 1)):
        bleu = sacrebleu.BLEU(tokenize="none", smooth_method="none", max_ngram_order=order)
        expected = bleu.corpus_score([hyp_text], [[r] for r in ref_texts]).score / 100
        assert metric.sentence_score(hyp_text, ref_texts) == pytest.approx(expected, abs=1e-12)
        assert 0.0 <= metric.sentence_score(hyp_text, ref_texts) <= 1.0
    # the adapted BLEU without a bonus is the same number
    none = QuestionInfo(answer_type="description")
    assert AdaptedBleu().sentence_score(hyp_text, ref_texts, none) == pytest.approx(
        Bleu4().sentence_score(hyp_text, ref_texts), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(TOKENS, st.lists(TOKENS.filter(bool), min_size=1, max_size=2)), min_size=1, max_size=5))
def test_corpus_bleu_equals_sacrebleu_and_bonuses_never_pass_one(corpus):
    hyps = [" ".join(h) for h, _ in corpus]
    refs = [[" ".join(r) for r in rs] for _, rs in corpus]
    streams = [[rs[k] if k < len(rs) else None for rs in refs] for k in range(2)]
    expected = sacrebleu.BLEU(tokenize="none", smooth_method="none").corpus_score(hyps, streams).score / 100
    assert Bleu4().corpus_score(hyps, refs).score == pytest.approx(expected, abs=1e-12)
    infos = [QuestionInfo(answer_type="yes_no", reference_labels=("yes",) * len(rs), answer_label="yes",
                          gold_entities=("the cat",)) for rs in refs]
    for metric in (AdaptedBleu(alpha=2.0, beta=1.0), AdaptedRougeL(alpha=2.0, beta=1.0)):
        assert 0.0 <= metric.corpus_score(hyps, refs, infos).score <= 1.0


def test_chars_tokenisation_reproduces_the_official_scorers_units():
    # "8848.86米" vs "高8848.86米": the official scorer's characters; with words both are characters too
    for tokenization in ("chars", "words"):
        rouge = RougeL(tokenization=tokenization)
        assert rouge.precision_recall("8848.86米", ["高8848.86米"]) == (1.0, pytest.approx(8 / 9))
    # in English, chars compares letters: unrelated words share many of them
    assert RougeL(tokenization="chars").sentence_score("Never mind", ["No, never."]) > 0.3
    assert RougeL().sentence_score("Never mind", ["No, never."]) == 0.0
    assert RougeL(tokenization="chars").signature().startswith("rouge-l|tok:chars|")


def test_bleu_tokenizer_choice_changes_plain_bleu_only():
    settings_13a = MetricSettings(bleu_tokenize="13a")
    bleu, adapted = configure(["bleu-4", "bleu-4-adapted"], settings_13a)
    assert bleu.signature().startswith("bleu-4|tok:sacrebleu-13a|")
    assert adapted.signature().startswith("bleu-4-adapted|tok:words|")


def test_meteor_alignment_of_a_word_repeated_very_often_still_has_every_match():
    # C(40, 12) ways to place 12 "the" among 40: past CHOICE_LIMIT only candidates are tried
    hyp = ("the cat " * 12).split()
    ref = ("the dog the the " * 10).split()
    matches = align(hyp, ref, (str,))
    assert len(matches) == 12 and all(hyp[i] == ref[j] == "the" for i, j in matches)
    assert crossings(matches, matches) == 0
    assert 0.0 < Meteor().sentence_score(" ".join(hyp), [" ".join(ref)]) < 1.0
