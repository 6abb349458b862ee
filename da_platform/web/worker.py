"""The worker blueprint: arrival from each source, instructions, one slot per screen, completion.

URL scheme (everything after arrival carries a signed assignment token ``<t>``, never a cookie)::

    GET  /pool/<invite token>                      own pool (links from ``da-platform invite``)
    GET  /mturk?assignmentId=…&hitId=…&workerId=…&turkSubmitTo=…   MTurk ExternalQuestion
    GET  /prolific/<campaign token>?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…
    GET  /a/<t>/                                   instructions
    GET  /a/<t>/slot                               the current slot (a reload resumes here)
    POST /a/<t>/slot   slot=<slot public id>&score=<0..100>   -> 303 to the next slot (no script)
    POST /a/<t>/rating slot=…&score=…              -> JSON with the next screen (the page's script)
    GET  /a/<t>/image/<slot public id>/<reference|candidate>  PNG of the current slot only
    GET  /a/<t>/done                               completion (page, MTurk POST, or Prolific redirect)
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, g, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError

from da_platform.models import Assignment, AssignmentStatus, Campaign, Hit
from da_platform.sources import ArrivalRefused
from da_platform.sources.arrival import take_assignment_id
from da_platform.sources.tokens import TokenError
from da_platform.web.database import autocommit_connection, get_engine, get_session, once_more_if_disconnected
from da_platform.web.flow import (
    TIMED_OUT,
    AssignmentState,
    Rated,
    RatingRefused,
    Screen,
    current_image_key,
    load_state,
    mark_shown,
    record_rating,
)
from da_platform.web.security import origin_of
from da_platform.web.services import services

bp = Blueprint("worker", __name__)


class WorkerPageError(Exception):
    """An error page for the worker (a clear message, the right status, never a traceback)."""

    def __init__(self, message: str, status: int, title: str = "Cannot continue", resume: str | None = None):
        super().__init__(message)
        self.message, self.status, self.title, self.resume = message, status, title, resume


@bp.errorhandler(WorkerPageError)
def _worker_page_error(error: WorkerPageError):
    page = render_template("worker/message.html", title=error.title, message=error.message, resume=error.resume)
    return page, error.status


# Arrival -------------------------------------------------------------------------------------------


@bp.get("/pool/<token>")
def arrive_pool(token: str):
    return _arrive("pool", token)


@bp.get("/mturk")
def arrive_mturk():
    return _arrive("mturk", None)


@bp.get("/prolific/<token>")
def arrive_prolific(token: str):
    return _arrive("prolific", token)


def _arrive(source_name: str, path_token: str | None):
    session = get_session()
    source = services().sources[source_name]
    try:
        arrival = source.arrival(session, request.args, path_token)
        if arrival.preview:  # MTurk preview: read-only
            campaign = session.get(Campaign, arrival.campaign_id)
            total = session.get(Hit, arrival.hit_id).slot_count
            return render_template("worker/instructions.html", campaign=campaign, total=total, start_url=None)
        public_id = take_assignment_id(session.connection(), arrival)
        session.commit()
    except ArrivalRefused as refusal:
        session.rollback()
        raise WorkerPageError(refusal.message, refusal.status) from None
    except IntegrityError:  # a concurrent duplicate of this very arrival won the race
        session.rollback()
        raise WorkerPageError("Your task is being prepared: please reload this page.", 409) from None
    return redirect(url_for("worker.instructions", token=services().tokens.assignment(public_id)), 303)


# The assignment ----------------------------------------------------------------------------------------


def _assignment_public_id(token: str) -> str:
    try:
        return services().tokens.read_assignment(token)
    except TokenError as error:
        raise WorkerPageError("This link has expired." if error.expired else "This link is not valid.", 403) from None


def _state(token: str, serving: bool = False) -> AssignmentState:
    """The assignment named by the token, with its current screen (one autocommitted query).

    ``serving``: the current slot is being shown now; the first time, that moment is recorded.
    """
    public_id = _assignment_public_id(token)

    def load() -> AssignmentState | None:
        with autocommit_connection() as connection:
            state = load_state(connection, public_id)
            if serving and state is not None and state.screen is not None and state.current_shown_at is None:
                mark_shown(connection, state)
            return state

    state = once_more_if_disconnected(load)
    if state is None:
        raise WorkerPageError("This task does not exist.", 404)
    return state


def screen_view(token: str, screen: Screen) -> dict:
    """What the slot page shows (the template and the script's JSON share it); the image URLs are
    per slot and only answer while that slot is the current one."""
    def image(role: str) -> str:
        return url_for("worker.image", token=token, slot_id=screen.slot_public_id, role=role)

    return {
        "slot": screen.slot_public_id,
        "number": screen.number,
        "total": screen.total,
        "progress": f"{screen.number} / {screen.total}",
        "title": f"Item {screen.number} of {screen.total}",
        "statement": screen.statement,
        "question": screen.question,
        "reference_image": image("reference") if screen.show_reference else None,
        "candidate_image": image("candidate"),
    }


@bp.get("/a/<token>/")
def instructions(token: str):
    state = _state(token)
    if state.complete:
        return redirect(url_for("worker.done", token=token), 303)
    if state.next_position > 0 or state.current_shown_at is not None:
        return redirect(url_for("worker.slot", token=token), 303)
    campaign = get_session().get(Campaign, state.campaign_id)
    return render_template(
        "worker/instructions.html", campaign=campaign, total=state.total, start_url=url_for("worker.slot", token=token)
    )


@bp.get("/a/<token>/slot")
def slot(token: str):
    state = _state(token, serving=True)
    if state.screen is None:
        return redirect(url_for("worker.done", token=token), 303)
    return render_template(
        "worker/slot.html", screen=screen_view(token, state.screen), token=token,
        rating_url=url_for("worker.rate_and_next", token=token),
    )


def _rate(token: str) -> Rated:
    """Store the rating in the form; raises RatingRefused or WorkerPageError."""
    public_id, slot, score = _assignment_public_id(token), request.form.get("slot", ""), request.form.get("score")
    return once_more_if_disconnected(lambda: record_rating(get_engine(), public_id, slot, score))


@bp.post("/a/<token>/slot")
def rate(token: str):
    """The plain form post (no script): store, then 303 to the next slot."""
    try:
        _rate(token)
    except RatingRefused as refusal:
        raise WorkerPageError(
            refusal.message, refusal.status, title="Not saved", resume=url_for("worker.slot", token=token)
        ) from None
    return redirect(url_for("worker.slot", token=token), 303)


@bp.post("/a/<token>/rating")
def rate_and_next(token: str):
    """The page's script: store the rating and answer with the next screen as JSON, so that a
    rating costs one request. ``{"screen": …}``, ``{"done": url}``, or ``{"error": …, "resume": url}``."""
    try:
        rated = _rate(token)
    except (RatingRefused, WorkerPageError) as refusal:
        return {"error": refusal.message, "resume": url_for("worker.slot", token=token)}, refusal.status
    if rated.screen is None:
        return {"done": url_for("worker.done", token=token)}
    return {"screen": screen_view(token, rated.screen)}


@bp.get("/a/<token>/image/<slot_id>/<any(reference, candidate):role>")
def image(token: str, slot_id: str, role: str):
    public_id = _assignment_public_id(token)

    def find() -> str | None:
        with autocommit_connection() as connection:
            return current_image_key(connection, public_id, slot_id, role)  # type: ignore[arg-type]

    key = once_more_if_disconnected(find)
    if key is None:
        abort(404)
    try:
        png = services().storage.read(key)
    except KeyError:
        abort(404)
    # No ETag or Last-Modified: identical images (a REPEAT and its original) must not be recognisable.
    return Response(png, mimetype="image/png", headers={"Cache-Control": "private, no-store"})


@bp.get("/a/<token>/done")
def done(token: str):
    state = _state(token)
    session = get_session()
    if not state.complete:
        return redirect(url_for("worker.slot", token=token), 303)
    if state.status == AssignmentStatus.abandoned:  # past the time limit, or returned to the provider
        raise WorkerPageError(TIMED_OUT, 410, title="Time is up")
    assignment = session.get(Assignment, state.id)
    campaign = session.get(Campaign, state.campaign_id)
    source = services().sources[assignment.source]
    receipt = services().tokens.receipt(assignment.public_id, assignment.next_position)
    try:
        completion = source.completion(assignment, campaign, receipt)
    except ArrivalRefused as refusal:
        raise WorkerPageError(refusal.message, refusal.status) from None
    if completion.kind == "redirect":
        return redirect(completion.url, 302)
    if completion.kind == "post":
        g.csp_form_targets = [origin_of(completion.url)]
    return render_template("worker/done.html", completion=completion, ratings=assignment.next_position)
