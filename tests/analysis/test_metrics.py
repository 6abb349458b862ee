"""Automatic metrics: hand-computed cases, sacrebleu's own values, and Yang et al.'s worked examples."""
from __future__ import annotations

import importlib.util
import random

import pytest
import sacrebleu

from analysis.metrics import (
    DEFAULT_METRICS,
    METRICS,
    AdaptedBleu,
    AdaptedRougeL,
    Bleu1,
    Bleu4,
    ExactMatch,
    Meteor,
    MeteorWordNet,
    MetricUnavailable,
    QuestionInfo,
    RougeL,
    TokenF1,
    get_metric,
    infer_yes_no_label,
    normalize_answer,
)
from analysis.metrics.lcs import lcs_length
from analysis.metrics.meteor import count_chunks


def _lcs_table(a, b) -> int:
    """Textbook O(nm) dynamic programme, the oracle for the bit-parallel version."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


# --- LCS and ROUGE-L ---------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, expected", [
    ("ABCBDAB", "BDCABA", 4),                 # Cormen et al.'s example
    ("", "abc", 0),
    ("abc", "abc", 3),
    ("abc", "def", 0),
    ("北京是中国的首都", "中国的首都是北京", 5),   # 中国的首都
    ("我爱北京天安门", "我爱北京", 4),
    ("首都是北京", "中国的首都是北京市", 5),
])
def test_lcs_hand_cases(a, b, expected):
    assert lcs_length(list(a), list(b)) == expected
    assert lcs_length(list(b), list(a)) == expected


def test_lcs_matches_the_textbook_table_on_random_sequences():
    rng = random.Random(8)
    for _ in range(2000):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]  # wider than one machine word
        assert lcs_length(a, b) == _lcs_table(a, b)


def test_rouge_l_english_hand_case():
    # LCS(the cat sat on the mat, the cat is on the mat) = the cat on the mat = 5; P = R = 5/6.
    assert RougeL().sentence_score("the cat sat on the mat", ["the cat is on the mat"]) == pytest.approx(5 / 6)


def test_rouge_l_chinese_counts_characters():
    # 首都是北京 (5 characters) is a subsequence of 中国的首都是北京市 (9): P = 1, R = 5/9.
    p, r = 1.0, 5 / 9
    expected = (1 + 1.2**2) * p * r / (r + 1.2**2 * p)
    assert RougeL().precision_recall("首都是北京", ["中国的首都是北京市"]) == (pytest.approx(p), pytest.approx(r))
    assert RougeL().sentence_score("首都是北京", ["中国的首都是北京市"]) == pytest.approx(expected)
    assert RougeL().sentence_score("北京是中国的首都", ["中国的首都是北京"]) == pytest.approx(5 / 8)


def test_rouge_l_gamma_weighs_recall():
    p, r = 1.0, 0.5  # hyp "a b" inside ref "a b c d"
    for gamma in (1.0, 1.2, 3.0):
        expected = (1 + gamma**2) * p * r / (r + gamma**2 * p)
        assert RougeL(gamma=gamma).sentence_score("a b", ["a b c d"]) == pytest.approx(expected)
    assert RougeL(gamma=1.0).sentence_score("a b", ["a b c d"]) == pytest.approx(2 / 3)


def test_rouge_l_takes_best_precision_and_best_recall_over_references():
    # ref 1 gives P = 2/4, R = 1; ref 2 gives P = 1, R = 4/8: the MS MARCO convention keeps P = R = 1.
    assert RougeL().precision_recall("a b c d", ["a b", "a b c d e f g h"]) == (1.0, 1.0)
    assert RougeL().sentence_score("a b c d", ["a b", "a b c d e f g h"]) == pytest.approx(1.0)


def test_rouge_l_empty_hypothesis_scores_zero():
    assert RougeL().sentence_score("", ["a b"]) == 0.0


# --- BLEU against sacrebleu --------------------------------------------------------------------

SACREBLEU_SYS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
SACREBLEU_REFS = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
                  ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]


def test_bleu_reproduces_sacrebleus_documented_example():
    # sacrebleu's README: BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
    per_segment = [list(refs) for refs in zip(*SACREBLEU_REFS)]
    result = Bleu4(tokenize="13a").corpus_score(SACREBLEU_SYS, per_segment)
    assert round(result.score * 100, 2) == 48.53
    assert result.details["hypothesis_length"] == 17 and result.details["reference_length"] == 18
    assert result.score == sacrebleu.corpus_bleu(SACREBLEU_SYS, SACREBLEU_REFS).score / 100


ENGLISH = [
    ("the cat sat on the mat", ["the cat is on the mat", "there is a cat on the mat"]),
    ("a quick brown fox jumps over the lazy dog", ["the quick brown fox jumped over the lazy dog"]),
    ("paris is the capital of france", ["the capital of france is paris"]),
    ("no", ["yes it is"]),
]
CHINESE = [
    ("北京是中国的首都", ["中国的首都是北京", "北京"]),
    ("水在一百度时沸腾", ["在标准大气压下水在一百摄氏度沸腾"]),
]


def _unsmoothed(hyp, refs, order=4, tokenize="13a"):
    """sacrebleu's BLEU of one sentence as defined: no smoothing, no effective order."""
    bleu = sacrebleu.BLEU(max_ngram_order=order, tokenize=tokenize, smooth_method="none")
    return bleu.corpus_score([hyp], [[r] for r in refs]).score / 100


