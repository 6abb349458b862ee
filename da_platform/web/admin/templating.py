"""Template helpers of the dashboard: number and time formatting, the logged-in researcher, the one
phrase for ratings of abandoned assignments and the one for those awaiting the provider's confirmation."""
from __future__ import annotations

import math
from datetime import datetime

from da_platform.rating.campaign_ratings import abandoned_note, unconfirmed_note
from da_platform.web.admin import bp
from da_platform.web.admin.auth import current_user


@bp.app_template_filter("admin_num")
def admin_num(value: float | int | None, digits: int = 2) -> str:
    """A number with ``digits`` decimals; an en dash for a missing or undefined one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


@bp.app_template_filter("admin_pvalue")
def admin_pvalue(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.1e}" if value < 0.001 else f"{value:.3f}"


@bp.app_template_filter("admin_time")
def admin_time(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


bp.add_app_template_global(abandoned_note)
bp.add_app_template_global(unconfirmed_note)


@bp.context_processor
def _admin_user() -> dict:
    return {"admin_user": current_user()}
