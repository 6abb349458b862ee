"""Simulated people fitted to real crowd workers (da_platform.simulation.people): what each part of the model does,
the shipped parameters and their provenance, and the honest rater of the crowd."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from da_platform.simulation.adversaries import Item, PersonRater, make_rater
from da_platform.simulation.people import (
    DAMAGED,
    REF,
    REPEAT,
    SYSTEM,
    HitState,
    PeopleModel,
    Person,
    fitted_model,
    rate_slots,
    simulate_slots,
)

PLAIN = PeopleModel(bias_mean=0.0, bias_sd=0.0, bias_hit_sd=0.0, scale_log_mean=0.0, scale_log_sd=0.0,
                    noise_log_mean=np.log(5.0), noise_log_sd=0.0, lapse_mean=1e-6, notice_mean=1 - 1e-6,
                    memory_mean=1e-6, round10_mean=1e-6, round5_mean=1e-6)


def _person(model: PeopleModel, **mine) -> Person:
    drawn = Person.draw(np.random.default_rng(0), model)
    return replace(drawn, **mine)


def test_the_shipped_model_says_where_it_comes_from() -> None:
    model = fitted_model()
    assert "WMT21" in model.source and "refit with" in model.source
    assert 0 < model.lapse_mean < 0.5 and 0 < model.notice_mean <= 1 and model.noise_log_sd > 0


def test_a_reader_scores_quality_and_marks_damage_down() -> None:
    rng = np.random.default_rng(1)
    person = _person(PLAIN, bias=0.0, scale=1.0, noise=5.0, lapse=0.0, round10=0.0, round5=0.0, memory=0.0)
    state = HitState(False, 0.0, 1.0, 0.0)
    quality = rng.uniform(20, 100, 2000)
    ordinary = rate_slots(person, np.full(2000, SYSTEM), quality, np.full(2000, -1), state, rng)
    assert np.corrcoef(ordinary, quality)[0, 1] > 0.95  # score = quality + N(0, 5), clipped
    damaged = rate_slots(person, np.full(2000, DAMAGED), quality, np.full(2000, -1), state, rng)
    assert np.mean(damaged) < np.mean(ordinary) - 10  # every copy noticed: a share of its quality lost
    references = rate_slots(person, np.full(2000, REF), np.full(2000, 10.0), np.full(2000, -1), state, rng)
    assert np.mean(references) > 80  # a reference is perceived near 100 whatever it stands beside


def test_a_lapse_gives_scores_that_ignore_what_is_shown() -> None:
    rng = np.random.default_rng(2)
    person = _person(PLAIN, bias=0.0, scale=1.0, noise=5.0, lapse=1.0, round10=0.0, round5=0.0, memory=0.0)
    state = person.start_hit(rng)
    assert state.lapse and state.notice == 0.0
    quality = rng.uniform(0, 100, 3000)
    scores = rate_slots(person, np.full(3000, SYSTEM), quality, np.full(3000, -1), state, rng)
    assert abs(np.corrcoef(scores, quality)[0, 1]) < 0.1


def test_a_lapse_scores_around_the_level_real_lapses_have_moved_by_the_bias() -> None:
    """Real careful workers' lapses sit near their usual level (about 70), not at the slider's middle."""
    rng = np.random.default_rng(3)
    model = replace(PLAIN, lapse_level=70.0)
    for bias in (0.0, 10.0):
        person = _person(model, bias=bias, scale=1.0, noise=5.0, lapse=1.0, round10=0.0, round5=0.0, memory=0.0)
        state = person.start_hit(rng)
        scores = rate_slots(person, np.full(3000, SYSTEM), rng.uniform(0, 100, 3000), np.full(3000, -1), state, rng)
        assert abs(np.mean(scores) - (70.0 + bias)) < 1.5  # the lapse's noise is at most N(0, 15): SE of the mean 0.3


def test_a_share_of_lapses_leave_the_slider_at_the_bottom() -> None:
    """Real lapses include HITs scored 0 throughout (the slider left where it starts): ``lapse_floor`` of them."""
    rng = np.random.default_rng(4)
    model = replace(PLAIN, lapse_level=70.0, lapse_floor=0.5)
    person = _person(model, bias=10.0, scale=1.0, noise=5.0, lapse=1.0, round10=0.0, round5=0.0, memory=0.0)
    states = [person.start_hit(rng) for _ in range(400)]
    assert all(s.lapse for s in states) and 0.4 < np.mean([s.floor for s in states]) < 0.6  # SE 0.025
    means = [np.mean(rate_slots(person, np.full(50, REF), np.full(50, 100.0), np.full(50, -1), s, rng))
             for s in states[:40]]
    for state, mean in zip(states, means):
        assert (mean < 13) if state.floor else (abs(mean - 80) < 10)  # 0 or 70 + bias, noise up to N(0, 15)


def test_putting_references_at_the_end_of_the_slider_is_a_persons_habit() -> None:
    """Real workers put every reference at 100 or none (102 workers with 20 or more: SD of their share 0.38 against
    0.08 were it one share for all): each person draws their own, Beta(ref_top, ref_top_concentration)."""
    rng = np.random.default_rng(5)
    model = replace(PLAIN, ref_top=0.45, ref_top_concentration=0.8)
    habits = np.array([Person.draw(rng, model).ref_top for _ in range(2000)])
    assert abs(habits.mean() - 0.45) < 0.03 and 0.3 < habits.std() < 0.42  # Beta(0.36, 0.44): SD 0.37
    state = HitState(False, 0.0, 1.0, 0.0)
    at_top = {}
    for habit in (0.0, 1.0):
        person = _person(model, bias=0.0, scale=1.0, noise=5.0, lapse=0.0, round10=0.0, round5=0.0, memory=0.0,
                         ref_top=habit)
        at_top[habit] = np.mean(rate_slots(person, np.full(500, REF), np.full(500, 50.0), np.full(500, -1), state,
                                           rng) == 100)
    assert at_top[1.0] == 1.0 and at_top[0.0] < 0.2
    shared = replace(PLAIN, ref_top=0.45)  # the default: one habit for all (as before)
    assert np.std([Person.draw(rng, shared).ref_top for _ in range(200)]) < 0.03


def test_memory_and_rounding() -> None:
    rng = np.random.default_rng(3)
    person = _person(PLAIN, bias=0.0, scale=1.0, noise=20.0, lapse=0.0, round10=1.0, round5=0.0, memory=1.0)
    kinds = np.array([SYSTEM] * 50 + [REPEAT] * 50)
    originals = np.r_[np.full(50, -1), np.arange(50)]
    quality = np.r_[rng.uniform(0, 100, 50), np.zeros(50)]
    scores = rate_slots(person, kinds, quality, originals, HitState(False, 0.0, 1.0, 0.0), rng)
    assert np.array_equal(scores[50:], scores[:50])  # a perfect memory repeats every score
    assert np.all(scores % 10 == 0)  # always rounded to tens
    # slot by slot, as over HTTP: a repeat of an answer scored in this HIT gets that score again
    state = HitState(False, 0.0, 1.0, 0.0)
    first = person.score(SYSTEM, 63.0, state, rng)
    assert person.score(REPEAT, 63.0, state, rng) == first


def test_a_repeat_is_read_afresh() -> None:
    """A repeat's perceived quality is off by N(0, r) (the HIT's ``repeat_noise``) besides the two showings' own
    noise s, so repeat - original ~ N(0, r^2 + 2 s^2) (+ integer rounding, 2/12): SD sqrt(10^2 + 2 * 2^2) = 10.39
    (10.40 rounded); its estimate from 4,000 pairs has a standard error of SD / sqrt(2 * 4000) = 0.12. Before the
    repeat was read afresh the SD was sqrt(2) * 2 = 2.8."""
    rng = np.random.default_rng(6)
    person = _person(PLAIN, bias=0.0, scale=1.0, noise=2.0, lapse=0.0, round10=0.0, round5=0.0, memory=0.0)
    n = 4000
    kinds = np.r_[np.full(n, SYSTEM), np.full(n, REPEAT)]
    originals = np.r_[np.full(n, -1), np.arange(n)]
    quality = np.full(2 * n, 50.0)
    state = HitState(False, 0.0, 1.0, 0.0, repeat_noise=10.0)
    scores = rate_slots(person, kinds, quality, originals, state, rng)
    difference = scores[n:] - scores[:n]
    assert np.std(difference) == pytest.approx(np.sqrt(100 + 8 + 2 / 12), abs=4 * 10.4 / np.sqrt(2 * n))
    assert abs(np.mean(difference)) < 4 * 10.4 / np.sqrt(n)


def test_how_closely_repeats_follow_varies_between_hits() -> None:
    """Each HIT draws its repeat noise r ~ logN(mu, sigma): with 200 repeats per HIT and no other noise, a HIT's SD
    of repeat differences estimates its r (log-SD error about 1 / sqrt(2 * 200) = 0.05), so over 300 HITs the logs
    of those SDs have mean mu (standard error sigma / sqrt(300) = 0.03) and SD sqrt(sigma^2 + 0.05^2) = 0.50
    (standard error 0.5 / sqrt(2 * 300) = 0.02)."""
    mu, sigma = np.log(5.0), 0.5
    model = replace(PLAIN, noise_log_mean=np.log(1e-3), repeat_noise_log_mean=mu, repeat_noise_log_sd=sigma)
    n_hits, n = 300, 200
    kinds = np.tile(np.r_[np.full(n, SYSTEM), np.full(n, REPEAT)], n_hits)
    hit = np.repeat(np.arange(n_hits), 2 * n)
    originals = np.tile(np.r_[np.full(n, -1), np.arange(n)], n_hits) + np.where(kinds == REPEAT, hit * 2 * n, 0)
    scores = simulate_slots(model, hit, hit, kinds, originals, np.full(len(kinds), 50.0), np.random.default_rng(7))
    difference = (scores[kinds == REPEAT] - scores[originals[kinds == REPEAT]]).reshape(n_hits, n)
    logs = np.log(np.std(difference, axis=1))
    assert np.mean(logs) == pytest.approx(mu, abs=4 * 0.03)
    assert np.std(logs) == pytest.approx(np.sqrt(sigma ** 2 + 0.05 ** 2), abs=4 * 0.02)


def test_many_hits_at_once_follow_the_same_model() -> None:
    """simulate_slots (the fit's and the forecast's path) and rate_slots (one HIT) give the same distribution."""
    rng = np.random.default_rng(4)
    model = fitted_model()
    quality = rng.uniform(0, 100, 100)
    kinds = np.array([SYSTEM] * 70 + [DAMAGED] * 10 + [REF] * 10 + [REPEAT] * 10)
    originals = np.r_[np.full(70, -1), np.arange(30) % 70]
    quality[70:] = quality[originals[70:]]
    hit = np.repeat(np.arange(400), 100)
    linked = np.tile(originals, 400)
    many = simulate_slots(model, hit, hit, np.tile(kinds, 400), np.where(linked >= 0, linked + hit * 100, -1),
                          np.tile(quality, 400), rng)
    one_by_one = []
    for _ in range(400):
        person = Person.draw(rng, model)
        one_by_one.append(rate_slots(person, kinds, quality, originals, person.start_hit(rng), rng))
    assert np.mean(many) == pytest.approx(np.mean(one_by_one), abs=2.5)
    assert np.std(many) == pytest.approx(np.std(np.concatenate(one_by_one)), abs=2.5)


def test_the_crowds_honest_worker_is_a_fitted_person() -> None:
    rng = np.random.default_rng(5)
    rater = make_rater("honest", rng)
    assert isinstance(rater, PersonRater) and rater.kind == "honest"
    rater.start_hit(rng)
    item = Item("s1", None, None, 23.0, slot_type="BAD_REF", answer_quality=63.0)
    assert 0 <= rater.score(item, rng) <= 100
    assert rater.behaviour(item, rater.timing(item, rng), rng)["slot"] == "s1"


def test_the_benchmark_scripts_run_main_after_every_definition() -> None:
    """``benchmarks/real_people.py model`` once stopped with ``NameError: name 'STATISTICS' is not defined``: its
    ``if __name__ == "__main__": main()`` stood in the middle of the module, so ``main`` ran before the constants
    and functions below it existed. Every benchmark script's guard must be its last statement."""
    import ast
    from pathlib import Path

    scripts = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py"))
    assert any(s.name == "real_people.py" for s in scripts)
    early = []
    for script in scripts:
        body = ast.parse(script.read_text(encoding="utf-8")).body
        guards = [i for i, node in enumerate(body) if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
        if guards and guards[-1] != len(body) - 1:
            early.append(script.name)
    assert early == []
