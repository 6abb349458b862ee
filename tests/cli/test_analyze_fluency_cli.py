"""`analyze --fluency-campaign`: adequacy clusters, ties inside them broken by a fluency campaign."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.cli import main
from da_platform.db.models import Assignment, Campaign, Rating, Worker
from da_platform.simulation.profiles import WorkerProfile, slot_quality
from da_platform.simulation.sample import import_sample
from da_platform.simulation.sample_data import load_truth
from hit_builder.storage import LocalImageStorage


def _rate_every_hit(session, campaign: Campaign, quality: dict, seed: int) -> None:
    """One honest simulated worker per HIT, ratings stored as the worker flow stores them."""
    rng = np.random.default_rng(seed)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for hit in campaign.hits:
        worker = Worker(source="pool", external_id=f"{campaign.name}-{hit.index}")
        assignment = Assignment(hit=hit, worker=worker, public_id=f"{campaign.name}-a{hit.index}", source="pool")
        session.add(assignment)
        profile = WorkerProfile("honest", bias=float(rng.normal(0, 5)), noise=8)
        for slot in hit.slots:
            shown = start + timedelta(seconds=10 * slot.position)
            true = slot_quality(slot.slot_type.value, quality[slot.system.name][slot.question.external_id])
            session.add(Rating(assignment=assignment, slot=slot, score=profile.rate(true, rng), shown_at=shown,
                               rated_at=shown + timedelta(seconds=5)))


def test_fluency_campaign_orders_systems_inside_adequacy_clusters(database_url, sessions, tmp_path, monkeypatch):
    truth = load_truth()
    storage = LocalImageStorage(tmp_path / "images")
    with sessions.begin() as session:
        test_set = import_sample(session, questions=30)
        for criterion in ("adequacy", "fluency"):
            campaign = build_campaign(session,
                                      BuildSpec(name=criterion, test_set=test_set.name, criterion=criterion, seed=5,
                                                passes=2), storage=storage)
            _rate_every_hit(session, campaign, truth["quality"], seed=len(criterion))
    monkeypatch.setenv("DA_DATABASE_URL", database_url)
    result = CliRunner().invoke(main, ["analyze", "--campaign", "adequacy", "--fluency-campaign", "fluency",
                                       "--out", str(tmp_path / "report"), "--no-plots"])
    assert result.exit_code == 0, result.output
    assert "ties inside adequacy clusters broken by fluency (fluency):" in result.output
    listing = result.output.split("broken by fluency (fluency):")[1].strip().splitlines()[1:]
    rows = [line.split() for line in listing if line.strip() and line.split()[0].isdigit()]
    systems = [row[1] for row in rows]
    clusters = [int(row[2]) for row in rows]
    assert sorted(systems) == sorted(truth["order"])
    assert clusters == sorted(clusters)  # clusters never move
    for cluster in set(clusters):  # inside a cluster: fluency z descending
        fluency = [float(row[4]) for row in rows if int(row[2]) == cluster]
        assert fluency == sorted(fluency, reverse=True)
    with sessions() as session:
        assert session.scalar(select(Campaign.criterion).where(Campaign.name == "fluency")) == "fluency"
