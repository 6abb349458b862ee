"""Worker pages: every worker's quality control, one worker's plots and the decision buttons."""
from __future__ import annotations

import math
import secrets
import weakref

import numpy as np
from flask import Response, flash, redirect, render_template, request, url_for
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased

from analysis.lapses import what_the_evidence_says
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import (
    Assignment,
    Campaign,
    Hit,
    Question,
    Rating,
    ReviewDecision,
    Slot,
    SlotType,
    System,
    Worker,
)
from da_platform.db.states import QCStatus
from da_platform.rating.campaign_ratings import (
    abandoned_note,
    awaiting_confirmation,
    counted_assignment,
    unconfirmed_note,
    worker_label,
)
from da_platform.results.worker_plots import scatter_png, timeline_png
from da_platform.review.by_hand import ACTIONS, DecisionError, plan, recommendation, record
from da_platform.web.admin import bp
from da_platform.web.admin.auth import logged_in_user, login_required
from da_platform.web.admin.context import campaign_analysis, campaign_or_404, worker_or_404
from da_platform.web.database import get_session

FAST_SECONDS = 2.0  # median time per item below this is flagged


def _campaign_workers(campaign: Campaign) -> dict[str, Worker]:
    """Workers with an assignment in the campaign, by analysis label."""
    workers = get_session().scalars(
        select(Worker).join(Assignment, Assignment.worker_id == Worker.id).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id).distinct())
    return {worker_label(w.source, w.external_id): w for w in workers}


def _decisions(campaign: Campaign) -> dict[int, list[ReviewDecision]]:
    by_worker: dict[int, list[ReviewDecision]] = {}
    for d in get_session().scalars(select(ReviewDecision).where(ReviewDecision.campaign_id == campaign.id)
                                   .order_by(ReviewDecision.id)):
        if d.worker_id is not None:  # looked up by worker; a decision about no worker is listed nowhere here
            by_worker.setdefault(d.worker_id, []).append(d)
    return by_worker


_MEDIANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _median_seconds(analysis, label: str) -> float:
    """The worker's median time per item (NaN without timed ratings); every worker's is computed in
    one pass per analysis (kept while the analysis is), so the workers page stays linear."""
    medians = _MEDIANS.get(analysis)
    if medians is None:
        medians = _MEDIANS.setdefault(analysis, _all_median_seconds(analysis.table))
    return medians.get(label, math.nan)


