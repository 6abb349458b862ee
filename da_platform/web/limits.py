"""Request-size limits for every endpoint (worker pages and dashboard alike), with a clear 413.

No page of the platform takes an upload: a rating is two short fields plus a behaviour record of at
most 2 KiB, a dashboard form a few fields and a reason. So the whole body is capped at
``MAX_CONTENT_LENGTH`` (64 KiB), the parsed form at ``MAX_FORM_MEMORY_SIZE`` and its fields at
``MAX_FORM_PARTS`` (Werkzeug enforces them while reading, before anything is buffered beyond the
limit; it counts parts only in multipart bodies, so :class:`LimitedRequest` counts the fields of
URL-encoded forms too). The settings can be overridden in the app's configuration.
"""
from __future__ import annotations

import io
import typing as t

from flask import Flask, Request
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.formparser import FormDataParser

MAX_BODY_BYTES = 64 * 1024
MAX_FORM_FIELDS = 100

TOO_LARGE = "The request was too large and was refused; nothing was saved. Reload the page and try again."


def limit_config() -> dict[str, int]:
    """The Flask settings (``web_config`` puts them under the caller's overrides)."""
    return {"MAX_CONTENT_LENGTH": MAX_BODY_BYTES, "MAX_FORM_MEMORY_SIZE": MAX_BODY_BYTES,
            "MAX_FORM_PARTS": MAX_FORM_FIELDS}


class _FormParser(FormDataParser):
    def _parse_urlencoded(self, stream: t.IO[bytes], mimetype: str, content_length: int | None,
                          options: dict[str, str]):
        if self.max_form_memory_size is not None and content_length is not None \
                and content_length > self.max_form_memory_size:
            raise RequestEntityTooLarge()
        data = stream.read()  # at most MAX_CONTENT_LENGTH bytes: Werkzeug limits the stream
        if self.max_form_parts is not None and data.count(b"&") >= self.max_form_parts:
            raise RequestEntityTooLarge()
        return super()._parse_urlencoded(io.BytesIO(data), mimetype, len(data), options)


class LimitedRequest(Request):
    """Flask's request whose URL-encoded forms are held to ``MAX_FORM_PARTS`` fields as well."""

    form_data_parser_class = _FormParser


def init_limits(app: Flask) -> None:
    """The request class, and the 413 answer: a JSON error for the page's script, a page otherwise."""
    app.request_class = LimitedRequest
    app.register_error_handler(RequestEntityTooLarge, _too_large)


def _too_large(_error: RequestEntityTooLarge):
    """In the worker's language: the campaign's when the URL names an assignment, else the browser's."""
    from da_platform.web.refusals import refusal

    return refusal(TOO_LARGE, 413, "Request too large")
