"""Degraded answers (docs/method.md §3): the span table row by row, CJK spans, donors, always different."""
from __future__ import annotations

import random

import pytest

from da_core.text import tokenize
from hit_builder.degrade import (
    DegradationError,
    DonorPool,
    degrade,
    method_description,
    span_length,
    token_spans,
)

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def words(n: int, offset: int = 0) -> str:
    return " ".join(f"{WORDS[(i + offset) % len(WORDS)]}{i}" for i in range(n))


# (answer tokens, span) for every row of the table, at both ends of each row.
TABLE = [(1, 1), (2, 2), (3, 2), (5, 2), (6, 3), (8, 3), (9, 4), (15, 4), (16, 5), (20, 5),
         (21, 5), (23, 5), (24, 6), (40, 10), (101, 25)]
# Chinese/Japanese/Thai: characters, span doubled and capped at the answer length.
CHARACTER_TABLE = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 4), (6, 6), (7, 6), (8, 6), (9, 8), (15, 8),
                   (16, 10), (20, 10), (21, 10), (24, 12), (40, 20)]


@pytest.mark.parametrize(("tokens", "span"), TABLE)
def test_span_table(tokens: int, span: int) -> None:
    assert span_length(tokens) == span


@pytest.mark.parametrize(("tokens", "span"), CHARACTER_TABLE)
def test_span_table_for_character_scripts(tokens: int, span: int) -> None:
    assert span_length(tokens, character_script=True) == span


def _pool(n_questions: int = 30, length: int = 40) -> DonorPool:
    return DonorPool({f"d{q}": words(length, offset=q + 100) for q in range(n_questions)})


@pytest.mark.parametrize(("tokens", "span"), TABLE)
def test_degradation_replaces_exactly_one_span_of_the_table_length(tokens: int, span: int) -> None:
    pool = DonorPool({f"d{q}": words(120, offset=q + 1).upper() for q in range(10)})
    answer = words(tokens)
    result = degrade(answer, question="own", donors=pool, rng=random.Random(tokens))
    before, after = tokenize(answer), tokenize(result.text)
    assert result.span_length == span and result.tokens == tokens
    start, end = result.span_start, result.span_start + span
    assert after[:start] == before[:start] and after[end:] == before[end:]
    donor_tokens = tokenize(words(120, offset=int(result.donor_question[1:]) + 1).upper())
    assert after[start:end] == donor_tokens[result.donor_span_start:result.donor_span_start + span]
    assert result.text != answer


def test_chinese_answer_gets_a_chinese_span_of_doubled_length() -> None:
    references = {"en1": words(50), "en2": words(60, 3),
                  "zh1": "光合作用是植物利用阳光把水和二氧化碳变成糖和氧气的过程",
                  "zh2": "叶子里的叶绿素吸收阳光的能量然后储存在葡萄糖里面"}
    answer = "植物用阳光制造食物和氧气"  # 12 characters: 9–15 row, span 4 doubled to 8
    result = degrade(answer, question="zh3", donors=DonorPool(references), rng=random.Random(0))
    assert result.character_script and result.tokens == 12 and result.span_length == 8
    assert result.donor_question in {"zh1", "zh2"}
    changed = [i for i, (a, b) in enumerate(zip(answer, result.text)) if a != b]
    assert len(result.text) == len(answer) and changed
    assert result.span_start <= min(changed) and max(changed) < result.span_start + 8


def test_donor_is_never_the_own_question() -> None:
    # The own question's reference is the only long one for most draws; it must never be used.
    references = {"own": words(60), "other": words(30, 5)}
    for seed in range(200):
        result = degrade(words(40, 2), question="own", donors=DonorPool(references), rng=random.Random(seed))
        assert result.donor_question == "other"


def test_result_always_differs_by_retrying_other_donors() -> None:
    # Most donors hold exactly the answer's word; only one can change it.
    references = {f"same{i}": "yes" for i in range(50)} | {"different": "no"}
    for seed in range(50):
        result = degrade("yes", question="q", donors=DonorPool(references), rng=random.Random(seed))
        assert result.text == "no" and result.donor_question == "different"


def test_no_donor_can_change_the_answer_is_a_clear_error() -> None:
    references = {f"same{i}": "yes" for i in range(5)}
    with pytest.raises(DegradationError, match="no reference of another question has 1 token"):
        degrade("yes", question="q", donors=DonorPool(references), rng=random.Random(0))
    with pytest.raises(DegradationError, match="no reference of another question has 5 token"):
        degrade(words(20), question="q", donors=DonorPool({"short": "two words"}), rng=random.Random(0))


def test_empty_answer_is_an_error_not_a_crash() -> None:
    with pytest.raises(DegradationError, match="empty"):
        degrade("   ", question="q7", donors=_pool(), rng=random.Random(0))


