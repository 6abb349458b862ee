"""Merging identical answers at build (``hit_builder.merging``) and the ratings counted for every
system that gave the answer (``da_platform.rating.merged`` through ``load_ratings``)."""
from __future__ import annotations

import random
from collections import Counter

from sqlalchemy import select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.db.models import Hit, Question, Rating, Slot, SlotType, System
from da_platform.rating.campaign_ratings import load_ratings
from da_platform.results.campaign_analysis import CampaignAnalysis
from hit_builder.merging import merge_identical
from hit_builder.storage import LocalImageStorage
from tests import dashboard_factories
from tests.factories import make_test_set


def test_the_first_system_of_each_identical_group_is_kept():
    items = [("alpha", "q1", "Paris"), ("alpha", "q2", "x"), ("beta", "q1", " Paris "), ("beta", "q2", "y"),
             ("gamma", "q1", "Paris"), ("gamma", "q2", "X")]
    plan = merge_identical(items, question_of=lambda i: i[1], system_of=lambda i: i[0],
                           question_name=lambda i: i[1], system_name=lambda i: i[0], text_of=lambda i: i[2])
    assert plan.kept == [("alpha", "q1", "Paris"), ("alpha", "q2", "x"), ("beta", "q2", "y"), ("gamma", "q2", "X")]
    assert plan.groups == [{"question": "q1", "rated_as": "alpha", "also": ["beta", "gamma"]}]
    assert (plan.items_before, plan.saved) == (6, 2)


def _scores(slot: Slot, rng: random.Random) -> int:
    """A careful worker: degraded copies clearly lower (so quality control passes)."""
    if slot.slot_type is SlotType.BAD_REF:
        return rng.randint(0, 30)
    return rng.randint(50, 100)


def test_a_merged_answer_is_rated_once_and_counted_for_every_system(session, tmp_path):
    test_set = make_test_set(session, name="merge set", questions=35, systems=("alpha", "beta", "gamma", "delta"))
    by_name = {s.name: {a.question.external_id: a for a in s.answers} for s in test_set.systems}
    shared = [f"q{i:04d}" for i in range(7)]
    for q in shared:
        by_name["beta"][q].text = by_name["alpha"][q].text
    for q in shared[:3]:
        by_name["gamma"][q].text = "  " + by_name["alpha"][q].text.replace(" ", "   ") + " "
    session.flush()
    campaign = build_campaign(session, BuildSpec(name="merged", test_set=test_set, seed=2, merge_identical=True),
                              storage=LocalImageStorage(tmp_path))
    record = campaign.settings["identical_answers"]
    assert (record["items_before"], record["items_rated"], record["saved"]) == (140, 130, 10)
    assert {g["question"]: (g["rated_as"], g["also"]) for g in record["groups"]} == {
        **{q: ("alpha", ["beta", "gamma"]) for q in shared[:3]}, **{q: ("alpha", ["beta"]) for q in shared[3:]}}
    slot_items = set(session.execute(select(System.name, Question.external_id).join(Slot, Slot.system_id == System.id)
                                     .join(Question, Question.id == Slot.question_id)
                                     .join(Hit, Hit.id == Slot.hit_id).where(Hit.campaign_id == campaign.id)))
    assert not any((s, q) in slot_items for q in shared for s in ("beta",))
    assert ("alpha", shared[0]) in slot_items and ("gamma", shared[5]) in slot_items
    session.commit()

    for index in range(len(campaign.hits)):
        dashboard_factories.rate_hit(session, campaign, index, f"w{index}", _scores, seed=index)
    table = load_ratings(session, campaign)
    rated = session.execute(select(Rating.score, Slot.slot_type, Question.external_id, System.name)
                            .join(Slot, Slot.id == Rating.slot_id).join(Question, Question.id == Slot.question_id)
                            .join(System, System.id == Slot.system_id)).all()
    counted = [r for r in rated if r.slot_type in (SlotType.SYSTEM, SlotType.REPEAT)]
    copies = sum(len(record["groups"][0]["also"]) if r.external_id in shared[:3] else 1
                 for r in counted if r.name == "alpha" and r.external_id in shared)
    assert len(table) == len(rated) + copies
    rows = list(table.records())
    for q in shared:
        alpha = Counter(r.score for r in rows if r.item == q and r.system == "alpha" and r.slot_type != "BAD_REF"
                        and r.slot_type != "REF")
        beta = Counter(r.score for r in rows if r.item == q and r.system == "beta")
        assert alpha and alpha == beta
    assert not any(r.system == "beta" and r.slot_type in ("BAD_REF", "REF") and r.item in shared for r in rows)

    analysis = CampaignAnalysis(session, campaign)
    assert analysis.result is not None
    items = analysis.result.groups["merged"].scores.items
    raw = {(s, i): r for s, i, r in zip(items.system.tolist(), items.item.tolist(), items.raw.tolist())}
    assert len(analysis.group.qc.passed_workers) == len(campaign.hits)
    for q in shared:
        assert raw["beta", q] == raw["alpha", q]
    for q in shared[:3]:
        assert raw["gamma", q] == raw["alpha", q]


