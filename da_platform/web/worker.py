"""The worker blueprint: arrival from each source, instructions, one slot per screen, completion.

URL scheme (everything after arrival carries a signed assignment token ``<t>``, never a cookie)::

    GET  /pool/<invite token>                      own pool (links from ``da-platform invite``)
    GET  /mturk?assignmentId=…&hitId=…&workerId=…&turkSubmitTo=…   MTurk ExternalQuestion
    GET  /prolific/<campaign token>?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…
    GET  /a/<t>/                                   instructions
    GET  /a/<t>/slot                               the current slot (a reload resumes here)
    POST /a/<t>/slot   slot=<slot public id>&score=<0..100>[&behaviour=<record>]   -> 303 to the next slot
    POST /a/<t>/rating slot=…&score=…&behaviour=…  -> JSON with the next screen (the page's script)
    GET  /a/<t>/image/<slot public id>/<reference|candidate>  PNG of the current slot only
    GET  /a/<t>/done                               completion (page, MTurk POST, or Prolific redirect)
    GET  /a/<t>/example/<reference|good|bad>       images of the instructions' example
    GET  /a/<t>/practice/<n>  (POST: next)         practice items before the HIT (nothing stored)
    GET  /a/<t>/practice/<n>/<reference|candidate> their images
"""
from __future__ import annotations

from typing import Literal

