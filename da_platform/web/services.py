"""What the worker pages use, built once per app: token signer, image storage, worker sources, clock."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask, Response, abort, current_app

from da_platform.db.states import WorkerSource
from da_platform.providers.arrival import ArrivalSource
from da_platform.providers.registry import SOURCES
from da_platform.providers.tokens import Tokens

if TYPE_CHECKING:
    from da_platform.rating.clock import AssignmentClock
    from hit_builder.storage import ImageStorage


@dataclass(frozen=True)
class Services:
    tokens: Tokens
    storage: ImageStorage
    sources: dict[WorkerSource, ArrivalSource]
    clock: AssignmentClock  # the server's time for an assignment (da_platform.rating.clock)


def init_services(app: Flask, clock: AssignmentClock) -> None:
    from da_platform.images.store import open_image_storage

    tokens = Tokens(app.config["SECRET_KEY"], assignment_max_age=int(app.config["ASSIGNMENT_TOKEN_MAX_AGE"]))
    app.extensions["da_platform"] = Services(
        tokens=tokens,
        storage=app.config.get("IMAGE_STORAGE")
        or open_image_storage(app.extensions["da_settings"], engine=app.extensions["da_autocommit_engine"]),
        sources={name: source.arrivals(tokens, app.config) for name, source in SOURCES.items()},
        clock=clock,
    )


def services() -> Services:
    return current_app.extensions["da_platform"]


def stored_png(key: str | None) -> bytes:
    """The image stored under ``key``; 404 when there is no key or nothing is stored under it (503 when the
    store cannot be reached: :class:`StoreUnavailable` goes to its error handler)."""
    if not key:
        abort(404)
    try:
        return services().storage.read(key)
    except KeyError:
        abort(404)


def png_response(png: bytes) -> Response:
    """An answer image: never cached by anything shared, and no ETag or Last-Modified, so that identical
    images (a REPEAT and its original) are not recognisable by their headers."""
    return Response(png, mimetype="image/png", headers={"Cache-Control": "private, no-store"})
