"""A campaign's HITs on MTurk after the launch: expire them (and delete the finished ones) or extend them, and
message the workers who took part. Each step is in the audit trail."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from da_platform.config.campaign_settings import CampaignSettings, MTurkLaunch
from da_platform.db.audit import audit
from da_platform.db.models import Assignment, Campaign, CampaignStatus, Hit, Worker
from da_platform.db.rows import get_row
from da_platform.operations.sync import work_ids
from da_platform.providers.base import ProviderError
from da_platform.providers.mturk import MTURK
from da_platform.providers.mturk.client import MTurk


def expire_hits(sessions: sessionmaker[Session], campaign_id: int, client: MTurk, *, extend_hours: int | None = None,
                delete: bool = False) -> Iterator[tuple[str, str]]:
    """Expire the campaign's HITs on MTurk now (``delete``: and delete those MTurk lets go, i.e. whose
    assignments are all reviewed), or extend them by ``extend_hours`` from now; yields each HIT's id and what
    became of it, as it goes. HITs deleted before are left alone; the ones deleted are stored with the campaign
    (``MTurkLaunch.deleted_hits``). Expiring closes the campaign. A refusal to expire or extend one HIT raises
    the provider's error (the HITs before it are done and recorded)."""
    with sessions() as session:
        campaign = get_row(session, Campaign, campaign_id)
        hits = work_ids(session, campaign, MTURK.name)
        deleted = set((CampaignSettings.of(campaign).mturk_launch or MTurkLaunch()).deleted_hits or ())
    for hit_id in [h for h in hits if h not in deleted]:
        if extend_hours:
            until = datetime.now(timezone.utc) + timedelta(hours=extend_hours)
            client.extend(hit_id, until)
            action, outcome = "mturk.extend", f"until {until.isoformat()}"
        else:
            client.expire(hit_id)
            action, outcome = "mturk.expire", "expired"
        if delete and not extend_hours:
            try:
                client.delete(hit_id)
                outcome += ", deleted"
                deleted.add(hit_id)
            except ProviderError as error:
                outcome += f", not deleted ({error})"
        with sessions.begin() as session:
            audit(session, action, campaign_id=campaign_id, target=hit_id, outcome=outcome)
            stored = get_row(session, Campaign, campaign_id)
            launched = CampaignSettings.of(stored).mturk_launch or MTurkLaunch()
            launched = dataclasses.replace(launched, deleted_hits=tuple(sorted(deleted)))
            CampaignSettings.update(stored, mturk_launch=launched)
        yield hit_id, outcome
    if not extend_hours:
        with sessions.begin() as session:
            get_row(session, Campaign, campaign_id).status = CampaignStatus.closed


@dataclasses.dataclass(frozen=True)
class Notified:
    """How many of the workers messaged MTurk accepted the message for."""

    notified: int
    workers: int


def notify_workers(sessions: sessionmaker[Session], campaign_id: int, client: MTurk, *, subject: str,
                   message: str) -> Notified:
    """Send ``subject`` and ``message`` to every MTurk worker who took part in the campaign (audited)."""
    with sessions() as session:
        workers = sorted(set(session.scalars(
            select(Worker.external_id).join(Assignment, Assignment.worker_id == Worker.id)
            .join(Hit, Hit.id == Assignment.hit_id).where(Hit.campaign_id == campaign_id,
                                                          Worker.source == MTURK.name))))
    failures = client.notify(workers, subject=subject, message=message)
    with sessions.begin() as session:
        audit(session, "mturk.notify", campaign_id=campaign_id, target=f"{len(workers)} worker(s)", reason=subject,
              outcome=f"{len(failures)} failure(s)")
    return Notified(len(workers) - len(failures), len(workers))