def test_platform_tokens_give_sacrebleus_13a_values_on_unpunctuated_english():
    for hyp, refs in ENGLISH:
        assert Bleu4().sentence_score(hyp, refs) == pytest.approx(_unsmoothed(hyp, refs))
        assert Bleu1().sentence_score(hyp, refs) == pytest.approx(_unsmoothed(hyp, refs, order=1))
    # smoothing only by choice: sacrebleu's sentence-BLEU settings on request
    hyp, refs = ENGLISH[0]
    assert Bleu4(smooth="exp", effective_order=True).sentence_score(hyp, refs) == pytest.approx(
        sacrebleu.sentence_bleu(hyp, refs).score / 100)


def test_platform_tokens_give_sacrebleus_zh_values_on_chinese():
    for hyp, refs in CHINESE:
        expected = _unsmoothed(hyp, refs, tokenize="zh")
        assert Bleu4().sentence_score(hyp, refs) == pytest.approx(expected)
    hyps = [h for h, _ in CHINESE]
    refs = [r for _, r in CHINESE]
    streams = [[r[0] for r in refs], [r[1] if len(r) > 1 else None for r in refs]]
    assert Bleu4().corpus_score(hyps, refs).score == pytest.approx(
        sacrebleu.corpus_bleu(hyps, streams, tokenize="zh").score / 100)


def test_corpus_bleu_with_a_varying_number_of_references_matches_sacrebleu():
    data = ENGLISH + CHINESE
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    streams = [[r[0] for r in refs], [r[1] if len(r) > 1 else None for r in refs]]
    for metric, order in ((Bleu4(), 4), (Bleu1(), 1)):
        expected = sacrebleu.BLEU(tokenize="zh", max_ngram_order=order).corpus_score(hyps, streams).score / 100
        assert metric.corpus_score(hyps, refs).score == pytest.approx(expected)


def test_bleu_mixed_languages_use_platform_tokens():
    # One corpus mixing English and Chinese: both are tokenised by da_core.text.tokenize.
    assert Bleu1().sentence_score("北京 is 首都", ["北京 is the 首都"]) == pytest.approx(
        _unsmoothed("北 京 is 首 都", ["北 京 is the 首 都"], order=1, tokenize="none"))


# --- METEOR -------------------------------------------------------------------------------------

def test_meteor_exact_stage_then_stem_stage():
    hyp, ref = "the cats sat on the mat", ["the cat sat on the mat"]
    # exact only: 5 matches in 2 chunks (cats breaks the run); P = R = 5/6
    exact = 5 / 6 * (1 - 0.5 * (2 / 5) ** 3)
    assert Meteor(stem=False).sentence_score(hyp, ref) == pytest.approx(exact)
    # with stems cats ~ cat: 6 matches in 1 chunk
    assert Meteor().sentence_score(hyp, ref) == pytest.approx(1 - 0.5 * (1 / 6) ** 3)


def test_meteor_fragmentation_penalty_over_chunks():
    meteor = Meteor()
    hyp, ref = "on the mat sat the cat".split(), "the cat sat on the mat".split()
    matches = meteor.align(hyp, ref)
    assert sorted(matches) == [(0, 3), (1, 0), (2, 5), (3, 2), (4, 4), (5, 1)]
    assert count_chunks(matches) == 6
    assert meteor.score_tokens(hyp, ref) == pytest.approx(1 * (1 - 0.5 * 1.0**3))


def test_meteor_fmean_weighs_recall():
    p, r = 1.0, 1 / 3  # "cat" against "the cat sat"
    fmean = p * r / (0.9 * p + 0.1 * r)
    assert Meteor().sentence_score("cat", ["the cat sat"]) == pytest.approx(fmean * (1 - 0.5))
    assert Meteor().sentence_score("dog", ["the cat sat"]) == 0.0


