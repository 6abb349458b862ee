"""Where a campaign in waves stands (docs/method.md §12): its waves, each pair's sequential decision, what is still
undecided, the next wave and the projected cost of deciding the rest.

From the campaign's one analysis (:class:`~da_platform.results.campaign_analysis.CampaignAnalysis`) and the looks
its waves recorded (``CampaignSettings.waves``): the recorded looks are taken as they were; unless the campaign
has stopped, the ratings given since the latest look make a provisional look (the decisions it shows stand only
once the next wave is planned from it, ``da-platform waves CAMPAIGN --next``). Once the campaign has stopped, its
last recorded look is its final one, which spends what is left of each pair's α.

The same status feeds ``da-platform waves``, the dashboard and the bundle's manifest.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from analysis.sequential import Look, PairDecision, PairState, SequentialResult, sequential_decisions
from analysis.sequential_plan import WavePlan, plan_next_wave, rating_moments
from da_platform.campaigns.progress import CostProjection, project_cost
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.waves_record import WavesRecord
from da_platform.db.models import Campaign
from da_platform.results.campaign_analysis import CampaignAnalysis


@dataclass(frozen=True)
class WaveStatus:
    """A campaign in waves: its record, the decisions, the next wave's plan (None once stopped or without a
    ranking), the HITs and cost a decision of the pairs still open would likely take (None: cannot tell)."""

    campaign: str
    record: WavesRecord
    decisions: SequentialResult | None  # None: no ranking yet
    provisional: bool  # the latest look is the ratings since the last recorded one, not recorded yet
    look: Look | None  # that provisional look (None: not provisional)
    plan: WavePlan | None
    projected_hits: int | None
    projected_cost: CostProjection | None

    @property
    def open(self) -> tuple[PairDecision, ...]:
        return () if self.decisions is None else tuple(p for p in self.decisions.pairs if p.state is PairState.open)

    def to_json(self) -> dict[str, Any]:
        """The design, the waves and every pair's decision, as the bundle's manifest records them."""
        pairs = [] if self.decisions is None else [_pair_json(p) for p in self.decisions.pairs]
        return {"design": "waves", **self.record.to_json(), "provisional": self.provisional,
                "final": bool(self.decisions is not None and self.decisions.final),
                "test": f"group sequential rank-sum tests per pair, {self.record.design.spending.value} error spending "
                        "(Lan and DeMets 1983), alpha per side as the ranking's (docs/method.md §12)",
                "pairs": pairs, "projected_hits": self.projected_hits}


def _pair_json(pair: PairDecision) -> dict[str, Any]:
    return {"first": pair.first, "second": pair.second, "state": pair.state.value, "wave": pair.wave,
            "better": pair.better, "adjusted_p": pair.pvalue, "nominal_p": pair.nominal,
            "information": round(pair.fraction, 6), "ratings": list(pair.ratings), "more_ratings": pair.more_ratings,
            "conditional_power": pair.conditional_power}


def current_look(analysis: CampaignAnalysis, wave: int) -> Look | None:
    """The look the campaign's ratings give now (None without a ranking)."""
    if not analysis.ranked:
        return None
    group = analysis.ranked_group
    return Look.of(wave, group.ranking, {s.system: s.n_ratings for s in group.system_scores})


def wave_status(session: Session, campaign: Campaign, analysis: CampaignAnalysis | None = None) -> WaveStatus | None:
    """The status of a campaign in waves (None: the fixed design)."""
    settings = CampaignSettings.of(campaign)
    record = settings.waves
    if record is None:
        return None
    analysis = analysis or CampaignAnalysis(session, campaign)
    sequential = record.sequential(analysis.alpha)
    looks = record.looks()
    now = None
    if record.stopped is None and record.latest.look is None:
        now = current_look(analysis, record.latest.wave)
        if now is not None and looks and dict(now.ratings) == dict(looks[-1].ratings):
            now = None  # no rating since the last look: nothing new to look at
        if now is not None:
            looks.append(now)
    if not looks:
        return WaveStatus(campaign.name, record, None, False, None, None, None, None)
    decisions = sequential_decisions(looks, sequential, final=record.stopped is not None)
    plan = projected = cost = None
    if now is not None:
        kept = frozenset(w.worker for w in analysis.ranked_group.scores.workers if w.included)
        plan = plan_next_wave(decisions, rating_moments(analysis.used, campaign.name, kept), record.design,
                              balanced=_balanced(record), reference_hits=record.reference_hits,
                              hits_so_far=record.hits, wave=record.latest.wave + 1)
        projected = _projected_hits(decisions, plan, settings, record)
        if projected is not None:
            cost = project_cost(campaign, projected, projected)
    return WaveStatus(campaign.name, record, decisions, now is not None, now, plan, projected, cost)


def _balanced(record: WavesRecord) -> dict[str, float]:
    """Each system's share in the fixed design: the first wave's shares (the fixed mix)."""
    return dict(record.waves[0].shares)


def _projected_hits(decisions: SequentialResult, plan: WavePlan, settings: CampaignSettings,
                    record: WavesRecord) -> int | None:
    """HITs the pairs still contended would likely need, at the next wave's mix: for each, the ratings it needs
    over what one HIT gives its two systems; the largest (the waves rate them all at once), within the budget."""
    if plan.mix is None:
        return None
    scored_per_hit = sum(n for t, n in settings.hit_layout.hit_counts().items() if t.value in ("SYSTEM", "REPEAT"))
    needed = []
    for pair in decisions.contended(record.design.futility):
        share = plan.shares.get(pair.first, 0.0) + plan.shares.get(pair.second, 0.0)
        if pair.more_ratings is None or share <= 0:
            return None
        needed.append(math.ceil(pair.more_ratings / (share * scored_per_hit)))
    if not needed:
        return 0
    left = record.design.hits(record.design.budget, record.reference_hits) - record.hits
    return min(max(needed), max(left, 0))


def design_lines(record: WavesRecord | None) -> list[str]:
    """The design in a line or two, as ``build`` and ``inspect`` say it."""
    if record is None:
        return ["design: fixed (every HIT built at once; each system its share of the ratings)"]
    d = record.design
    lines = [f"design: waves (docs/method.md §12): first wave {d.first_wave:.0%} of the fixed design's "
             f"{record.reference_hits} HITs, then {d.wave:.0%} per wave up to {d.budget:.0%}; mix {d.mix.value} "
             f"(floor {d.floor:g}, tolerance {d.tolerance:g} points); {d.spending.value} error spending, a pair set "
             f"aside below conditional power {d.futility:g}",
             f"waves so far: {len(record.waves)} ({record.hits} HITs)"
             + (f"; stopped: {record.stopped}" if record.stopped else "")]
    return lines
