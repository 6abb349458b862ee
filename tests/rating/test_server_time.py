"""The server-time check (docs/quality-control.md#behaviour-signals): a behaviour record may not claim more time on
an item than the server saw
between serving it and receiving the rating (plus ``SERVER_TIME_TOLERANCE_MS``). Unit tests on hand-made rows,
and the simulated crowd over HTTP on SQLite and PostgreSQL."""
from __future__ import annotations

import math
import time

import numpy as np
import pytest
from sqlalchemy import select

from analysis.behaviour_signals import MAX_FORGED_SHARE, MIN_RATINGS, behaviour_signals, server_time
from analysis.evidence import FORGED, RECORD_STATUSES, SERVER_TIME_TOLERANCE_MS, VALID, RatingEvidence
from analysis.quality import quality_control
from analysis.table import RatingsTable
from analysis.verdict import VerdictStatus, combine, worker_verdicts
from tests.crowd_tables import CROWD, crowd_table, human_record


def rows(claims_ms: list[int], server_s: list[float]) -> RatingEvidence:
    rng = np.random.default_rng(0)
    records = [human_record(rng, ms / 1000) for ms in claims_ms]
    n = len(records)
    return RatingEvidence.from_rows(["valid"] * n, records, ["a b c"] * n, [None] * n, False,
                                    server_seconds=server_s)


def test_a_record_may_claim_up_to_the_server_time_plus_the_tolerance():
    evidence = rows([5000, 5000 + SERVER_TIME_TOLERANCE_MS, 5000 + SERVER_TIME_TOLERANCE_MS + 1, 9000, 9000],
                    [5.0, 5.0, 5.0, 30.0, math.nan])
    assert [RECORD_STATUSES[c] for c in evidence.record.tolist()] == ["valid", "valid", "forged", "valid", "valid"]
    assert evidence.valid.tolist() == [True, True, False, True, True]
    assert evidence.well_formed.all()
    assert evidence.shown_ms[2] == 5000 + SERVER_TIME_TOLERANCE_MS + 1  # the claim is kept, to be reported


def test_without_server_times_nothing_is_forged():
    rng = np.random.default_rng(1)
    evidence = RatingEvidence.from_rows(["valid"], [human_record(rng, 60.0)], ["a"], [None], False)
    assert evidence.record.tolist() == [VALID]


def test_the_server_time_signal_flags_more_than_its_share_of_forged_records():
    n = 20
    at_threshold = int(MAX_FORGED_SHARE * n)  # exactly the share: not flagged
    claims = [8000] * n
    honest_server = [8.4] * (n - at_threshold) + [0.15] * at_threshold
    signal = server_time(rows(claims, honest_server), np.array(honest_server), np.arange(n))
    assert signal.flagged is False and signal.value == at_threshold / n
    one_more = [8.4] * (n - at_threshold - 1) + [0.15] * (at_threshold + 1)
    signal = server_time(rows(claims, one_more), np.array(one_more), np.arange(n))
    assert signal.flagged is True and signal.kind == "behaviour"
    assert signal.reason.startswith(f"{at_threshold + 1} of {n} records claim")
    assert "median claim 8.0 s, server 0.1 s" in signal.reason  # (0.15 s shown to one decimal)


def test_the_signal_needs_enough_records_with_a_server_time():
    claims, server = [8000] * MIN_RATINGS, [0.1] * (MIN_RATINGS - 1) + [math.nan]
    signal = server_time(rows(claims, server), np.array(server), np.arange(MIN_RATINGS))
    assert signal.flagged is None and math.isnan(signal.value)


def forged_crowd() -> RatingsTable:
    """The hand-made crowd of test_behaviour_verdict, with the paced bot's server times cut to 0.15 s: it
    forged a person's times without waiting them."""
    table = crowd_table(CROWD)
    bot = table.worker.codes == table.worker.labels.index("paced-bot")
    seconds = np.where(bot, 0.15, table.seconds)
    evidence = table.evidence
    assert evidence is not None
    records = [None if not v else {**human_record(np.random.default_rng(0), 1.0),
                                   "first_input_ms": None if np.isnan(f) else int(f), "pointer": int(i),
                                   "shown_ms": int(s)}
               for v, f, i, s in zip(evidence.well_formed, evidence.first_input_ms, evidence.interactions,
                                     evidence.shown_ms)]
    statuses = [RECORD_STATUSES[c] if c != FORGED else "valid" for c in evidence.record.tolist()]
    candidates = ["x " * int(w) for w in evidence.words]  # the same number of words to read
    rebuilt = RatingEvidence.from_rows(statuses, records, candidates, [None] * len(table), False,
                                       server_seconds=seconds)
    columns = {name: [r[k] for r in table.records()] for k, name in enumerate(
        ("group", "worker", "hit", "system", "item", "slot_type", "slot", "original_slot", "score", "seconds"))}
    columns["seconds"] = seconds.tolist()
    return RatingsTable.from_columns(**columns, evidence=rebuilt)


