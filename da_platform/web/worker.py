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

from collections.abc import Callable
from typing import Literal

from flask import Blueprint, abort, current_app, g, redirect, render_template, request, url_for
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Assignment, AssignmentStatus, Campaign, Hit
from da_platform.db.rows import get_row
from da_platform.db.states import WorkerSource
from da_platform.images.variation import vary
from da_platform.providers.arrival import ArrivalRefused, CompletionKind
from da_platform.rating.flow import (
    BLOCKED,
    TIMED_OUT,
    AssignmentState,
    Rated,
    RatingRefused,
    Screen,
    load_state,
    mark_shown,
    record_rating,
    serve_current_image,
)
from da_platform.sources.arrival import take_assignment_id
from da_platform.web.assignment_request import (
    AssignmentTokenRefused,
    assignment_request,
    read_assignment_request,
)
from da_platform.web.database import once_more_if_disconnected, request_connection
from da_platform.web.i18n import current_language
from da_platform.web.security import origin_of
from da_platform.web.services import png_response, services, stored_png
from da_platform.web.worker_page import (
    assignment_campaign_page,
    assignment_page,
    campaign_page,
    instructions_view,
    page_settings,
    read_campaign,
    slot_context,
    use_page,
)
from hit_builder.worker_settings import WorkerPage

bp = Blueprint("worker", __name__)


@bp.record_once
def _compile_templates(state) -> None:
    """The worker pages' templates compiled with the app, not in each server process's first requests."""
    for name in ("worker/instructions.html", "worker/slot.html", "worker/message.html", "worker/done.html"):
        state.app.jinja_env.get_template(name)


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


@bp.url_value_preprocessor
def _read_assignment_token(_endpoint: str | None, values: dict | None) -> None:
    """The blueprint's edge: the assignment token of a page after arrival (``/a/<token>/…``) is decoded here,
    once per request, into :func:`assignment_request` (the arrival pages' tokens are invites and campaigns)."""
    rule = request.url_rule
    if values is not None and "token" in values and rule is not None and rule.rule.startswith("/a/"):
        read_assignment_request(values["token"])


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
    connection = request_connection()
    source = services().sources[source_name]
    arrival = None
    try:
        with Session(bind=connection) as session:  # (the sources read ORM rows)
            arrival = source.arrival(session, request.args, path_token)
        if arrival.preview:  # MTurk preview: read-only
            campaign = read_campaign(connection, arrival.campaign_id)
            total = connection.execute(select(Hit.slot_count).where(Hit.id == arrival.hit_id)).scalar_one()
            settings = CampaignSettings.from_json(campaign.settings)
            use_page(page_settings(settings))
            return render_template("worker/instructions.html", campaign=campaign, total=total, start_url=None,
                                   page=instructions_view(settings, None))
        public_id = take_assignment_id(connection, arrival)
        connection.commit()
    except ArrivalRefused as refusal:
        connection.rollback()
        campaign_id = refusal.campaign_id if arrival is None else arrival.campaign_id
        if campaign_id is not None:  # the refusal in the campaign's language
            use_page(campaign_page(campaign_id))
        raise WorkerPageError(refusal.message, refusal.status) from None
    except IntegrityError:  # a concurrent duplicate of this very arrival won the race
        connection.rollback()
        raise WorkerPageError("Your task is being prepared: please reload this page.", 409) from None
    return redirect(url_for("worker.instructions", token=services().tokens.assignment(public_id)), 303)


# The assignment ----------------------------------------------------------------------------------------


def _public_id() -> str:
    """The request's assignment; a bad or expired token is a 403 page (an expired one's in its campaign's
    language)."""
    try:
        return assignment_request().public_id
    except AssignmentTokenRefused as refused:
        if refused.public_id is not None:
            use_page(assignment_page(refused.public_id))
        raise WorkerPageError(str(refused), 403) from None


def _state(serving: bool = False) -> AssignmentState:
    """The request's assignment with its current screen (one autocommitted query).

    ``serving``: the current slot is being shown now; the first time, that moment is recorded.
    """
    public_id, now = _public_id(), assignment_request().now

    def load() -> AssignmentState | None:
        connection = request_connection()
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