def test_meteor_best_reference_and_chinese_characters():
    assert Meteor().sentence_score("北京", ["上海", "北京"]) == pytest.approx(1 - 0.5 * (1 / 2) ** 3)


def test_meteor_wordnet_backend_reports_what_is_missing():
    if importlib.util.find_spec("nltk") is None:
        with pytest.raises(MetricUnavailable, match="pip install nltk"):
            MeteorWordNet()
        with pytest.raises(MetricUnavailable):
            get_metric("meteor-wordnet")
    else:  # NLTK present: either its WordNet data is installed or the message says how to get it
        try:
            MeteorWordNet.check_available()
        except MetricUnavailable as error:
            assert "nltk.downloader wordnet" in str(error)
    assert "meteor-wordnet" not in DEFAULT_METRICS


# --- exact match and F1 -------------------------------------------------------------------------

def test_squad_normalisation():
    assert normalize_answer("The  Eiffel Tower!") == ["eiffel", "tower"]
    assert normalize_answer("an apple, a pear") == ["apple", "pear"]
    assert normalize_answer("北京。") == ["北", "京"]
    assert normalize_answer("Theatre") == ["theatre"]  # articles only as whole words


@pytest.mark.parametrize("hyp, refs, em, f1", [
    ("The Eiffel Tower!", ["eiffel tower"], 1.0, 1.0),
    ("the cat sat", ["a cat sat down"], 0.0, 0.8),          # P = 2/2, R = 2/3
    ("Denver Broncos", ["Carolina Panthers", "Broncos"], 0.0, 2 / 3),
    ("北京大学", ["北京"], 0.0, 2 / 3),                       # characters: P = 2/4, R = 2/2
    ("北京。", ["北京"], 1.0, 1.0),
    ("cat", ["dog"], 0.0, 0.0),
    ("the", ["a"], 1.0, 1.0),                                # both normalise to nothing
])
def test_exact_match_and_f1_squad_cases(hyp, refs, em, f1):
    assert ExactMatch().sentence_score(hyp, refs) == em
    assert TokenF1().sentence_score(hyp, refs) == pytest.approx(f1)


def test_corpus_scores_of_em_and_f1_are_means():
    result = TokenF1().corpus_score(["the cat sat", "cat"], [["a cat sat down"], ["cat"]])
    assert result.score == pytest.approx((0.8 + 1.0) / 2) and result.n == 2
    assert ExactMatch().corpus_score(["x", "y"], [["x"], ["z"]]).score == 0.5


# --- adapted ROUGE-L and BLEU (Yang et al. 2018) --------------------------------------------------

YES_NO = QuestionInfo(answer_type="yes_no", yes_no_label="Yes", answer_label="yes")
HYP_YN = "yes it is safe to eat these"                                 # 7 tokens, label yes
REF_YN = "yes it is generally safe for most adults to eat them daily"  # 12 tokens; LCS = 6


def test_adapted_rouge_l_worked_example():
    p, r = AdaptedRougeL(alpha=1.0).precision_recall(HYP_YN, [REF_YN], YES_NO)
    assert p == pytest.approx(12 / 13) and r == pytest.approx(12 / 18)   # (6+6)/(7+6), (6+6)/(12+6)
    f = (1 + 1.2**2) * (12 / 13) * (12 / 18) / (12 / 18 + 1.2**2 * 12 / 13)
    assert AdaptedRougeL(alpha=1.0).sentence_score(HYP_YN, [REF_YN], YES_NO) == pytest.approx(f)
    # without the bonus it is plain ROUGE-L: 6/7 and 6/12
    assert RougeL().precision_recall(HYP_YN, [REF_YN]) == (pytest.approx(6 / 7), pytest.approx(6 / 12))


def test_adapted_rouge_l_gives_no_bonus_for_the_wrong_opinion():
    wrong = "no it is safe to eat these"
    wrong_label = QuestionInfo(answer_type="yes_no", yes_no_label="Yes", answer_label="no")
    assert AdaptedRougeL().sentence_score(wrong, [REF_YN], wrong_label) == RougeL().sentence_score(wrong, [REF_YN])
    assert AdaptedRougeL().sentence_score(HYP_YN, [REF_YN], QuestionInfo("yes_no", "No", answer_label="yes")) == \
        RougeL().sentence_score(HYP_YN, [REF_YN])
    # no label given with the answer: no bonus (nothing is guessed from "yes it is ...")
    assert AdaptedRougeL().sentence_score(HYP_YN, [REF_YN], QuestionInfo("yes_no", "Yes")) == \
        RougeL().sentence_score(HYP_YN, [REF_YN])


