"""METEOR's alignment search counts crossings with arrays on long answers: it must return exactly the alignment
of the search as it was (``tests/meteor_search_reference.py``), search limits included, so no score changes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.metrics import meteor
from analysis.metrics.meteor import Meteor, align
from tests import meteor_search_reference as before

#: Chinese characters and punctuation with heavy repetition, as in long DuReader answers.
CJK = st.lists(st.sampled_from("的是了在我有他这，。的的是，"), max_size=60)
WORDS = st.lists(st.sampled_from("abcab.,"), max_size=30)


@pytest.mark.parametrize("small", [meteor._Choices.SMALL, 0], ids=["pair by pair", "by table"])
@pytest.mark.parametrize("limit", [3, 40, meteor.SEARCH_LIMIT])
@settings(max_examples=60, deadline=None)
@given(hyp=st.one_of(CJK, WORDS), ref=st.one_of(CJK, WORDS))
def test_the_same_alignment_as_before_search_limit_included(small, limit, hyp, ref):
    # both searches read the limit; small = 0 counts crossings by the table of cells (long answers' way)
    saved = meteor.SEARCH_LIMIT, meteor._Choices.SMALL
    meteor.SEARCH_LIMIT, meteor._Choices.SMALL = limit, small
    try:
        assert align(hyp, ref, (str,)) == before.align(hyp, ref, (str,))
    finally:
        meteor.SEARCH_LIMIT, meteor._Choices.SMALL = saved


def test_a_long_chinese_answer_gets_the_same_score_as_before(monkeypatch):
    # 120 characters drawn from a few frequent ones: the search stops at its limit in both versions
    monkeypatch.setattr(meteor, "SEARCH_LIMIT", 2_000)
    hyp = ("的是了在我，有他这的。" * 12)[:120]
    ref = ("我的在是了，这他有的是。" * 11)[:125]
    metric = Meteor()
    tokens_hyp, tokens_ref = metric.tokens(hyp), metric.tokens(ref)
    matches = metric.align(tokens_hyp, tokens_ref)
    assert matches == before.align(tokens_hyp, tokens_ref, metric._stages)
    assert len(matches) == sum(min(tokens_hyp.count(t), tokens_ref.count(t)) for t in set(tokens_hyp))