def test_forged_records_count_as_no_record_and_reading_speed_uses_the_server_time():
    signals = {s.name: s for s in behaviour_signals(forged_crowd())["c"]["paced-bot"]}
    assert signals["server_time"].flagged is True and signals["server_time"].value == 1.0
    assert signals["missing_records"].flagged is None  # no record left to count: forged ones are server_time's
    assert signals["no_interaction"].flagged is None and signals["regular_timing"].flagged is None
    assert signals["reading_speed"].flagged is True  # 0.15 s per item, as the server saw it
    honest = {s.name: s for s in behaviour_signals(forged_crowd())["c"]["honest-0"]}
    assert honest["server_time"].flagged is False and honest["server_time"].value == 0.0


def test_forged_records_alone_flag_for_review_with_their_own_reason():
    table = forged_crowd()
    verdict = worker_verdicts(table, quality_control(table))["c"]["paced-bot"]
    assert verdict.status == VerdictStatus.flagged
    assert any(r.startswith("flagged for review: server_time (behaviour):") for r in verdict.reasons)
    qc = quality_control(table)["c"]
    signals = tuple(s for s in behaviour_signals(table)["c"]["paced-bot"] if s.name == "server_time")
    alone = combine(next(w for w in qc.workers if w.worker == "paced-bot"), None, signals)
    assert alone.status == VerdictStatus.flagged  # never excluded (nor rejected) on behaviour alone
    assert alone.reasons[0].startswith("flagged for review: server_time (behaviour): 50 of 50 records claim")


# Over HTTP: the simulated crowd against the real worker pages -----------------------------------------


@pytest.fixture
def served(database_url, tmp_path):
    from da_platform.simulation.background import serve_in_background
    from da_platform.simulation.crowd import SimulatedClock
    from tests.web_factories import make_web_env

    clock = SimulatedClock()
    env = make_web_env(database_url, tmp_path, clock=clock)
    campaign = env.campaign(hits=3, slots=20)
    with serve_in_background(env.app) as base_url:
        yield env, campaign, clock, base_url


def test_a_paced_bot_that_does_not_wait_is_caught_by_the_server_time_and_people_are_not(served):
    """At time scale 0 nobody waits for real; the server's clock is the crowd's simulated time. The honest
    worker and one paced bot wait their virtual times (the server sees them); the other paced bot claims
    a person's times in its records without waiting them (``waits=False``)."""
    from da_platform.db.models import BehaviourStatus, Campaign, Rating, Slot
    from da_platform.rating.campaign_ratings import load_ratings
    from da_platform.simulation.adversaries import OverlapBot, ProfileRater
    from da_platform.simulation.crowd import SimulatedWorker, SlotOracle, run_crowd
    from da_platform.simulation.ocr import TesseractReader
    from da_platform.simulation.profiles import WorkerProfile, random_profile
    from tests.worker_flow import tokens

    env, campaign, clock, base_url = served
    with env.sessions() as s:
        oracle = SlotOracle({p: 60.0 for p in s.scalars(select(Slot.public_id))})
    honest = ProfileRater(random_profile("honest", np.random.default_rng(3)))
    raters = {"honest": honest, "forger": OverlapBot(TesseractReader(), "ocr-overlap-paced", paced=True, waits=False),
              "waiter": OverlapBot(TesseractReader(), "ocr-overlap-paced", paced=True)}
    expires = int(time.time()) + 3600
    workers = [SimulatedWorker(name, honest.profile if name == "honest" else WorkerProfile(),
                               f"{base_url}/pool/{tokens(env).invite(campaign.campaign_id, name, expires)}", 1, rater)
               for name, rater in raters.items()]
    outcomes = run_crowd(workers, oracle, seed=1, threads=3, time_scale=0, clock=clock)
    assert [o.ratings for o in outcomes] == [20, 20, 20]
    with env.sessions() as s:
        # The server accepts every record as well-formed for its slot: only the analysis compares times.
        assert set(s.scalars(select(Rating.behaviour_status))) == {BehaviourStatus.valid}
        table = load_ratings(s, s.get(Campaign, campaign.campaign_id))
    assert table.evidence is not None
    signals = {worker: {s.name: s for s in found} for worker, found in behaviour_signals(table)[campaign.name].items()}
    label = {name: f"pool:{name}" for name in raters}
    forger, waiter, person = (signals[label[n]]["server_time"] for n in ("forger", "waiter", "honest"))
    assert forger.flagged is True and forger.value > MAX_FORGED_SHARE
    assert person.flagged is False and person.value == 0.0
    assert waiter.flagged is False and waiter.value == 0.0
    bot = table.worker.codes == table.worker.labels.index(label["forger"])
    # What the server saw of the forger: the network's round trip only (the simulated clock's latency).
    assert np.allclose(table.seconds[bot], 0.15)
    forged = table.evidence.record[bot] == FORGED
    assert (table.evidence.shown_ms[bot][forged] > 150 + SERVER_TIME_TOLERANCE_MS).all()
    assert (table.evidence.shown_ms[bot][~forged] <= 150 + SERVER_TIME_TOLERANCE_MS).all()
