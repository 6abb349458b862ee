"""Template helpers of the planning panel (``da_platform.results.separation_cost``)."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from da_platform.db.models import Campaign, Question
from da_platform.results.separation_cost import PairPlan, plan_pair, rehearsal_command
from da_platform.web.admin import bp
from da_platform.web.database import get_session


@bp.app_template_global()
def pair_plan(pair, campaign: Campaign, progress) -> PairPlan:
    """Reachability, share of a pass, HITs and cost of one planning row."""
    questions = get_session().scalar(select(func.count(Question.id)).where(
        Question.test_set_id == campaign.test_set_id)) or 0
    per_assignment, currency = None, ""
    if progress.cost is not None and progress.assignments_needed:
        per_assignment = Decimal(progress.cost.total) / progress.assignments_needed
        currency = progress.cost.currency
    return plan_pair(pair, questions=questions, systems=len(campaign.systems), cost_per_assignment=per_assignment,
                     currency=currency)


@bp.app_template_global("rehearsal_command")
def rehearsal_command_of(campaign: Campaign) -> str:
    """``da-platform simulate NAME`` for this campaign (the panel's rehearsal line)."""
    return rehearsal_command(campaign.name)
