"""The worker pages in the campaign's language: message catalogues, ``lang`` and text direction.

Every string of the worker pages is an English message id (``_("Next")`` in the templates, data
attributes for the page's script). A campaign names its language in
``Campaign.settings["worker"]["lang"]`` (a BCP 47 tag; ``build --lang``):

* ``en`` and ``zh-Hans`` are shipped complete (``da_platform/rating/translations/zh-Hans.po``; English
  is the message ids themselves);
* any other language needs a catalogue from the researcher (``build --messages FILE.po``, made from
  ``da_platform/rating/translations/worker.pot``); it is checked at build time (every message translated,
  no unknown placeholder) and stored with the campaign, so a running campaign needs no files.

Catalogues are read with Babel's PO reader at run time (no compiled ``.mo`` files to keep in step).
Translations are text, never markup: every translation is HTML-escaped before a template sees it,
so a researcher's catalogue cannot inject HTML. Arabic, Hebrew, Persian, Urdu, ... pages get
``dir="rtl"``.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

from da_core.languages import DEFAULT_LANG, SHIPPED_LANGUAGES, CatalogueError, text_direction

TRANSLATIONS = Path(__file__).resolve().parent / "translations"


TEMPLATE = TRANSLATIONS / "worker.pot"


SHIPPED = {lang: None if lang == DEFAULT_LANG else TRANSLATIONS / f"{lang}.po" for lang in SHIPPED_LANGUAGES}


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _read_po(path: Path) -> list[tuple[str, str, int]]:
    """``(msgid, msgstr, line)`` of every message of a PO file (Babel's reader)."""
    from babel.messages.pofile import PoFileError, read_po

    try:
        with open(path, "rb") as handle:
            catalogue = read_po(handle, abort_invalid=True)
    except OSError as error:
        raise CatalogueError(f"{path}: cannot read the catalogue ({error.strerror})") from None
    except (PoFileError, UnicodeDecodeError, ValueError) as error:
        raise CatalogueError(f"{path}: not a readable PO catalogue: {error}") from None
    out = []
    for message in catalogue:
        if not message.id or message.pluralizable:
            continue
        line = message.lineno or 0
        out.append((str(message.id), str(message.string or ""), line))
    return out


@functools.cache
def message_ids() -> tuple[str, ...]:
    """Every message of the worker pages (the template catalogue ``worker.pot``)."""
    return tuple(msgid for msgid, _, _ in _read_po(TEMPLATE))


def load_catalogue(path: str | Path) -> dict[str, str]:
    """A researcher's PO catalogue, checked against the worker pages' messages.

    Every message must be translated, and a translation may only use the placeholders
    (``%(name)s``) of its message; errors name the file, the line and the message.
    """
    path = Path(path)
    found = {msgid: (msgstr, line) for msgid, msgstr, line in _read_po(path)}
    messages = {}
    missing = []
    for msgid in message_ids():
        if msgid not in found or not found[msgid][0].strip():
            missing.append(msgid)
            continue
        msgstr, line = found[msgid]
        unknown = set(_PLACEHOLDER.findall(msgstr)) - set(_PLACEHOLDER.findall(msgid))
        if unknown:
            raise CatalogueError(f"{path}, line {line}: the translation of {msgid!r} uses "
                                 f"{', '.join('%(' + u + ')s' for u in sorted(unknown))}, which the message "
                                 "does not have")
        if msgstr.count("%") - 2 * msgstr.count("%%") != msgid.count("%") - 2 * msgid.count("%%"):
            raise CatalogueError(f"{path}, line {line}: the translation of {msgid!r} must keep its "
                                 "placeholders and write a literal % as %%")
        messages[msgid] = msgstr
    if missing:
        shown = "; ".join(repr(m) for m in missing[:5])
        raise CatalogueError(f"{path}: {len(missing)} message(s) of the worker pages have no translation "
                             f"(start from {TEMPLATE.name}): {shown}{' ...' if len(missing) > 5 else ''}")
    return messages


@functools.cache
def _shipped_messages(lang: str) -> Mapping[str, str]:
    path = SHIPPED[lang]
    return {} if path is None else {m: s for m, s, _ in _read_po(path) if s}


@dataclass(frozen=True)
class WorkerLanguage:
    """The language of one campaign's worker pages: its tag, direction and translations."""

    lang: str
    messages: Mapping[str, str]

    @property
    def dir(self) -> str:
        return text_direction(self.lang)

    def text(self, message: str, **values: object) -> str:
        """The translation as plain text (for JSON), with ``%(name)s`` placeholders filled when given."""
        translated = self.messages.get(message) or message
        return translated % values if values else translated

    def gettext(self, message: str) -> Markup:
        """The translation (escaped text, as markup for the templates), else the English message."""
        return Markup(escape(self.messages.get(message) or message))


def worker_language(settings: Mapping | None) -> WorkerLanguage:
    """The language of a campaign's worker pages from ``Campaign.settings``."""
    worker = (settings or {}).get("worker") or {}
    lang = worker.get("lang") or DEFAULT_LANG
    if lang in SHIPPED:
        return WorkerLanguage(lang, _shipped_messages(lang))
    return WorkerLanguage(lang, dict(worker.get("messages") or {}))


ENGLISH = WorkerLanguage(DEFAULT_LANG, {})
