"""Simulated workers of the adversarial crowd: scores, times and behaviour records
(docs/quality-control.md#behaviour-record)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from da_platform.simulation.adversaries import (
    Item,
    OracleAgent,
    OverlapBot,
    ProfileRater,
    encode_record,
    fluency_guess,
    make_rater,
    png_height,
    reading_seconds,
    rouge_l,
    token_f1,
)
from da_platform.simulation.ocr import TesseractReader
from da_platform.simulation.profiles import WorkerProfile
from hit_builder.fonts import FontChain
from hit_builder.render import Renderer, Role

C1_KEYS = {"v", "slot", "first_input_ms", "pointer", "touch", "key", "hidden_ms", "blur_ms", "paste", "copy",
           "shown_ms"}
REFERENCE = "Yes. Keep the oven door closed until the end and preheat the pan properly."
GOOD = "Yes, keep the oven door closed until the end. Preheat the pan properly."
DEGRADED = "Yes, keep the garden hose coiled in a shady spot. Preheat the pan properly."
MEANING = "No, keep the oven door closed until the end. Preheat the pan properly."


@pytest.fixture(scope="module")
def images() -> dict[str, bytes]:
    renderer = Renderer(FontChain.load(None))
    return {"reference": renderer.render(REFERENCE, Role.reference),
            **{name: renderer.render(text, Role.candidate) for name, text in
               (("good", GOOD), ("degraded", DEGRADED), ("meaning", MEANING))}}


def item(images: dict[str, bytes], candidate: str, quality: float = 80.0) -> Item:
    return Item("slot-1", images[candidate], images["reference"], quality)


def test_honest_worker_sends_a_persons_record_bound_to_the_slot(images) -> None:
    rng = np.random.default_rng(4)
    for touch in (False, True):
        rater = ProfileRater(WorkerProfile("honest", 0, 1, 10), touch=touch)
        shown = item(images, "good")
        timing = rater.timing(shown, rng)
        record = rater.behaviour(shown, timing, rng)
        assert set(record) == C1_KEYS and record["v"] == 1 and record["slot"] == "slot-1"
        assert 0 < record["first_input_ms"] < record["shown_ms"]
        assert (record["touch"] > 0) == touch and (record["pointer"] > 0) == (not touch)
        assert len(encode_record(record)["behaviour"].encode()) <= 2048
        assert 0 <= rater.score(shown, rng) <= 100


def test_reading_time_grows_with_the_text_shown(images) -> None:
    short = Item("s", images["good"], None, 50)
    long = Item("s", images["good"], images["reference"], 50)
    assert png_height(images["good"]) > 0
    fast = np.median([reading_seconds(short, np.random.default_rng(i)) for i in range(50)])
    slow = np.median([reading_seconds(long, np.random.default_rng(i)) for i in range(50)])
    assert slow > fast > 2.5


def test_simple_bots_post_no_record_and_the_agent_no_events(images) -> None:
    rng = np.random.default_rng(1)
    for kind in ("random", "constant", "bot"):
        rater = make_rater(kind, rng)
        assert rater.timing(item(images, "good"), rng) is None
        assert rater.behaviour(item(images, "good"), None, rng) is None
        assert encode_record(None) == {}
    agent = OracleAgent()
    timings = [agent.timing(item(images, "good"), rng) for _ in range(20)]
    records = [agent.behaviour(item(images, "good"), t, rng) for t in timings]
    assert all(set(r) == C1_KEYS and r["pointer"] == r["touch"] == r["key"] == 0 and r["first_input_ms"] is None
               for r in records)
    shown = [r["shown_ms"] for r in records]
    assert max(shown) - min(shown) <= 0.04 * 6000  # regular: within ±2 % of 6 s whatever the length
    scores = [agent.score(item(images, "good", 72.0), rng) for _ in range(200)]
    assert abs(np.mean(scores) - 72) < 2


def test_overlap_metrics() -> None:
    assert rouge_l(GOOD, REFERENCE) > rouge_l(DEGRADED, REFERENCE)
    assert token_f1(GOOD, REFERENCE) > token_f1(DEGRADED, REFERENCE)
    assert rouge_l("", REFERENCE) == token_f1("", REFERENCE) == 0.0
    assert fluency_guess("word word word") < fluency_guess("A full sentence that says something useful here.")


@pytest.mark.slow
def test_ocr_bot_reads_the_images_and_scores_by_overlap(images) -> None:
    rng = np.random.default_rng(0)
    bot = OverlapBot(TesseractReader(), "ocr-overlap")
    good, degraded, meaning = (bot.score(item(images, name), rng) for name in ("good", "degraded", "meaning"))
    assert good > degraded + 15  # a degraded answer overlaps less: the BAD_REF test expects that
    assert good - meaning < good - degraded  # a meaning change keeps most words: the bot sees less of it
    assert bot.timing(item(images, "good"), rng) is None and bot.behaviour(item(images, "good"), None, rng) is None
    paced = OverlapBot(TesseractReader(), "ocr-overlap-paced", paced=True)
    timing = paced.timing(item(images, "good"), rng)
    record = paced.behaviour(item(images, "good"), timing, rng)
    assert timing.shown_ms > 2500 and set(record) == C1_KEYS and record["pointer"] > 0  # forged
    assert json.loads(encode_record(record)["behaviour"]) == record


def test_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown kind of simulated worker 'ghost'"):
        make_rater("ghost", np.random.default_rng(0))