def screen_view(*, slot: str, number: int, total: int, title: str, statement: str, question: str,
                image: Callable[[str], str], shows_reference: bool, context: str | None) -> dict:
    """What a slot page shows, a real item's or a practice item's: the one shape the template and the page's
    script read. ``title`` is a message with ``number`` and ``total`` placeholders; ``image(role)`` the URL of
    an image (``reference`` asked only when ``shows_reference``)."""
    language = current_language()
    return {
        "slot": slot,
        "number": number,
        "total": total,
        "progress": f"{number} / {total}",
        "title": language.text(title, number=number, total=total),
        "statement": language.text(statement),
        "question": question,
        "reference_image": image("reference") if shows_reference else None,
        "candidate_image": image("candidate"),
        "caption": language.text("Answer B" if shows_reference else "Answer"),
        "context": context,
    }


def _slot_view(screen: Screen) -> dict:
    """:func:`screen_view` of the assignment's current slot; its image URLs answer only while it is current."""
    page = g.get("worker_page")
    # The two images' URLs differ in their last segment, the role (one URL built instead of two).
    candidate = url_for("worker.image", token=assignment_request().token, slot_id=screen.slot_public_id,
                        role="candidate")

    def image(role: str) -> str:
        return candidate if role == "candidate" else candidate.removesuffix("candidate") + role

    return screen_view(
        slot=screen.slot_public_id, number=screen.number, total=screen.total, title="Item %(number)s of %(total)s",
        statement=screen.statement, question=screen.question, image=image, shows_reference=screen.show_reference,
        context=slot_context(screen.slot_public_id) if page is not None and page.show_context else None,
    )


@bp.get("/a/<token>/")
def instructions(token: str):
    state = _state()
    if state.complete:
        return redirect(url_for("worker.done", token=token), 303)
    if state.next_position > 0 or state.current_shown_at is not None:
        return redirect(url_for("worker.slot", token=token), 303)
    campaign = read_campaign(request_connection(), state.campaign_id)
    return render_template(
        "worker/instructions.html", campaign=campaign, total=state.total, start_url=url_for("worker.slot", token=token),
        page=instructions_view(CampaignSettings.from_json(campaign.settings), token),
    )


def _worker_page(state: AssignmentState) -> WorkerPage:
    return CampaignSettings.from_json(read_campaign(request_connection(), state.campaign_id).settings).worker


@bp.route("/a/<token>/practice/<int:number>", methods=["GET", "POST"])
def practice(token: str, number: int):
    """A practice item made from the campaign's example: rated like a real one, and nothing is stored.
    Only before the first real item is shown; a POST goes on to the next practice item, then back to
    the instructions."""
    state = _state()
    campaign = read_campaign(request_connection(), state.campaign_id)
    items = CampaignSettings.from_json(campaign.settings).worker.practice
    if state.complete or state.next_position > 0 or state.current_shown_at is not None or not items:
        return redirect(url_for("worker.slot", token=token), 303)
    if not 1 <= number <= len(items):
        abort(404)
    if request.method == "POST":
        if number < len(items):
            return redirect(url_for("worker.practice", token=token, number=number + 1), 303)
        return redirect(url_for("worker.instructions", token=token), 303)
    item = items[number - 1]

    def image(role: str) -> str:
        return url_for("worker.practice_image", token=token, number=number, role=role)

    screen = screen_view(
        slot=f"practice-{number}", number=number, total=len(items), title="Practice item %(number)s of %(total)s",
        statement=campaign.statement, question=item.question, image=image,
        shows_reference=bool(item.reference_image), context=None,
    )
    return render_template("worker/slot.html", screen=screen, token=token, rating_url=None, practice=True,
                           form_action=url_for("worker.practice", token=token, number=number),
                           image_scale=g.worker_page.image_scale, image_width=g.worker_page.image_width,
                           show_context=False)


@bp.get("/a/<token>/practice/<int:number>/<any(reference, candidate):role>")
def practice_image(token: str, number: int, role: str):
    items = _worker_page(_state()).practice
    if not 1 <= number <= len(items):
        abort(404)
    return png_response(stored_png(items[number - 1].image(role)))


@bp.get("/a/<token>/example/<any(reference, good, bad):which>")
def example_image(token: str, which: str):
    example = _worker_page(_state()).example
    images = example.images if example is not None else None
    return png_response(stored_png(images.image(which) if images is not None else None))


