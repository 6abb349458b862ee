"""The audit trail: one append-only ``AuditLog`` row per decision and per provider call."""
from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from da_platform.db.models import AuditLog

ACTOR = "da-platform"


def audit(session: Session, action: str, *, campaign_id: int | None, target: str | None = None,
          reason: str | None = None, outcome: str | None = None, details: dict[str, Any] | None = None,
          actor: str = ACTOR) -> AuditLog:
    """Add an audit row to the session (the caller's transaction commits it)."""
    row = AuditLog(actor=actor, campaign_id=campaign_id, action=action, target=target, reason=reason,
                   outcome=outcome, details=details)
    session.add(row)
    return row
