"""Meaning-change checks (hit_builder.meaning): each rule on known answers, and properties."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hit_builder.meaning import EntityPool, MeaningError, change_meaning, script_of

HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
POOL = EntityPool({"q1": ["FitTrail"], "q2": ["PaceMate"], "q3": ["绿峰复合肥"], "q4": ["记忆通"]})


def change(text: str, *, question: str = "q0", gold: tuple[str, ...] = ()):
    return change_meaning(text, question=question, gold_entities=gold, pool=POOL, rng=random.Random(0))


@pytest.mark.parametrize("text, rule, expected", [
    ("Yes, generally. Keep it warm.", "yes_no", "No, generally. Keep it warm."),
    ("No. Check the leaves.", "yes_no", "Yes. Check the leaves."),
    ("是的。春天放一些缓释肥。", "yes_no", "不是。春天放一些缓释肥。"),
    ("You should run it empty.", "negation", "You shouldn't run it empty."),
    ("It may rain.", "negation", "It may not rain."),
    ("It isn't safe to do so.", "negation", "It is safe to do so."),
    ("Never leave it open.", "negation", "Always leave it open."),
    ("盆土要用普通园土。", "negation", "盆土不要用普通园土。"),
    ("盆土不要用普通园土。", "negation", "盆土要用普通园土。"),
    ("要经常检查叶片上有没有红蜘蛛。", "negation", "不要经常检查叶片上有没有红蜘蛛。"),
])
def test_rules_on_known_answers(text: str, rule: str, expected: str) -> None:
    result = change(text)
    assert (result.rule, result.text) == (rule, expected)
    assert result.record()["kind"] == "meaning" and result.record()["rule"] == rule


def test_entity_is_swapped_for_another_questions_entity_of_the_same_script() -> None:
    result = change("Try PaceMate to keep track of your cycling.", question="q2", gold=("PaceMate",))
    assert (result.rule, result.text) == ("entity", "Try FitTrail to keep track of your cycling.")
    result = change("我会给吊兰用绿峰复合肥。", question="q3", gold=("绿峰复合肥",))
    assert (result.rule, result.text) == ("entity", "我会给吊兰用记忆通。")


def test_numbers_change() -> None:
    result = change("Add 10 percent each week.")
    assert result.rule == "number" and result.removed == "10" and result.inserted != "10"
    assert result.text == f"Add {result.inserted} percent each week."
    result = change("找一个安静的地方。")
    assert result.rule == "number" and result.removed == "一" and result.inserted in "二三四五六七八九十"


def test_fallback_denies_the_answer_in_its_own_script() -> None:
    assert change("Glacier ledger zipper oyster").text == "It is not true that glacier ledger zipper oyster"
    assert change("和大理石灯笼港口").text == "以下说法不对：和大理石灯笼港口"


def test_no_rule_for_other_scripts_is_a_clear_error() -> None:
    with pytest.raises(MeaningError, match="question 'q9'.*classic layout"):
        change("Привет мир", question="q9")
    with pytest.raises(MeaningError, match="empty"):
        change("   ")


def test_same_generator_state_gives_the_same_change() -> None:
    assert change("Add 10 percent.").text == change("Add 10 percent.").text


WORDS = st.sampled_from(["yes", "No", "is", "should", "never", "the", "pan", "leaves", "water", "FitTrail",
                         "12", "3", "keep", "warm", "can't", "cannot", "Avoid", "always", "tea", "isn't"])
HANZI = st.sampled_from(list("是的不对要会能有没适合应该需要可以一二三个次天盆土水叶片上红蜘蛛吊兰")
                        + ["绿峰复合肥", "。", "，"])


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=25).map(" ".join), st.randoms(use_true_random=False))
def test_english_always_differs_and_stays_latin(text: str, rng: random.Random) -> None:
    result = change_meaning(text, question="q0", gold_entities=("FitTrail",), pool=POOL, rng=rng)
    assert result.text != text
    assert not HAN.search(result.text) and script_of(result.text) == script_of(text)
    assert result.text == text[:result.start] + result.inserted + text[result.start + len(result.removed):]


@settings(max_examples=300, deadline=None)
@given(st.lists(HANZI, min_size=1, max_size=30).map("".join).filter(lambda t: HAN.search(t) is not None),
       st.randoms(use_true_random=False))
def test_chinese_always_differs_and_stays_chinese(text: str, rng: random.Random) -> None:
    result = change_meaning(text, question="q0", gold_entities=("绿峰复合肥",), pool=POOL, rng=rng)
    assert result.text != text
    assert not LATIN.search(result.text)
    assert result.text == text[:result.start] + result.inserted + text[result.start + len(result.removed):]