ENTITY = QuestionInfo(answer_type="entity", gold_entities=("new york city", "los angeles"))
HYP_ENT = "new york city and los angeles too"    # 7 tokens, 6 bigrams
REF_ENT = "new york city and la or los angeles"  # shares 4 bigrams with the hypothesis


def test_adapted_bleu_worked_example_bigram_precision():
    stats = AdaptedBleu(beta=1.0).statistics(HYP_ENT, [REF_ENT], ENTITY)
    correct, total = stats[2:6], stats[6:10]
    # bigrams: 4 match the reference, 3 (new york, york city, los angeles) match gold entities
    assert correct[1] / total[1] == pytest.approx((4 + 3) / (6 + 3))
    # unigrams: 6 of 7 match, 5 entity tokens
    assert correct[0] / total[0] == pytest.approx((6 + 5) / (7 + 5))
    plain = AdaptedBleu(beta=0.0).statistics(HYP_ENT, [REF_ENT], ENTITY)
    assert plain[3] / plain[7] == pytest.approx(4 / 6)


def test_adapted_rouge_l_entity_bonus_counts_contained_entity_tokens():
    # LCS(hyp, ref) = new york city and los angeles = 6; entities contained: 3 + 2 tokens
    p, r = AdaptedRougeL(beta=1.0).precision_recall(HYP_ENT, [REF_ENT], ENTITY)
    assert (p, r) == (pytest.approx((6 + 5) / (7 + 5)), pytest.approx((6 + 5) / (8 + 5)))


def test_adapted_bleu_yes_no_bonus_adds_alpha_times_matches():
    stats = AdaptedBleu(alpha=0.5).statistics(HYP_YN, [REF_YN], YES_NO)
    plain = AdaptedBleu(alpha=0.0).statistics(HYP_YN, [REF_YN], YES_NO)
    for n in range(4):
        assert stats[2 + n] == pytest.approx(1.5 * plain[2 + n])
        assert stats[6 + n] == pytest.approx(plain[6 + n] + 0.5 * plain[2 + n])


def test_adapted_metrics_without_bonus_equal_the_plain_metrics():
    data = ENGLISH + CHINESE + [(HYP_ENT, [REF_ENT]), (HYP_YN, [REF_YN])]
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    descriptions = [QuestionInfo(answer_type="description")] * len(data)
    assert AdaptedBleu().corpus_score(hyps, refs, descriptions).score == pytest.approx(
        Bleu4().corpus_score(hyps, refs).score)
    for hyp, ref in data:
        assert AdaptedBleu(alpha=0, beta=0).sentence_score(hyp, ref, ENTITY) == pytest.approx(
            Bleu4().sentence_score(hyp, ref))
        assert AdaptedRougeL().sentence_score(hyp, ref) == RougeL().sentence_score(hyp, ref)


@pytest.mark.parametrize("text, label", [
    ("Yes, it is.", "yes"), ("no", "no"), ("Not really", "no"), ("It depends on the dose", "depends"),
    ("是的，可以", "yes"), ("不是", "no"), ("Nobody knows", None), ("yesterday", None), ("", None),
    ("对于这个问题，要看情况", None), ("Never mind, you can eat them.", None), ("是否可以取决于温度", None),
])
def test_infer_yes_no_label(text, label):
    assert infer_yes_no_label(text) == label


# --- registry -----------------------------------------------------------------------------------

def test_registry_metrics_score_a_perfect_answer_one_and_stay_in_range():
    hyps = ["the quick brown fox jumps over the lazy dog", "北京是中国的首都"]
    refs = [[h] for h in hyps]
    for name in DEFAULT_METRICS:
        metric = get_metric(name)
        assert metric.name == name and METRICS[name] is type(metric)
        # METEOR keeps a penalty for the single chunk: 1 - 0.5 * (1/m)^3 with m = 9 words, 8 characters
        perfect = ((1 - 0.5 / 9**3) + (1 - 0.5 / 8**3)) / 2 if name == "meteor" else 1.0
        assert metric.corpus_score(hyps, refs).score == pytest.approx(perfect, abs=1e-12), name
        assert 0.0 <= metric.sentence_score("a fox", ["the quick brown fox"]) <= 1.0
    with pytest.raises(KeyError, match="known"):
        get_metric("bleurt")


def test_misaligned_corpus_is_an_error():
    with pytest.raises(ValueError, match="2 hypotheses but 1"):
        RougeL().corpus_score(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="at least one reference"):
        Bleu4().corpus_score(["a"], [[]])
    with pytest.raises(TypeError):
        RougeL().sentence_score("a", "a")
