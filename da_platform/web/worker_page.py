"""What a campaign's worker pages look like: language, context passage, image density, instructions.

All of it is the campaign's ``CampaignSettings.worker`` (written at build time, see
:mod:`hit_builder.worker_settings`); nothing here changes the rating flow. The few values every
rating's answer needs (language, whether the context is shown, the images' density) are fixed when
the campaign is built, so they are read once per campaign and process and kept on the app.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import current_app, g
from markupsafe import Markup
from sqlalchemy import Connection, Row, select

from da_platform.config.build_record import RenderRecord
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Assignment, Campaign, Hit, Question, Slot
from da_platform.providers.money import amount_string
from da_platform.rating.language import WorkerLanguage, worker_language
from da_platform.web.database import once_more_if_disconnected, request_connection
from hit_builder.worker_settings import Example

_CACHE_LIMIT = 10_000


@dataclass(frozen=True)
class PageSettings:
    """The fixed-at-build parts of a campaign's worker pages."""

    language: WorkerLanguage
    show_context: bool
    image_scale: int  # image pixels per CSS pixel (the srcset density)
    image_width: int | None  # CSS px an answer image is shown at (pixel width / image_scale); None: unknown


def page_settings(settings: CampaignSettings) -> PageSettings:
    """:class:`PageSettings` of a campaign (campaigns built before these settings: 1x, English)."""
    render = settings.render or RenderRecord({})
    return PageSettings(worker_language(settings.worker), settings.worker.show_context, render.scale,
                        render.css_width)


def _cache() -> dict:
    cache = current_app.extensions.setdefault("da_worker_pages", {})
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    return cache


def campaign_page(campaign_id: int) -> PageSettings | None:
    """The page settings of a campaign (read once per process); None if there is no such campaign."""
    cache = _cache()
    key = ("campaign", campaign_id)
    if key not in cache:
        row = once_more_if_disconnected(lambda: request_connection().execute(
            select(Campaign.settings).where(Campaign.id == campaign_id)).first())
        if row is None:
            return None
        cache[key] = page_settings(CampaignSettings.from_json(row.settings))
    return cache[key]


def assignment_page(assignment_public_id: str) -> PageSettings | None:
    """The page settings of the campaign of an assignment (None if there is no such assignment)."""
    cache = _cache()
    key = ("assignment", assignment_public_id)
    if key not in cache:
        campaign_id = once_more_if_disconnected(lambda: request_connection().execute(
            select(Hit.campaign_id).join(Assignment, Assignment.hit_id == Hit.id)
            .where(Assignment.public_id == assignment_public_id)).scalar())
        if campaign_id is None:
            return None
        cache[key] = campaign_id
    return campaign_page(cache[key])


def assignment_campaign_page(assignment_public_id: str, campaign_id: int) -> PageSettings | None:
    """:func:`campaign_page` of the assignment's campaign (known from its state), remembered as the assignment's
    (so that a page answering a database fault finds the language, :func:`cached_assignment_page`)."""
    _cache()[("assignment", assignment_public_id)] = campaign_id
    return campaign_page(campaign_id)


def cached_assignment_page(assignment_public_id: str) -> PageSettings | None:
    """:func:`assignment_page` if this process has read it before, else None: nothing is asked of the database
    (for a page answering a database fault)."""
    cache = _cache()
    campaign_id = cache.get(("assignment", assignment_public_id))
    return None if campaign_id is None else cache.get(("campaign", campaign_id))


def use_page(page: PageSettings | None) -> PageSettings | None:
    """Make ``page``'s language the one of this request's templates and messages."""
    if page is not None:
        g.worker_language = page.language
        g.worker_page = page
    return page


def slot_context(slot_public_id: str) -> str | None:
    """The context passage of the question of a slot (only asked when the campaign shows it)."""
    return once_more_if_disconnected(lambda: request_connection().execute(
        select(Question.context).join(Slot, Slot.question_id == Question.id)
        .where(Slot.public_id == slot_public_id)).scalar())


def read_campaign(connection: Connection, campaign_id: int) -> Row[Any]:
    """What the worker pages show of a campaign: ``statement``, ``show_reference`` and its ``settings`` (JSON)."""
    return connection.execute(select(Campaign.statement, Campaign.show_reference, Campaign.settings)
                              .where(Campaign.id == campaign_id)).one()


@dataclass(frozen=True)
class InstructionsView:
    """What the instructions page shows beyond the standard text."""

    instructions_html: Markup | None
    example: Example | None
    example_images: Mapping[str, str]
    image_scale: int
    image_width: int | None
    minutes: int | None
    pay: str | None
    contact: str | None
    practice_url: str | None


def markdown_html(text: str) -> Markup:
    """The researcher's Markdown as HTML: CommonMark with raw HTML and images disabled (escaped),
    links only to safe schemes (markdown-it-py's default link validation)."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False}).disable("image")
    return Markup(renderer.render(text))


def pay_line(settings: CampaignSettings) -> str | None:
    """The pay to show: the researcher's text, else the reward of the campaign's MTurk or Prolific settings."""
    if settings.worker.pay:
        return settings.worker.pay
    if settings.stored_mturk is not None:
        return f"{amount_string(settings.stored_mturk.reward)} USD"
    if settings.stored_prolific is not None:
        return f"{amount_string(settings.stored_prolific.reward)} {settings.stored_prolific.currency}".strip()
    return None


def minutes_line(settings: CampaignSettings) -> int | None:
    """The expected time: the researcher's, else the Prolific study's estimate."""
    if settings.worker.minutes:
        return settings.worker.minutes
    return settings.stored_prolific.estimated_minutes if settings.stored_prolific is not None else None


def instructions_view(settings: CampaignSettings, token: str | None) -> InstructionsView:
    """The campaign's own instructions, example, time, pay, contact and practice (URLs need a token)."""
    from flask import url_for

    worker, page = settings.worker, page_settings(settings)
    example = worker.example if token else None
    images = {}
    if example is not None and example.images is not None:
        images = {which: url_for("worker.example_image", token=token, which=which) for which in example.images.drawn()}
    return InstructionsView(
        instructions_html=markdown_html(worker.instructions) if worker.instructions else None,
        example=example, example_images=images, image_scale=page.image_scale, image_width=page.image_width,
        minutes=minutes_line(settings), pay=pay_line(settings), contact=worker.contact,
        practice_url=url_for("worker.practice", token=token, number=1) if worker.practice and token else None,
    )