from flask import Blueprint, abort, current_app, g, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError
from werkzeug.exceptions import HTTPException

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit
from da_platform.db.rows import get_row
from da_platform.db.states import WorkerSource
from da_platform.images.variation import vary
from da_platform.providers.arrival import ArrivalRefused
from da_platform.providers.tokens import TokenError
from da_platform.rating.flow import (
    BLOCKED,
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
from da_platform.sources.arrival import take_assignment_id
from da_platform.web.database import autocommit_connection, get_engine, get_session, once_more_if_disconnected
from da_platform.web.i18n import current_language
from da_platform.web.security import origin_of
from da_platform.web.services import png_response, services, stored_png
from da_platform.web.worker_page import (
    assignment_campaign_page,
    assignment_page,
    campaign_page,
    instructions_view,
    page_settings,
    slot_context,
    use_page,
)
from hit_builder.worker_settings import WorkerPage

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


@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def _not_here(error: HTTPException):
    """A URL that answers nothing (a practice item or image that does not exist, a broken link, a wrong
    method): outside the dashboard, a worker's page in the campaign's language once known, else the
    browser's, instead of the framework's English one."""
    if request.path.startswith(("/admin", "/static")):
        return error
    return _worker_page_error(WorkerPageError("This page does not exist.", error.code or 404))


# Arrival -------------------------------------------------------------------------------------------


@bp.get("/pool/<token>")
def arrive_pool(token: str):
    return _arrive(WorkerSource.pool, token)


@bp.get("/mturk")
def arrive_mturk():
    return _arrive(WorkerSource.mturk, None)


@bp.get("/prolific/<token>")
def arrive_prolific(token: str):
    return _arrive(WorkerSource.prolific, token)


def _arrive(source_name: WorkerSource, path_token: str | None):
    session = get_session()
    source = services().sources[source_name]
    arrival = None
    try:
        arrival = source.arrival(session, request.args, path_token)
        if arrival.preview:  # MTurk preview: read-only
            campaign = get_row(session, Campaign, arrival.campaign_id)
            total = get_row(session, Hit, arrival.hit_id).slot_count
            settings = CampaignSettings.of(campaign)
            use_page(page_settings(settings))
            return render_template("worker/instructions.html", campaign=campaign, total=total, start_url=None,
                                   page=instructions_view(settings, None))
        public_id = take_assignment_id(session.connection(), arrival)
        session.commit()
    except ArrivalRefused as refusal:
        session.rollback()
        campaign_id = refusal.campaign_id if arrival is None else arrival.campaign_id
        if campaign_id is not None:  # the refusal in the campaign's language
            use_page(campaign_page(campaign_id))
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
        if error.public_id is not None:  # expired: say so in its campaign's language
            use_page(assignment_page(error.public_id))
        raise WorkerPageError("This link has expired." if error.expired else "This link is not valid.", 403) from None


def _state(token: str, serving: bool = False) -> AssignmentState:
    """The assignment named by the token, with its current screen (one autocommitted query).

    ``serving``: the current slot is being shown now; the first time, that moment is recorded.
    """
    public_id = _assignment_public_id(token)

    def load() -> AssignmentState | None:
        now = services().clock(token)
        with autocommit_connection() as connection:
            state = load_state(connection, public_id, now)
            if serving and state is not None and state.screen is not None and state.current_shown_at is None:
                mark_shown(connection, state, now)
            return state

    state = once_more_if_disconnected(load)
    if state is None:
        raise WorkerPageError("This task does not exist.", 404)
    use_page(assignment_campaign_page(public_id, state.campaign_id))
    if state.blocked and not state.complete:
        raise WorkerPageError(BLOCKED, 403)
    if state.overdue:
        raise WorkerPageError(TIMED_OUT, 410, title="Time is up")
    return state


def screen_view(token: str, screen: Screen) -> dict:
    """What the slot page shows (the template and the script's JSON share it); the image URLs are
    per slot and only answer while that slot is the current one."""
    def image(role: str) -> str:
        return url_for("worker.image", token=token, slot_id=screen.slot_public_id, role=role)

    language, page = current_language(), g.get("worker_page")
    return {
        "slot": screen.slot_public_id,
        "number": screen.number,
        "total": screen.total,
        "progress": f"{screen.number} / {screen.total}",
        "title": language.text("Item %(number)s of %(total)s", number=screen.number, total=screen.total),
        "statement": language.text(screen.statement),
        "question": screen.question,
        "reference_image": image("reference") if screen.show_reference else None,
        "candidate_image": image("candidate"),
        "caption": language.text("Answer B" if screen.show_reference else "Answer"),
        "context": slot_context(screen.slot_public_id) if page is not None and page.show_context else None,
    }


@bp.get("/a/<token>/")
def instructions(token: str):
    state = _state(token)
    if state.complete:
        return redirect(url_for("worker.done", token=token), 303)
    if state.next_position > 0 or state.current_shown_at is not None:
        return redirect(url_for("worker.slot", token=token), 303)
    campaign = get_row(get_session(), Campaign, state.campaign_id)
    return render_template(
        "worker/instructions.html", campaign=campaign, total=state.total, start_url=url_for("worker.slot", token=token),
        page=instructions_view(CampaignSettings.of(campaign), token),
    )


def _worker_page(state: AssignmentState) -> WorkerPage:
    return CampaignSettings.of(get_row(get_session(), Campaign, state.campaign_id)).worker


@bp.route("/a/<token>/practice/<int:number>", methods=["GET", "POST"])
def practice(token: str, number: int):
    """A practice item made from the campaign's example: rated like a real one, and nothing is stored.
    Only before the first real item is shown; a POST goes on to the next practice item, then back to
    the instructions."""
    state = _state(token)
    items = _worker_page(state).practice
    if state.complete or state.next_position > 0 or state.current_shown_at is not None or not items:
        return redirect(url_for("worker.slot", token=token), 303)
    if not 1 <= number <= len(items):
        abort(404)
    if request.method == "POST":
        if number < len(items):
            return redirect(url_for("worker.practice", token=token, number=number + 1), 303)
        return redirect(url_for("worker.instructions", token=token), 303)
    item, language = items[number - 1], current_language()
    campaign = get_row(get_session(), Campaign, state.campaign_id)

    def image(role: str) -> str:
        return url_for("worker.practice_image", token=token, number=number, role=role)

    screen = {
        "slot": f"practice-{number}", "number": number, "total": len(items),
        "progress": f"{number} / {len(items)}",
        "title": language.text("Practice item %(number)s of %(total)s", number=number, total=len(items)),
        "statement": language.text(campaign.statement), "question": item.question,
        "reference_image": image("reference") if item.reference_image else None,
        "candidate_image": image("candidate"),
        "caption": language.text("Answer B" if item.reference_image else "Answer"), "context": None,
    }
    return render_template("worker/slot.html", screen=screen, token=token, rating_url=None, practice=True,
                           form_action=url_for("worker.practice", token=token, number=number),
                           image_scale=g.worker_page.image_scale, image_width=g.worker_page.image_width,
                           show_context=False)


@bp.get("/a/<token>/practice/<int:number>/<any(reference, candidate):role>")
def practice_image(token: str, number: int, role: str):
    items = _worker_page(_state(token)).practice
    if not 1 <= number <= len(items):
        abort(404)
    return png_response(stored_png(items[number - 1].image(role)))


@bp.get("/a/<token>/example/<any(reference, good, bad):which>")
def example_image(token: str, which: str):
    example = _worker_page(_state(token)).example
    images = example.images if example is not None else None
    return png_response(stored_png(images.image(which) if images is not None else None))


@bp.get("/a/<token>/slot")
def slot(token: str):
    state = _state(token, serving=True)
    if state.screen is None:
        return redirect(url_for("worker.done", token=token), 303)
    page = g.worker_page
    return render_template(
        "worker/slot.html", screen=screen_view(token, state.screen), token=token,
        rating_url=url_for("worker.rate_and_next", token=token),
        image_scale=page.image_scale, image_width=page.image_width, show_context=page.show_context,
    )


def _use_assignment_page(token: str) -> None:
    """This assignment's page settings (language, ...) for the response; nothing if the token is bad."""
    try:
        use_page(assignment_page(_assignment_public_id(token)))
    except WorkerPageError:
        pass


def _rate(token: str) -> Rated:
    """Store the rating in the form; raises RatingRefused or WorkerPageError."""
    public_id, slot, score = _assignment_public_id(token), request.form.get("slot", ""), request.form.get("score")
    behaviour = request.form.get("behaviour")  # the page's behaviour record (da_platform.rating.behaviour)
    return once_more_if_disconnected(lambda: record_rating(get_engine(), public_id, slot, score,
                                                           now=services().clock(token), behaviour=behaviour))


@bp.post("/a/<token>/slot")
def rate(token: str):
    """The plain form post (no script): store, then 303 to the next slot."""
    _use_assignment_page(token)
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
    _use_assignment_page(token)
    try:
        rated = _rate(token)
    except (RatingRefused, WorkerPageError) as refusal:
        message = current_language().text(refusal.message)
        return {"error": message, "resume": url_for("worker.slot", token=token)}, refusal.status
    if rated.screen is None:
        return {"done": url_for("worker.done", token=token)}
    return {"screen": screen_view(token, rated.screen)}


@bp.get("/a/<token>/image/<slot_id>/<any(reference, candidate):role>")
def image(token: str, slot_id: str, role: Literal["reference", "candidate"]):  # the route's any() converter
    public_id = _assignment_public_id(token)

    def find() -> str | None:
        with autocommit_connection() as connection:
            return current_image_key(connection, public_id, slot_id, role)

    png = stored_png(once_more_if_disconnected(find))
    # Per-slot bytes: a REPEAT is not its original's.
    return png_response(vary(png, slot_id, role, current_app.config["SECRET_KEY"]))


@bp.get("/a/<token>/done")
def done(token: str):
    state = _state(token)
    session = get_session()
    if not state.complete:
        return redirect(url_for("worker.slot", token=token), 303)
    if state.status == AssignmentStatus.abandoned:  # past the time limit, or returned to the provider
        raise WorkerPageError(TIMED_OUT, 410, title="Time is up")
    if state.next_position < state.total:  # closed (rejected, approved, submitted) before every item was rated
        raise WorkerPageError("This task was closed before all its items were rated, so it cannot be completed.",
                              409, title="Not finished")
    assignment = get_row(session, Assignment, state.id)
    campaign = get_row(session, Campaign, state.campaign_id)
    source = services().sources[assignment.source]
    receipt = services().tokens.receipt(assignment.public_id, assignment.next_position)
    try:
        completion = source.completion(assignment, campaign, receipt)
    except ArrivalRefused as refusal:
        raise WorkerPageError(refusal.message, refusal.status) from None
    if completion.kind in ("redirect", "post"):
        assert completion.url is not None  # a redirect and a POST always have their target (providers.arrival)
        if completion.kind == "redirect":
            return redirect(completion.url, 302)
        g.csp_form_targets = [origin_of(completion.url)]
    return render_template("worker/done.html", completion=completion, ratings=assignment.next_position)
