"""Per-worker evidence and the combined verdict (analysis/behaviour_signals.py, analysis/verdict.py) on small
hand-made crowds whose answers are known, plus unit and property tests of each signal."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.behaviour_signals import (
    MAX_AUTOMATIC_P,
    MAX_MISSING_SHARE,
    MIN_RATINGS,
    SIGNALS,
    Signal,
    behaviour_signals,
    regular_timing,
)
from analysis.evidence import RatingEvidence, character_overlap, reading_units
from analysis.quality import quality_control
from analysis.report import analyze
from analysis.table import MEANING, RatingsTable
from analysis.verdict import VerdictStatus, combine, worker_verdicts
from da_platform.db.models import BehaviourStatus
from da_platform.rating.behaviour_record import parse_behaviour
from tests.crowd_tables import CROWD, N_ITEMS, crowd_table, human_record


@pytest.fixture(scope="module")
def verdicts():
    table = crowd_table(CROWD)
    reports = quality_control(table)
    return worker_verdicts(table, reports)["c"]


def flagged(verdict) -> set[str]:
    return {s.name for s in verdict.flags}


def test_people_are_kept(verdicts):
    for k in range(5):
        v = verdicts[f"honest-{k}"]
        assert v.status == VerdictStatus.kept, v.reasons
        assert v.meaning is not None and v.meaning.passed
        assert all(s.flagged is False for s in v.signals), [s.reason for s in v.signals]


def test_an_overlap_bot_without_records_is_flagged_by_every_signal_that_applies(verdicts):
    v = verdicts["overlap-bot"]
    assert v.qc.passed  # degraded copies overlap less, so the BAD_REF check cannot catch it
    # MEANING copies overlap a little less than their originals: the plain MEANING test (no margin) passes it.
    assert v.meaning.passed and v.status == VerdictStatus.flagged
    assert any(r.startswith("flagged for review: beyond_automatic") for r in v.reasons)
    assert flagged(v) == {"missing_records", "reading_speed", "beyond_automatic"}
    by_name = {s.name: s for s in v.signals}
    assert by_name["missing_records"].value == 1.0
    assert by_name["no_interaction"].flagged is None and by_name["regular_timing"].flagged is None


def test_a_paced_overlap_bot_with_forged_records_is_caught_as_adding_nothing_beyond_overlap(verdicts):
    v = verdicts["paced-bot"]
    assert v.qc.passed and v.meaning.passed and v.status == VerdictStatus.flagged
    assert flagged(v) == {"beyond_automatic"}
    assert {s.name: s for s in v.signals}["beyond_automatic"].value >= MAX_AUTOMATIC_P


def test_a_meaning_margin_catches_overlap_bots_on_their_scores_alone():
    """With a margin of a quarter of the worker's BAD_REF drop, the MEANING test itself fails both overlap bots
    (their drop is a point or two); people here keep passing it. (Not the default: docs/benchmarks.md.)"""
    table = crowd_table(CROWD)
    verdicts = worker_verdicts(table, quality_control(table), margin_share=0.25)["c"]
    for bot in ("overlap-bot", "paced-bot"):
        assert verdicts[bot].meaning.status == "failed" and verdicts[bot].status == VerdictStatus.excluded
    assert all(verdicts[f"honest-{k}"].status == VerdictStatus.kept for k in range(5))


def test_a_scripted_oracle_is_caught_only_by_behaviour(verdicts):
    v = verdicts["oracle"]
    assert v.qc.passed and v.meaning.passed
    assert v.status == VerdictStatus.flagged
    assert flagged(v) == {"no_interaction", "regular_timing"}


def test_a_worker_blind_to_meaning_changes_fails_the_meaning_check(verdicts):
    v = verdicts["meaning-blind"]
    assert v.qc.passed
    assert v.meaning.status == "failed" and v.status == VerdictStatus.excluded
    assert v.meaning.n_pairs == 10 and v.meaning.mean_degraded > v.meaning.mean_original


def test_a_random_clicker_fails_the_bad_ref_check(verdicts):
    assert verdicts["random"].status == VerdictStatus.excluded
    assert not verdicts["random"].qc.passed


def test_analyze_scores_kept_workers_only_and_reports_the_verdicts(tmp_path):
    from analysis.output import write_report

    table = crowd_table(CROWD)
    result = analyze(table)
    group = result.groups["c"]
    assert {w for w, v in group.verdicts.items() if v.kept} == {f"honest-{k}" for k in range(5)}
    assert {w.worker for w in group.scores.workers if w.included} == {f"honest-{k}" for k in range(5)}
    assert sum(s.n_ratings for s in group.scores.systems) == 5 * N_ITEMS  # SYSTEM ratings of kept workers
    write_report(result, tmp_path, plots=False)
    import csv

    with open(tmp_path / "qc-workers.csv", encoding="utf-8", newline="") as f:
        rows = {r["worker"]: r for r in csv.DictReader(f)}
    assert rows["oracle"]["verdict"] == "flagged"
    assert rows["oracle"]["no_interaction_flagged"] == "true" and rows["oracle"]["no_interaction_value"] == "1.0"
    assert rows["overlap-bot"]["no_interaction_flagged"] == ""  # not applicable
    assert rows["meaning-blind"]["verdict"] == "excluded" and rows["meaning-blind"]["meaning_status"] == "failed"
    assert rows["paced-bot"]["verdict"] == "flagged" and rows["paced-bot"]["meaning_status"] == "passed"
    assert "flagged for review: beyond_automatic" in rows["paced-bot"]["verdict_reasons"]
    data = json.loads((tmp_path / "analysis.json").read_text(encoding="utf-8"))
    assert data["groups"]["c"]["verdicts"]["summary"] == {"kept": 5, "flagged": 3, "excluded": 2}


def test_the_meaning_test_is_the_bad_ref_test_on_other_pairs():
    """Relabelling the MEANING pairs as BAD_REF gives the BAD_REF test exactly the MEANING result."""
    table = crowd_table({"a": "honest", "b": "meaning-blind", "c": "random"})
    meaning = quality_control(table, check=MEANING)["c"]
    swapped = RatingsTable.from_records(
        r._replace(slot_type={"MEANING": "BAD_REF", "BAD_REF": "MEANING"}.get(r.slot_type, r.slot_type))
        for r in table.records())
    as_bad_ref = quality_control(swapped)["c"]
    assert [(w.worker, w.status, w.pvalue, w.n_pairs) for w in meaning.workers] == [
        (w.worker, w.status, w.pvalue, w.n_pairs) for w in as_bad_ref.workers]


def test_a_table_without_evidence_gets_no_signals_and_unchanged_results():
    table = crowd_table(CROWD)
    bare = RatingsTable.from_records(table.records())
    assert behaviour_signals(bare) == {}
    verdicts = worker_verdicts(bare, quality_control(bare))["c"]
    assert verdicts["oracle"].status == VerdictStatus.kept  # only behaviour catches it, and there is none here
    # Without evidence no signal applies, and the plain MEANING test lets the overlap bot through; with a margin
    # the MEANING check catches it on the scores alone (the trade-off: docs/benchmarks.md).
    assert verdicts["overlap-bot"].status == VerdictStatus.kept and verdicts["overlap-bot"].meaning.passed
    bot = worker_verdicts(bare, quality_control(bare), margin_share=0.25)["c"]["overlap-bot"]
    assert bot.status == VerdictStatus.excluded and bot.meaning.status == "failed"


# Units ------------------------------------------------------------------------------------------------


def evidence(records: list[dict | None]) -> RatingEvidence:
    statuses = ["valid" if r else "missing" for r in records]
    return RatingEvidence.from_rows(statuses, records, ["a b"] * len(records), [None] * len(records), False)


def test_regular_timing_threshold():
    rng = np.random.default_rng(1)
    steady = evidence([human_record(rng, 5.0 + 0.01 * k) for k in range(MIN_RATINGS)])
    signal = regular_timing(steady, np.arange(MIN_RATINGS))
    assert signal.flagged and signal.value < 0.01
    varied = evidence([human_record(rng, s) for s in (2, 4, 8, 3, 6, 9, 2.5, 5, 7, 12)])
    assert regular_timing(varied, np.arange(10)).flagged is False
    assert regular_timing(varied, np.arange(MIN_RATINGS - 1)).flagged is None


def test_missing_records_threshold_and_unknown_statuses():
    rng = np.random.default_rng(2)
    n_missing = int(MAX_MISSING_SHARE * 20)  # exactly at the threshold: not flagged
    records = [None] * n_missing + [human_record(rng, 5)] * (20 - n_missing)
    from analysis.behaviour_signals import missing_records

    assert missing_records(evidence(records), np.arange(20)).flagged is False
    assert missing_records(evidence([None] + records), np.arange(21)).flagged is True
    unknown = RatingEvidence.from_rows([None] * 20, [None] * 20, ["a"] * 20, [None] * 20, False)
    assert missing_records(unknown, np.arange(20)).flagged is None  # ratings from before records were kept


def test_beyond_automatic_on_the_sample_data_separates_people_from_an_overlap_scorer():
    """The sample answers were made by editing references, so people's scores follow overlap too (r about
    0.8), but not all the way (a system can be as close to the reference as another and much worse): simulated
    people (true quality + noise) share that with the crowd, a worker scoring 100 × ROUGE-L or token F1 does
    not."""
    from analysis.metrics.rouge import RougeL
    from analysis.metrics.squad import TokenF1
    from da_platform.simulation.sample_data import load_truth, sample_data_dir

    truth, folder = load_truth(), sample_data_dir()
    lines = (folder / "test_set.jsonl").read_text(encoding="utf-8").splitlines()
    references = {q["id"]: q["references"][0] for q in map(json.loads, lines)}
    answers = [(system, a["id"], a["answer"]) for system, info in truth["systems"].items() if info["file"]
               for a in map(json.loads, (folder / info["file"]).read_text(encoding="utf-8").splitlines())]
    rng = np.random.default_rng(3)
    kinds = [("person", sd) for sd in (3, 5, 8, 12) for _ in range(5)] + [("rouge", 0), ("f1", 0)]
    columns: dict[str, list] = {c: [] for c in ("group", "worker", "hit", "system", "item", "slot_type", "slot",
                                                "original_slot", "score")}
    candidates, refs = [], []
    for w, (kind, sd) in enumerate(kinds):
        for k in rng.choice(len(answers), size=70, replace=False).tolist():
            system, question, answer = answers[k]
            reference = references[question]
            if kind == "person":
                score = truth["quality"][system][question] + rng.normal(0, sd)
            elif kind == "rouge":
                score = 100 * RougeL().sentence_score(answer.lower(), [reference.lower()])
            else:
                score = 100 * TokenF1().sentence_score(answer, [reference])
            for column, value in (("group", "g"), ("worker", f"{kind}-{w}"), ("hit", f"h{w}"), ("system", system),
                                  ("item", question), ("slot_type", "SYSTEM"), ("slot", f"{w}-{k}"),
                                  ("original_slot", ""), ("score", int(np.clip(round(score), 0, 100)))):
                columns[column].append(value)
            candidates.append(answer)
            refs.append(reference)
    n = len(candidates)
    table = RatingsTable.from_columns(**columns, evidence=RatingEvidence.from_rows(
        [None] * n, [None] * n, candidates, refs, reference_shown=True))
    agreement = {w: {s.name: s for s in signals}["beyond_automatic"]
                 for w, signals in behaviour_signals(table)["g"].items()}
    assert not any(a.flagged for w, a in agreement.items() if w.startswith("person"))
    assert agreement["rouge-20"].flagged and agreement["f1-21"].flagged


def test_reading_units_count_words_and_cjk_characters():
    assert reading_units(["The cat sat.", "是的，它在巴黎。"]) == (3, 8)
    assert reading_units([""]) == (0, 0)


def test_character_overlap_examples():
    assert character_overlap("abc", "abc") == 1.0
    assert character_overlap("abcd", "wxyz") == 0.0
    assert character_overlap("a b c", "abc") == 1.0  # whitespace does not count
    assert character_overlap("abcd", "abxx") == pytest.approx(2 * 2 / 8)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_character_overlap_is_a_symmetric_f_measure(a, b):
    value = character_overlap(a, b)
    assert 0.0 <= value <= 1.0
    assert value == character_overlap(b, a)
    assert (value == 1.0) == ("".join(a.split()) == "".join(b.split()))


SIGNAL = st.builds(Signal, name=st.sampled_from(SIGNALS), kind=st.sampled_from(["behaviour", "content"]),
                   value=st.floats(0, 1), threshold=st.just("t"), flagged=st.sampled_from([None, False, True]),
                   reason=st.just("r"))


@settings(max_examples=200, deadline=None)
@given(st.lists(SIGNAL, max_size=6), st.booleans())
def test_signals_alone_never_exclude_and_any_flag_prevents_kept(signals, qc_passed):
    qc = quality_control(crowd_table({"a": "honest", "b": "random"}))["c"].workers[0 if qc_passed else 1]
    assert qc.passed == qc_passed
    verdict = combine(qc, None, tuple(signals))
    if qc_passed:
        expected = VerdictStatus.flagged if any(s.flagged for s in signals) else VerdictStatus.kept
    else:
        expected = VerdictStatus.excluded
    assert verdict.status == expected
    assert combine(replace(qc), None, ()).status == (VerdictStatus.kept if qc_passed else VerdictStatus.excluded)


RECORD = st.fixed_dictionaries({
    "first_input_ms": st.integers(0, 10_000), "pointer": st.integers(0, 50), "touch": st.integers(0, 50),
    "key": st.integers(0, 50), "hidden_ms": st.integers(0, 10_000), "blur_ms": st.integers(0, 10_000),
    "paste": st.integers(0, 3), "copy": st.integers(0, 3), "extra_ms": st.integers(0, 10_000)})


@settings(max_examples=200, deadline=None)
@given(RECORD)
def test_every_record_the_page_can_send_is_valid_and_kept_exactly(fields):
    shown = max(fields["first_input_ms"], fields["hidden_ms"], fields["blur_ms"]) + fields.pop("extra_ms")
    if fields["pointer"] + fields["touch"] + fields["key"] == 0:
        fields["first_input_ms"] = None
    record = {"v": 1, "slot": "s", **fields, "shown_ms": shown}
    status, kept = parse_behaviour(json.dumps(record), "s")
    assert status == BehaviourStatus.valid
    assert kept == {k: v for k, v in record.items() if k != "slot"}
    assert parse_behaviour(json.dumps(record), "other") == (BehaviourStatus.mismatched, None)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=12),
    max_leaves=30).map(json.dumps)))
def test_any_posted_text_gets_a_status_and_never_an_error(text):
    status, kept = parse_behaviour(text, "s")
    assert isinstance(status, BehaviourStatus)
    assert (kept is None) == (status != BehaviourStatus.valid)