@bp.get("/a/<token>/slot")
def slot(token: str):
    state = _state(serving=True)
    if state.screen is None:
        return redirect(url_for("worker.done", token=token), 303)
    page = g.worker_page
    return render_template(
        "worker/slot.html", screen=_slot_view(state.screen), token=token,
        rating_url=url_for("worker.rate_and_next", token=token),
        image_scale=page.image_scale, image_width=page.image_width, show_context=page.show_context,
    )


def _use_assignment_page() -> None:
    """The page settings (language, ...) of the assignment the token names, also an expired one's, for the
    response; nothing if the token is not valid."""
    public_id = assignment_request().known_public_id
    if public_id is not None:
        use_page(assignment_page(public_id))


def _rate() -> Rated:
    """Store the rating in the form; raises RatingRefused or WorkerPageError."""
    public_id, slot, score = _public_id(), request.form.get("slot", ""), request.form.get("score")
    behaviour = request.form.get("behaviour")  # the page's behaviour record (da_platform.rating.behaviour_record)
    now = assignment_request().now
    return once_more_if_disconnected(lambda: record_rating(request_connection(), public_id, slot, score,
                                                           now=now, behaviour=behaviour))


@bp.post("/a/<token>/slot")
def rate(token: str):
    """The plain form post (no script): store, then 303 to the next slot."""
    _use_assignment_page()
    try:
        _rate()
    except RatingRefused as refusal:
        raise WorkerPageError(
            refusal.message, refusal.status, title="Not saved", resume=url_for("worker.slot", token=token)
        ) from None
    return redirect(url_for("worker.slot", token=token), 303)


@bp.post("/a/<token>/rating")
def rate_and_next(token: str):
    """The page's script: store the rating and answer with the next screen as JSON, so that a
    rating costs one request. ``{"screen": …}``, ``{"done": url}``, or ``{"error": …, "resume": url}``."""
    _use_assignment_page()
    try:
        rated = _rate()
    except (RatingRefused, WorkerPageError) as refusal:
        message = current_language().text(refusal.message)
        return {"error": message, "resume": url_for("worker.slot", token=token)}, refusal.status
    if rated.screen is None:
        return {"done": url_for("worker.done", token=token)}
    return {"screen": _slot_view(rated.screen)}


@bp.get("/a/<token>/image/<slot_id>/<any(reference, candidate):role>")
def image(token: str, slot_id: str, role: Literal["reference", "candidate"]):  # the route's any() converter
    public_id = _public_id()
    png = stored_png(once_more_if_disconnected(
        lambda: serve_current_image(request_connection(), public_id, slot_id, role)))
    # Per-slot bytes: a REPEAT is not its original's.
    return png_response(vary(png, slot_id, role, current_app.config["SECRET_KEY"]))


@bp.get("/a/<token>/done")
def done(token: str):
    state = _state()
    if not state.complete:
        return redirect(url_for("worker.slot", token=token), 303)
    if state.status == AssignmentStatus.abandoned:  # past the time limit, or returned to the provider
        raise WorkerPageError(TIMED_OUT, 410, title="Time is up")
    if state.next_position < state.total:  # closed (rejected, approved, submitted) before every item was rated
        raise WorkerPageError("This task was closed before all its items were rated, so it cannot be completed.",
                              409, title="Not finished")
    with Session(bind=request_connection()) as session:  # (the sources read ORM rows)
        assignment = get_row(session, Assignment, state.id)
        campaign = get_row(session, Campaign, state.campaign_id)
        source = services().sources[assignment.source]
        receipt = services().tokens.receipt(assignment.public_id, assignment.next_position)
        ratings = assignment.next_position
        try:
            completion = source.completion(assignment, campaign, receipt)
        except ArrivalRefused as refusal:
            raise WorkerPageError(refusal.message, refusal.status) from None
    if completion.kind in (CompletionKind.redirect, CompletionKind.post):
        assert completion.url is not None  # a redirect and a POST always have their target (providers.arrival)
        if completion.kind == CompletionKind.redirect:
            return redirect(completion.url, 302)
        g.csp_form_targets = [origin_of(completion.url)]
    return render_template("worker/done.html", completion=completion, ratings=ratings)