def test_text_outside_the_span_is_kept_exactly() -> None:
    answer = "First  line here,\nsecond line\tthere and more words to keep around it."
    result = degrade(answer, question="q", donors=_pool(), rng=random.Random(3))
    spans = token_spans(answer)
    start = spans[result.span_start][0]
    end = spans[result.span_start + result.span_length - 1][1]
    assert result.text.startswith(answer[:start]) and result.text.endswith(answer[end:])


def test_same_generator_state_gives_the_same_degradation() -> None:
    one = degrade(words(30), question="q", donors=_pool(), rng=random.Random(9))
    two = degrade(words(30), question="q", donors=_pool(), rng=random.Random(9))
    assert one == two
    record = one.record()
    assert record["method"] == "span-replacement" and "text" not in record
    assert set(record) >= {"span_start", "span_length", "donor_question", "donor_span_start", "tokens"}


def test_token_spans_locate_every_token() -> None:
    text = "  Hello 世界, big   world "
    assert [text[a:b] for a, b in token_spans(text)] == tokenize(text) == ["Hello", "世", "界", ",", "big", "world"]


def test_method_description_states_the_table() -> None:
    description = method_description()
    assert description["method"] == "span-replacement"
    assert [row["span"] for row in description["span_table"]] == [1, 2, 3, 4, 5, "tokens // 4"]


# -- the answer's script is kept (no Chinese fragment in an English check, nor the reverse) ---------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hit_builder.degrade import MixedScriptError, check_scripts, scripts  # noqa: E402

LATIN_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789", min_size=1, max_size=9)
HAN = st.text(alphabet="的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动", min_size=1,
              max_size=3)
PUNCTUATION = st.sampled_from(["", ",", ".", "，", "。", "!", "?"])


@st.composite
def answers(draw) -> str:
    """An English, Chinese or mixed answer (Chinese with a Latin name, English with a Chinese word)."""
    kind = draw(st.sampled_from(["latin", "han", "han+latin", "latin+han"]))
    if kind.startswith("latin"):
        parts = [draw(LATIN_WORDS) + draw(PUNCTUATION) for _ in range(draw(st.integers(1, 25)))]
        if kind == "latin+han":
            parts.insert(draw(st.integers(0, len(parts))), draw(HAN))
        return " ".join(parts)
    text = "".join(draw(HAN) + draw(PUNCTUATION) for _ in range(draw(st.integers(1, 15))))
    if kind == "han+latin":
        cut = draw(st.integers(0, len(text)))
        text = f"{text[:cut]} {draw(LATIN_WORDS)} {text[cut:]}".strip()
    return text


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(references=st.lists(answers(), min_size=8, max_size=30), answer=answers(), seed=st.integers(0, 2**32))
def test_degradation_never_adds_a_script_to_a_mixed_test_set(references: list[str], answer: str, seed: int) -> None:
    pool = DonorPool({index: text for index, text in enumerate(references)})
    try:
        result = degrade(answer, question="own", donors=pool, rng=random.Random(seed))
    except DegradationError as error:
        # No donor in the answer's script changes it: an honest refusal, never a mixed check.
        assert "in the answer's script" in str(error)
        return
    added = {s for s in scripts(result.text)} - set(scripts(answer))
    assert not added, (answer, result.text)
    check_scripts(answer, result.text, "here")


def test_scripts_and_the_build_time_check() -> None:
    assert scripts("The 2 NBA teams，好的。") == {"LATIN", "CJK"}
    assert scripts("ＡＢＣ 123 !?") == {"LATIN"}
    assert scripts("ひらがな カタカナ") == {"HIRAGANA", "KATAKANA"}
    check_scripts("长城有多长 NBA", "长城 NBA 很长", "fine")
    with pytest.raises(MixedScriptError, match="q7: the degraded answer adds CJK text"):
        check_scripts("The wall is long", "The wall 长城 long", "q7")


def test_a_latin_answer_takes_no_donor_from_chinese_references_even_when_latin_ones_are_short() -> None:
    pool = DonorPool({1: "长城是中国古代的军事防御工程，全长两万多公里。", 2: "Yes.", 3: "No."})
    with pytest.raises(DegradationError, match="3 token\\(s\\) in the answer's script"):
        degrade("The Great Wall is very long indeed", question=0, donors=pool, rng=random.Random(1))
    pool = DonorPool({1: "长城是中国古代的军事防御工程，全长两万多公里。", 2: "It was built over many centuries."})
    for seed in range(20):
        result = degrade("The Great Wall is very long indeed", question=0, donors=pool, rng=random.Random(seed))
        assert result.donor_question == 2 and scripts(result.text) == {"LATIN"}
