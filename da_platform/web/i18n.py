"""Jinja's i18n for the worker pages: ``_()`` in the language of the campaign being shown
(the catalogues are :mod:`da_platform.rating.language`'s).
"""
from __future__ import annotations

from flask import Flask, g, has_request_context, request

from da_core.languages import DEFAULT_LANG, negotiate
from da_platform.rating.language import WorkerLanguage, worker_language
from hit_builder.worker_settings import WorkerPage


def current_language() -> WorkerLanguage:
    """The language of this request's worker page: its campaign's once known (``use_page``), else the
    shipped language the browser asks for (``Accept-Language``: a broken link, the landing page)."""
    language: WorkerLanguage | None = g.get("worker_language")
    if language is None:
        lang = DEFAULT_LANG
        if has_request_context():
            lang = negotiate(tag for tag, quality in request.accept_languages if quality > 0)
        language = g.worker_language = worker_language(WorkerPage(lang=lang))
    return language


def init_i18n(app: Flask) -> None:
    """Jinja's i18n extension, with ``_()`` resolved per request (``g.worker_language``)."""
    def gettext(message: str) -> str:
        return current_language().gettext(message)

    def ngettext(singular: str, plural: str, count: int) -> str:
        return gettext(singular if count == 1 else plural)

    app.jinja_env.add_extension("jinja2.ext.i18n")
    # install_gettext_callables is added by the jinja2.ext.i18n extension: Environment's type does not have it.
    app.jinja_env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    app.jinja_env.globals["worker_language"] = current_language
    app.jinja_env.globals["translate"] = lambda text: current_language().text(text)  # data: no formatting
