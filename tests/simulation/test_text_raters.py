"""The careful text raters of the fast crowd and the rehearsal (``da_platform.simulation.text_raters``)."""
from __future__ import annotations

import numpy as np
import pytest

from da_platform.simulation.adversaries import Item
from da_platform.simulation.profiles import WorkerProfile
from da_platform.simulation.text_raters import TEXT_KINDS, TextRater, make_crowd_rater, make_text_rater


def _item(candidate: str | None, reference: str | None, quality: float = 50.0) -> Item:
    return Item("O-0", None, None, quality, candidate_text=candidate, reference_text=reference)


def test_overlap_and_judge_score_the_texts_by_their_rule():
    rng = np.random.default_rng(0)
    # ROUGE-L by hand: LCS 3, P = 3/3, R = 3/6, F (γ = 1.2) = 2.44 x 0.5 / (0.5 + 1.44) = 0.6289 -> 63.
    assert TextRater("overlap", noise=0.0).score(_item("the cat sat", "the cat sat on the mat"), rng) == 63
    # chrF: the same text is 100, texts without a character in common 0.
    judge = TextRater("judge", noise=0.0)
    assert judge.score(_item("Keep the pan hot.", "Keep the pan hot."), rng) == 100
    assert judge.score(_item("4711 0815", "Keep the pan hot"), rng) == 0


def test_check_aware_scores_a_spotted_rewrite_low_and_a_repeat_as_before():
    rater = TextRater("check-aware")
    rng = np.random.default_rng(1)
    reference = "Keep the pan hot and stir it often."
    rewrite = rater.score(_item("Keep the pan hot and never stir it.", reference), rng)
    assert 5 <= rewrite <= 25  # one negation more than A's sentence: spotted
    first = rater.score(_item("Keep the pan hot and stir.", reference), rng)
    assert all(rater.score(_item("Keep the pan hot and stir.", reference), rng) == first for _ in range(20))


def test_competent_rates_the_true_quality_through_its_profile():
    rng = np.random.default_rng(2)
    exact = TextRater("competent", WorkerProfile(bias=0.0, scale=1.0, noise=0.0))
    assert [exact.score(_item(None, None, q), rng) for q in (0.0, 37.4, 100.0)] == [0, 37, 100]
    # 50 + bias + scale x (q - 50): 50 - 5 + 0.5 x 30 = 60.
    assert TextRater("competent", WorkerProfile(bias=-5.0, scale=0.5, noise=0.0)).score(_item(None, None, 80.0),
                                                                                        rng) == 60


def test_a_text_rater_without_the_texts_says_how_to_give_them():
    with pytest.raises(ValueError, match="SlotOracle.from_database"):
        TextRater("overlap").score(_item(None, "Keep the pan hot."), np.random.default_rng(0))


def test_the_text_kinds_make_text_raters_and_an_unknown_one_is_refused():
    rng = np.random.default_rng(3)
    for kind in TEXT_KINDS:
        rater = make_crowd_rater(kind, rng)
        assert isinstance(rater, TextRater) and rater.kind == kind
    assert not isinstance(make_crowd_rater("random", rng), TextRater)  # adversaries.make_rater's kinds
    with pytest.raises(ValueError, match="unknown text rater 'gremlin'"):
        make_text_rater("gremlin", rng)
