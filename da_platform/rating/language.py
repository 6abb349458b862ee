"""The worker pages in the campaign's language: message catalogues, ``lang`` and text direction.

Every string of the worker pages is an English message id (``_("Next")`` in the templates, data
attributes for the page's script). A campaign names its language in its worker pages' settings
(``CampaignSettings.worker.lang``, a BCP 47 tag; ``build --lang``):

* ``en`` and ``zh-Hans`` are shipped complete (``da_platform/rating/translations/zh-Hans.po``; English
  is the message ids themselves);
* any other language needs a catalogue from the researcher (``build --messages FILE.po``, made from
  ``da_platform/rating/translations/worker.pot``); it is checked at build time (every message translated,
  each translation formatted with its message's placeholders as the pages format it) and stored with
  the campaign, so a running campaign needs no files.

A page of no known campaign (a broken link, the landing page) is in the shipped language the
browser asks for (``Accept-Language``), else English.

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
from hit_builder.worker_settings import WorkerPage

TRANSLATIONS = Path(__file__).resolve().parent / "translations"


TEMPLATE = TRANSLATIONS / "worker.pot"


SHIPPED = {lang: None if lang == DEFAULT_LANG else TRANSLATIONS / f"{lang}.po" for lang in SHIPPED_LANGUAGES}


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


# Any printf-style conversion Python's ``%`` operator would read: ``%%``, ``%(name)s``, ``%s``, ``%(x)*d``, ``% d``...
_CONVERSION = re.compile(r"%(?:\((?P<name>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<type>[A-Za-z%]?)")


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

    Every message must be translated, and each translation must format as the pages format it: with
    exactly its message's placeholders (``%(name)s``, each kept), a literal % written ``%%``. Errors
    name the file, the line and the message.
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
        problem = placeholder_problem(msgid, msgstr)
        if problem:
            raise CatalogueError(f"{path}, line {line}: the translation of {msgid!r} {problem}")
        messages[msgid] = msgstr
    if missing:
        shown = "; ".join(repr(m) for m in missing[:5])
        raise CatalogueError(f"{path}: {len(missing)} message(s) of the worker pages have no translation "
                             f"(start from {TEMPLATE.name}): {shown}{' ...' if len(missing) > 5 else ''}")
    return messages


def placeholder_problem(msgid: str, msgstr: str) -> str | None:
    """Why the pages could not show ``msgstr`` as the translation of ``msgid`` (None: they can).

    The pages fill a message's placeholders by Python's ``%`` (Jinja's ``_()`` formats every
    message, also one without placeholders), so a translation may use only ``%(name)s`` of its
    message, each of them, and ``%%``. Then it is formatted both ways the pages do, as the last word.
    """
    names = set(_PLACEHOLDER.findall(msgid))
    allowed = ", ".join(f"%({n})s" for n in sorted(names)) or "no placeholder"
    used = set()
    for match in _CONVERSION.finditer(msgstr):
        conversion, name = match.group(), match.group("name")
        if conversion == "%%":
            continue
        if name is not None and name not in names and _PLACEHOLDER.fullmatch(conversion):
            return f"uses {conversion}, which the message does not have (it has {allowed})"
        if name is None or conversion != f"%({name})s":
            return (f"uses {conversion!r}, which the pages cannot fill: use the message's placeholders as they are "
                    f"({allowed}) and write a literal % as %%")
        used.add(name)
    if names - used:
        return f"leaves out {', '.join(f'%({n})s' for n in sorted(names - used))}: keep every placeholder"
    sample = {name: f"<{name}>" for name in names}
    language = WorkerLanguage("xx", {msgid: msgstr})
    try:
        language.gettext(msgid) % sample  # as a template's _() does
        language.text(msgid, **sample)  # as a page's script gets it
    except (KeyError, TypeError, ValueError) as error:
        return f"cannot be formatted with the message's placeholders ({type(error).__name__}: {error})"
    return None


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


def worker_language(page: WorkerPage) -> WorkerLanguage:
    """The language of a campaign's worker pages (``CampaignSettings.worker``)."""
    if page.lang in SHIPPED:
        return WorkerLanguage(page.lang, _shipped_messages(page.lang))
    return WorkerLanguage(page.lang, dict(page.messages or {}))
