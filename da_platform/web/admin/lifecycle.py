"""Dashboard: campaign status (open / pause / resume / close), assignments in progress with their
release button, and the read-only preview of any HIT's slots (``da_platform.campaigns.preview``)."""
from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from da_platform.campaigns.assignments import assignments_in_progress
from da_platform.campaigns.lifecycle import (
    LifecycleError,
    StatusChange,
    allowed_changes,
    change_status,
    release_assignment,
)
from da_platform.campaigns.preview import PreviewError, image_key, slot_preview
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Assignment, Campaign, Hit
from da_platform.rating.language import worker_language
from da_platform.web.admin import bp
from da_platform.web.admin.auth import logged_in_user, login_required
from da_platform.web.admin.context import campaign_or_404
from da_platform.web.database import get_session
from da_platform.web.services import png_response, stored_png

LABELS = {StatusChange.open: "Open to workers", StatusChange.pause: "Pause", StatusChange.resume: "Resume",
          StatusChange.close: "Close for good"}


@bp.app_template_global()
def lifecycle_panel(campaign: Campaign) -> dict:
    """What the campaign page's status and assignments panel shows."""
    return {"changes": [(c.value, LABELS[c]) for c in allowed_changes(campaign)],
            "in_progress": assignments_in_progress(get_session(), campaign)}


def _actor() -> str:
    return f"admin:{logged_in_user().username}"


@bp.post("/campaigns/<int:campaign_id>/status")
@login_required
def campaign_status(campaign_id: int):
    campaign = campaign_or_404(campaign_id)
    change = request.form.get("change", "")
    if change not in {c.value for c in StatusChange}:
        abort(400)
    if change == StatusChange.close.value and request.form.get("confirm") != "yes":
        flash("Closing is final: tick the box to confirm.")
        return redirect(url_for("admin.campaign", campaign_id=campaign.id), 303)
    session = get_session()
    try:
        status = change_status(session, campaign, change, actor=_actor(), reason=request.form.get("reason", ""))
    except LifecycleError as error:
        session.rollback()
        flash(str(error))
    else:
        session.commit()
        flash(f"Campaign {campaign.name} is {status.value} now.")
    return redirect(url_for("admin.campaign", campaign_id=campaign_id), 303)


@bp.post("/campaigns/<int:campaign_id>/assignments/<int:assignment_id>/release")
@login_required
def release(campaign_id: int, assignment_id: int):
    campaign = campaign_or_404(campaign_id)
    session = get_session()
    assignment = session.scalar(select(Assignment).join(Hit, Hit.id == Assignment.hit_id)
                                .where(Assignment.id == assignment_id, Hit.campaign_id == campaign.id))
    if assignment is None:
        abort(404)
    try:
        release_assignment(session, assignment, actor=_actor(), reason=request.form.get("reason", ""))
    except LifecycleError as error:
        session.rollback()
        flash(str(error))
    else:
        session.commit()
        flash(f"Released HIT {assignment.hit.index}: the next arrival gets it ({assignment.next_position} "
              "ratings kept).")
    return redirect(url_for("admin.campaign", campaign_id=campaign_id), 303)


@bp.get("/campaigns/<int:campaign_id>/preview")
@login_required
def preview(campaign_id: int):
    """Slot ``slot`` of HIT ``hit`` as the worker sees it (in the campaign's language), with its hidden
    facts. Creates nothing."""
    campaign = campaign_or_404(campaign_id)
    hit, position = request.args.get("hit", 0, type=int), request.args.get("slot", 0, type=int)
    try:
        shown = slot_preview(get_session(), campaign, hit, position)
    except PreviewError as error:
        return render_template("admin/message.html", title="Nothing to preview", message=str(error),
                               campaign=campaign), 404
    return render_template("admin/preview.html", campaign=campaign, shown=shown,
                           seen=worker_language(CampaignSettings.of(campaign).worker))


@bp.get("/campaigns/<int:campaign_id>/preview/<slot_id>/<any(reference, candidate):role>.png")
@login_required
def preview_image(campaign_id: int, slot_id: str, role: str):
    return png_response(stored_png(image_key(get_session(), campaign_or_404(campaign_id), slot_id, role)))


@bp.route("/campaigns/<int:campaign_id>/pool-review", methods=["GET", "POST"])
@login_required
def pool_review(campaign_id: int):
    """The review policy applied to every finished own-pool assignment at once (``da-platform pool
    review``): GET shows the decisions it would take, POST (confirmed) records and applies them."""
    from flask import current_app

    from da_platform.review.pool_run import plan_pool, review_pool

    campaign = campaign_or_404(campaign_id)
    session = get_session()
    policy = CampaignSettings.of(campaign).review_policy
    planned = plan_pool(session, campaign, policy)
    if request.method == "POST":
        if request.form.get("confirm") != "yes":
            flash("Tick the box to confirm.")
            return redirect(url_for("admin.pool_review", campaign_id=campaign_id), 303)
        shown = request.form.get("count", "")
        if shown != str(len(planned)):  # someone finished a HIT since the page was shown: show it again
            flash("The work to review changed since the page was shown; here are the decisions now.")
            return redirect(url_for("admin.pool_review", campaign_id=campaign_id), 303)
        session.rollback()
        done = review_pool(current_app.config["SESSIONS"], campaign.id, policy, planned)
        flash(f"Recorded and applied {done} decision(s) for own-pool workers.")
        return redirect(url_for("admin.workers", campaign_id=campaign_id), 303)
    return render_template("admin/pool_review.html", campaign=campaign, planned=planned)
