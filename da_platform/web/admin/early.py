"""Early states of a campaign said as such: "not enough data yet" instead of messages that read as
verdicts ("no BAD_REF checks" two ratings in, "too few pairs" for a worker two items into a HIT)."""
from __future__ import annotations

from sqlalchemy import select

from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit, Slot, SlotType
from da_platform.web.admin import bp
from da_platform.web.database import get_session

NO_CHECKS = "no BAD_REF checks, so no quality control"
WAITING_FOR_PAIRS = ("Not enough data yet: no degraded check has been paired with its original so far (a check "
                     "counts once the same worker has rated its original, in the other half of the HIT); quality "
                     "control starts then, and until then every worker's ratings are shown unchecked.")


def has_checks(campaign: Campaign) -> bool:
    """Whether the campaign's HITs hold BAD_REF checks at all."""
    return get_session().scalar(select(Slot.id).join(Hit, Hit.id == Slot.hit_id).where(
        Hit.campaign_id == campaign.id, Slot.slot_type == SlotType.BAD_REF).limit(1)) is not None


@bp.app_template_filter("early_state")
def early_state(warning: str, campaign: Campaign) -> str:
    """An analysis warning, or what it means early in a campaign built with checks."""
    if NO_CHECKS in warning and has_checks(campaign):
        return WAITING_FOR_PAIRS
    return warning


@bp.app_template_global()
def working_now(campaign: Campaign) -> set[int]:
    """Ids of the workers with an assignment of the campaign in progress."""
    return set(get_session().scalars(select(Assignment.worker_id).join(Hit, Hit.id == Assignment.hit_id).where(
        Hit.campaign_id == campaign.id, Assignment.status == AssignmentStatus.in_progress)))