def test_copies_of_merged_answers_are_not_the_workers_ratings_in_quality_control(session, tmp_path):
    """A worker who rated one HIT of a merged campaign did one HIT of 100 ratings: the copies made for the
    other systems count in the scores, not in qc-workers.csv's ratings, HITs, HIT times or runs, nor in
    the worker page's timeline."""
    import csv

    from analysis.output import write_qc_csv
    from da_platform.results.worker_plots import worker_rows

    test_set = make_test_set(session, name="merge qc", questions=35, systems=("alpha", "beta", "gamma", "delta"))
    by_name = {s.name: {a.question.external_id: a for a in s.answers} for s in test_set.systems}
    for q in [f"q{i:04d}" for i in range(12)]:
        by_name["beta"][q].text = by_name["gamma"][q].text = by_name["alpha"][q].text
    session.flush()
    campaign = build_campaign(session, BuildSpec(name="mergedqc", test_set=test_set, seed=2, merge_identical=True),
                              storage=LocalImageStorage(tmp_path))
    session.commit()
    for index in range(len(campaign.hits)):
        dashboard_factories.rate_hit(session, campaign, index, f"w{index}", _scores, seconds=6, seed=index)
    analysis = CampaignAnalysis(session, campaign)
    table = analysis.table
    per_worker = Counter(table.worker.labels[c] for c in table.worker.codes.tolist())
    copied = [w for w, n in per_worker.items() if n > 100]
    assert copied, per_worker  # the test needs a worker whose ratings were copied for other systems
    write_qc_csv(analysis.result, tmp_path / "qc-workers.csv")
    with open(tmp_path / "qc-workers.csv", encoding="utf-8") as handle:
        rows = {r["worker"]: r for r in csv.DictReader(line for line in handle if not line.startswith("#"))}
    for label in copied:
        scores = _scores_in_order(session, label.removeprefix("pool:"))
        longest = current = 1
        for before, after in zip(scores, scores[1:]):
            current = current + 1 if after == before else 1
            longest = max(longest, current)
        qc = analysis.worker_qc[label]
        assert (qc.n_ratings, qc.n_hits, qc.single_hit, qc.hit_seconds) == (100, 1, True, (600.0,))
        assert qc.longest_identical_run == longest
        assert len(worker_rows(table, label)) == 100  # the worker page's timeline: the ratings given
        assert (rows[label]["n_ratings"], rows[label]["n_hits"], rows[label]["single_hit"],
                rows[label]["hit_seconds"]) == ("100", "1", "True", "600.0")


def test_the_bundle_counts_the_ratings_given_and_their_copies_apart(session, tmp_path):
    """The manifest's ``ratings`` are the ratings the workers gave (the rows stored); the copies made for the
    other systems of a merged answer are ``rating_copies``: together, the rows of ratings.csv."""
    import csv
    import io
    import json
    import zipfile

    from sqlalchemy import func

    from da_platform.exports.files import bundle

    test_set = make_test_set(session, name="merge bundle", questions=35, systems=("alpha", "beta", "gamma"))
    by_name = {s.name: {a.question.external_id: a for a in s.answers} for s in test_set.systems}
    for q in [f"q{i:04d}" for i in range(6)]:
        by_name["beta"][q].text = by_name["alpha"][q].text
    session.flush()
    campaign = build_campaign(session, BuildSpec(name="mergedbundle", test_set=test_set, seed=2,
                                                 merge_identical=True), storage=LocalImageStorage(tmp_path))
    session.commit()
    for index in range(len(campaign.hits)):
        dashboard_factories.rate_hit(session, campaign, index, f"w{index}", _scores, seed=index)
    given = session.scalar(select(func.count(Rating.id)))
    # Each SYSTEM or REPEAT rating of alpha's answer to q0000-q0005 is copied once, for beta.
    copied = session.scalar(select(func.count(Rating.id)).join(Slot, Slot.id == Rating.slot_id)
                            .join(System, System.id == Slot.system_id).join(Question, Question.id == Slot.question_id)
                            .where(System.name == "alpha", Question.external_id.in_([f"q{i:04d}" for i in range(6)]),
                                   Slot.slot_type.in_((SlotType.SYSTEM, SlotType.REPEAT))))
    assert given and copied
    with zipfile.ZipFile(io.BytesIO(bundle(session, campaign).content)) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        rows = list(csv.DictReader(io.StringIO(archive.read("ratings.csv").decode("utf-8"))))
    assert (manifest["ratings"], manifest["rating_copies"]) == (given, copied)
    assert len(rows) == given + copied


def _scores_in_order(session, worker: str) -> list[int]:
    """The scores a worker gave, in the order of the slots (as stored: one row per rating given)."""
    from da_platform.db.models import Assignment, Worker

    return list(session.scalars(
        select(Rating.score).join(Assignment, Assignment.id == Rating.assignment_id)
        .join(Worker, Worker.id == Assignment.worker_id).join(Slot, Slot.id == Rating.slot_id)
        .where(Worker.external_id == worker).order_by(Slot.position)))
