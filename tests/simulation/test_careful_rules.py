"""The careful bots' rules, texts in and a decision out (da_platform.simulation.careful_rules), and their pixel
matching of REPEATs against the platform's per-slot image variation
(da_platform.simulation.careful_bots.same_picture)."""
from __future__ import annotations

import numpy as np
import pytest

from da_platform.simulation.careful_bots import grey, same_picture
from da_platform.simulation.careful_rules import (
    SPOTTED_SCORE,
    bot_seconds,
    check_aware,
    judge,
    judge_noise,
    overlap,
    overlap_noise,
    person_seconds,
    spot_rewrite,
)


@pytest.mark.parametrize("reference, candidate, rule", [
    ("Yes, keep the oven door closed.", "No, keep the oven door closed.", "yes_no"),
    ("是的，可以每天浇水。", "不是，可以每天浇水。", "yes_no"),
    ("Water it when the soil is dry.", "Do not water it when the soil is dry.", "negation"),
    ("You should preheat the pan.", "You shouldn't preheat the pan.", "negation"),
    ("每天浇水一次。", "每天不浇水一次。", "negation"),
    ("Start with butter. Season it in stages.", "It is not true that you start with butter. Season it in stages.",
     "negation"),
    ("Bake it for 20 minutes at 180 degrees.", "Bake it for 35 minutes at 180 degrees.", "number"),
    ("I recommend MoveNote for tracking runs.", "I recommend Strava for tracking runs.", "name"),
])
def test_a_rewrite_of_answer_a_is_spotted_by_its_rule(reference, candidate, rule):
    assert spot_rewrite(candidate, reference).rule == rule


@pytest.mark.parametrize("reference, candidate", [
    ("Keep the pan hot and stir it often.", "Keep the pan hot and stir it often."),  # the same text
    ("Keep the pan hot and stir it often.", "Stir it often and keep the pan hot."),  # the same facts
    ("Keep the pan hot.", "Never give up on your dreams, they say."),  # a negation, but nothing like A
    ("Bake it for 20 minutes.", "Bake it for 20 minutes. Then let it rest."),  # nothing A says is changed
    ("", "No."), ("Yes.", ""),
])
def test_texts_that_say_nothing_else_are_not_spotted(reference, candidate):
    assert spot_rewrite(candidate, reference) is None


def test_overlap_is_rouge_l_by_hand():
    # LCS of "the cat sat" in "the cat sat on the mat" is 3 tokens: precision 3/3, recall 3/6;
    # F with beta 1.2: (1 + 1.44) * 1 * 0.5 / (0.5 + 1.44 * 1) = 1.22 / 1.94 = 0.628866
    assert overlap("the cat sat", "the cat sat on the mat") == pytest.approx(1.22 / 1.94)
    assert overlap_noise("the cat sat", "the cat sat on the mat", 0.0, np.random.default_rng(0)) == 63


def test_noise_is_added_and_scores_stay_on_the_scale():
    rng = np.random.default_rng(1)
    scores = [overlap_noise("the cat sat", "the cat sat on the mat", 10.0, rng) for _ in range(400)]
    assert 0 <= min(scores) and max(scores) <= 100
    assert abs(np.mean(scores) - 63) < 2 and 8 < np.std(scores) < 12
    assert overlap_noise("the cat", "the cat", 30.0, np.random.default_rng(2)) <= 100


def test_check_aware_scores_a_spotted_rewrite_low_and_the_rest_by_overlap():
    rng = np.random.default_rng(3)
    score, rewrite = check_aware("No, keep the oven door closed.", "Yes, keep the oven door closed.", 0.0, rng)
    assert rewrite.rule == "yes_no" and SPOTTED_SCORE[0] <= score <= SPOTTED_SCORE[1]
    assert check_aware("the cat sat", "the cat sat on the mat", 0.0, rng) == (63, None)


