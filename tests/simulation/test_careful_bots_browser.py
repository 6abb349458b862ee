"""A careful bot in real Chromium (da_platform.simulation.careful_bots): trusted pointer and key input, a
whole short HIT, and the automation traces its page records, stock and hidden."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest
from sqlalchemy import select

from da_platform.db.models import BehaviourStatus, Rating, Slot
from da_platform.simulation.careful_bots import KINDS, SlotTruth, Worker, run_workers
from tests.browser_steps import invite, served_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_careful_bots_rate_with_trusted_input_and_their_traces_arrive(tmp_path):
    with served_site(tmp_path) as site:
        campaigns = {kind: site.campaign(slots=4) for kind in ("competent", "competent-evading")}
        with site.sessions() as s:
            truth = {public_id: SlotTruth(70.0, candidate, reference) for public_id, candidate, reference in
                     s.execute(select(Slot.public_id, Slot.candidate_text, Slot.reference_text))}
        workers = [Worker(kind, KINDS[kind], "test", invite(site, campaign), truth, np.random.default_rng(n),
                          time_scale=0.02) for n, (kind, campaign) in enumerate(campaigns.items())]
        runs = {run.kind: run for run in asyncio.run(run_workers(workers))}
        with site.sessions() as s:
            stored = {kind: s.execute(select(Rating.score, Rating.behaviour_status, Rating.behaviour)
                                      .join(Slot, Rating.slot_id == Slot.id)
                                      .where(Slot.hit_id == campaign.hit_ids[0]).order_by(Slot.position)).all()
                      for kind, campaign in campaigns.items()}
    for kind, run in runs.items():
        assert run.error is None and run.finished and run.ratings == 4, run
        rows = stored[kind]
        assert [r.score for r in rows] == run.scores  # what the slider showed is what was stored
        assert all(r.behaviour_status == BehaviourStatus.valid for r in rows)
        for r in rows:
            # The page counts only events the browser marks as trusted: the bot's input is, like a person's.
            assert r.behaviour["pointer"] + r.behaviour["key"] > 0
            assert 0 < r.behaviour["first_input_ms"] < r.behaviour["shown_ms"]
    traces = {kind: {(r.behaviour["webdriver"], r.behaviour["headless_ua"], r.behaviour["software_gl"])
                     for r in rows} for kind, rows in stored.items()}
    assert traces == {"competent": {(1, 1, 1)}, "competent-evading": {(0, 0, 0)}}