def _all_median_seconds(table) -> dict[str, float]:
    codes, seconds = table.worker.codes, table.seconds
    timed = ~np.isnan(seconds)
    codes, seconds = codes[timed], seconds[timed]
    order = np.lexsort((seconds, codes))
    codes, seconds = codes[order], seconds[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else np.array([], dtype=np.int64)
    ends = np.r_[starts[1:], len(codes)]
    labels = table.worker.labels
    return {labels[codes[a]]: float(np.median(seconds[a:b])) for a, b in zip(starts, ends)}


def _flags(qc, median: float, worker: Worker, excluded: bool, policy, verdict=None, abandoned: int = 0,
           unconfirmed: int = 0) -> list[str]:
    flags = []
    if qc is not None and qc.status != QCStatus.passed:
        flags.append(f"QC {qc.status.replace('_', ' ')}")
    if qc is not None and policy.reject_identical_run and qc.longest_identical_run >= policy.reject_identical_run:
        flags.append(f"{qc.longest_identical_run} identical in a row")
    if median < FAST_SECONDS:
        flags.append(f"fast ({median:.1f} s per item)")
    if verdict is not None and verdict.meaning is not None and verdict.meaning.status == QCStatus.failed:
        flags.append("MEANING check failed")  # excludes the worker though the QC column (BAD_REF) passed
    if verdict is not None and verdict.status.value == "flagged":
        flags.append("flagged for review: " + ", ".join(s.name.replace("_", " ") for s in verdict.flags))
    if excluded:
        flags.append("data excluded")
    if abandoned and qc is not None:  # without analysed ratings, the row says it instead of the QC columns
        flags.append(abandoned_note(abandoned))
    if unconfirmed and qc is not None:
        flags.append(unconfirmed_note(unconfirmed))
    if worker.blocked:
        flags.append("blocked")
    return flags


def _summary(analysis, label: str, worker: Worker, decisions: list[ReviewDecision], policy) -> dict:
    qc = analysis.worker_qc.get(label)
    verdict = analysis.worker_verdicts.get(label)
    median = _median_seconds(analysis, label)
    data = analysis.decisions.get(label)
    abandoned = analysis.abandoned.get(label, 0)
    unconfirmed = analysis.unconfirmed.get(label, 0)
    return {"label": label, "worker": worker, "qc": qc, "verdict": verdict, "median_seconds": median,
            "flags": _flags(qc, median, worker, label in analysis.excluded, policy, verdict, abandoned, unconfirmed),
            "data": data, "decisions": decisions, "abandoned": abandoned, "unconfirmed": unconfirmed}


@bp.get("/campaigns/<int:campaign_id>/workers")
@login_required
def workers(campaign_id: int):
    """Every worker: QC p-value, pairs, mean scores, repeat consistency, time per item, flags, decision."""
    campaign = campaign_or_404(campaign_id)
    analysis = campaign_analysis(campaign)
    by_label = _campaign_workers(campaign)
    decisions = _decisions(campaign)
    policy = CampaignSettings.of(campaign).review_policy
    rows = [_summary(analysis, label, by_label[label], decisions.get(by_label[label].id, []), policy)
            for label in sorted(by_label, key=lambda w: (w not in analysis.worker_qc, w))]
    return render_template("admin/workers.html", campaign=campaign, rows=rows, analysis=analysis)


def _check_pairs(campaign: Campaign, worker: Worker) -> list[dict]:
    """The worker's BAD_REF pairs with the question, both answers and both scores."""
    original, original_rating = aliased(Slot), aliased(Rating)
    rows = get_session().execute(
        select(Question.text, System.name, original.candidate_text, original_rating.score, Slot.candidate_text,
               Rating.score)
        .select_from(Rating).join(Assignment, Assignment.id == Rating.assignment_id)
        .join(Slot, Slot.id == Rating.slot_id).join(Hit, Hit.id == Slot.hit_id)
        .join(original, original.id == Slot.original_slot_id)
        .join(original_rating, (original_rating.slot_id == original.id)
              & (original_rating.assignment_id == Rating.assignment_id))
        .join(Question, Question.id == Slot.question_id).join(System, System.id == Slot.system_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == worker.id, counted_assignment(),
               Slot.slot_type == SlotType.BAD_REF)
        .order_by(Assignment.id, Slot.position)
    ).all()
    return [{"question": q, "system": s, "original": o, "original_score": os_, "degraded": d, "degraded_score": ds}
            for q, s, o, os_, d, ds in rows]


@bp.get("/campaigns/<int:campaign_id>/workers/<int:worker_id>")
@login_required
def worker(campaign_id: int, worker_id: int):
    """One worker: QC, plots, the policy's recommendation, decision buttons and history, check pairs."""
    campaign = campaign_or_404(campaign_id)
    person = worker_or_404(campaign, worker_id)
    analysis = campaign_analysis(campaign)
    label = worker_label(person.source, person.external_id)
    policy = CampaignSettings.of(campaign).review_policy
    decisions = _decisions(campaign).get(person.id, [])
    summary = _summary(analysis, label, person, decisions, policy)
    assignments = get_session().execute(
        select(Assignment, awaiting_confirmation()).join(Hit, Hit.id == Assignment.hit_id)
        .where(Hit.campaign_id == campaign.id, Assignment.worker_id == person.id).order_by(Assignment.id)).all()
    checks = analysis.hit_checks.get(label, {})
    return render_template(
        "admin/worker.html", campaign=campaign, summary=summary, actions=ACTIONS.values(),
        verdict=recommendation(get_session(), campaign, person, summary["qc"], summary["verdict"]),
        assignments=[(a, awaiting, checks.get(a.hit.public_id)) for a, awaiting in assignments],
        reading=what_the_evidence_says(summary["verdict"], checks) if summary["qc"] is not None else None,
        pairs=_check_pairs(campaign, person), has_ratings=label in analysis.table.worker.labels)


@bp.get("/campaigns/<int:campaign_id>/workers/<int:worker_id>/<any(scatter, timeline):kind>.png")
@login_required
def worker_plot(campaign_id: int, worker_id: int, kind: str):
    campaign = campaign_or_404(campaign_id)
    person = worker_or_404(campaign, worker_id)
    table = campaign_analysis(campaign).table
    label = worker_label(person.source, person.external_id)
    png = (scatter_png if kind == "scatter" else timeline_png)(table, label)
    return Response(png, mimetype="image/png")


@bp.route("/campaigns/<int:campaign_id>/workers/<int:worker_id>/decide", methods=["GET", "POST"])
@login_required
def decide(campaign_id: int, worker_id: int):
    """GET: the confirmation page for one decision; POST (from that page): record it with its reason."""
    campaign = campaign_or_404(campaign_id)
    person = worker_or_404(campaign, worker_id)
    session = get_session()
    key = request.values.get("action", "")
    amount = request.values.get("amount", "").strip() or None
    back = url_for("admin.worker", campaign_id=campaign.id, worker_id=person.id)
    if request.method == "GET":
        analysis = campaign_analysis(campaign)
        label = worker_label(person.source, person.external_id)
        verdict = recommendation(session, campaign, person, analysis.worker_qc.get(label),
                                 analysis.worker_verdicts.get(label))
        try:
            nonce = secrets.token_hex(8)
            proposal = plan(session, campaign, person, key, amount=amount, reason=verdict.reason, nonce=nonce)
        except DecisionError as error:
            return render_template("admin/message.html", title="Cannot take this decision", message=str(error),
                                   back=back), 409
        return render_template("admin/confirm.html", campaign=campaign, worker=person, plan=proposal,
                               verdict=verdict, amount=amount, nonce=nonce, back=back)
    reason = request.form.get("reason", "").strip()
    try:
        proposal = plan(session, campaign, person, key, amount=amount, reason=reason,
                        nonce=request.form.get("nonce", ""))
        if request.form.get("confirm") != "yes":
            raise DecisionError("the decision was not confirmed")
        sent_plan = request.form.get("plan")  # the confirmation page's plan (scripts may leave it out)
        if sent_plan is not None and sent_plan != proposal.fingerprint():  # sent twice, or decided meanwhile
            return render_template("admin/message.html", title="Already recorded",
                                   message="This decision was recorded already, or the worker's decisions changed "
                                           "since the confirmation page was shown. Nothing was recorded now.",
                                   back=back), 409
        rows = record(session, campaign, proposal, actor=f"admin:{logged_in_user().username}")
        session.commit()
    except DecisionError as error:
        session.rollback()
        return render_template("admin/message.html", title="Nothing recorded", message=str(error), back=back), 409
    except IntegrityError:
        session.rollback()
        return render_template("admin/message.html", title="Already recorded",
                               message="This decision was recorded already (the form was sent twice).",
                               back=back), 409
    flash(f"Recorded: {ACTIONS[key].label} ({len(rows)} decision(s)).")
    return redirect(back, code=303)