def test_the_judge_is_chrf_of_b_against_a():
    assert judge("Keep the pan hot.", "Keep the pan hot.") == pytest.approx(100.0)
    assert judge("xyz", "abc") == 0.0 and judge("", "abc") == 0.0
    close, far = judge("Keep the pan hot.", "Keep the pan very hot."), judge("Water the roses.", "Keep the pan hot.")
    assert 0 < far < close < 100
    assert judge_noise("Keep the pan hot.", "Keep the pan hot.", 0.0, np.random.default_rng(0)) == 100


def test_a_bots_wait_is_about_ten_seconds_for_a_typical_item_and_longer_for_longer_text():
    rng = np.random.default_rng(4)
    typical = ["Keep the pan hot and stir it often.", "Keep it hot and stir."]  # 8 + 5 = 13 words
    waits = [bot_seconds(typical, rng) for _ in range(200)]
    assert 0.9 * (7 + 0.2 * 13) <= min(waits) and max(waits) <= 1.1 * (7 + 0.2 * 13)  # 8.6-10.6 s
    assert bot_seconds(["word " * 60], rng) > 1.1 * (7 + 0.2 * 13)
    assert 0.9 * (7 + 0.1 * 8) <= bot_seconds(["每天浇水一次。"], rng) <= 1.1 * (7 + 0.1 * 8)  # 7 characters + 。


def test_a_persons_time_follows_the_irest_reading_rates():
    rng = np.random.default_rng(5)
    texts = ["word " * 38]  # 38 words at 228 words/min: 10 s, plus 2.5 s to decide
    median = float(np.median([person_seconds(texts, rng) for _ in range(2000)]))
    assert median == pytest.approx(12.5, rel=0.05)


def test_repeats_are_matched_by_pixels_through_the_per_slot_variation():
    from da_platform.images.variation import vary
    from hit_builder.fonts import FontChain
    from hit_builder.render import Renderer, Role

    renderer = Renderer(FontChain.load(None))
    original = renderer.render("Keep the oven door closed until the end.", Role.candidate)
    as_served = [vary(original, slot, "candidate", "secret") for slot in ("slot-1", "slot-2")]
    assert as_served[0] != as_served[1] and as_served[0] != original  # no two slots get the same bytes
    assert same_picture(grey(as_served[0]), grey(as_served[1]))
    other = renderer.render("Keep the oven door open until the end.", Role.candidate)
    assert not same_picture(grey(as_served[0]), grey(vary(other, "slot-3", "candidate", "secret")))
    longer = renderer.render("Keep the oven door closed until the very end of the baking time, always.",
                             Role.candidate)
    assert not same_picture(grey(original), grey(longer))


def test_the_simulated_people_in_chromium_rate_as_the_fitted_people() -> None:
    """The careful-bots benchmark's people rated with the idealised worker (every damaged copy seen for what it is,
    no lapses); they now rate as the people fitted to real crowd workers: a person drawn from ``simulation.people``
    with this HIT's state, scoring a damaged copy by its kind and its original's quality. The competent bot keeps
    the idealised worker's bias, scale and noise."""
    import asyncio

    from da_platform.simulation.careful_bots import KINDS, SlotTruth, Worker, WorkerRun
    from da_platform.simulation.people import DAMAGED, Person

    def worker(kind: str, seed: int) -> Worker:
        return Worker("w", KINDS[kind], "default", "http://127.0.0.1/", {}, np.random.default_rng(seed))

    honest, competent = worker("honest", 3), worker("competent", 3)
    assert honest.person is not None and honest.hit is not None and competent.person is None
    truth = SlotTruth(20.0, "damaged answer", "the reference", "BAD_REF", 80.0)
    record = WorkerRun("w", "honest", "default")
    given, texts = asyncio.run(honest._decide("s1", "a question?", b"png", b"png", truth, record))
    # The same person, HIT and draws, scored by the fitted model directly: the copy of an 80-point answer.
    again = worker("honest", 3)
    assert again.person is not None and again.hit is not None
    assert given == again.person.score(DAMAGED, 80.0, again.hit, again.rng)
    assert texts == ["damaged answer", "the reference"] and 0 <= given <= 100
    assert isinstance(honest.person, Person)
