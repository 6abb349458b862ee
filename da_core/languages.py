"""Worker-page languages: which ship with the platform, tag checks and text direction (no Flask)."""
from __future__ import annotations

import re
from collections.abc import Iterable

from da_core.errors import BuildError

#: Languages whose worker-page catalogue ships with the platform (English is the message ids).
SHIPPED_LANGUAGES = ("en", "zh-Hans")

DEFAULT_LANG = "en"
RTL_LANGUAGES = frozenset({"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ku", "ps", "sd", "syr", "ug", "ur", "yi"})
_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")


class CatalogueError(BuildError):
    """A message catalogue that cannot be used (unreadable, incomplete, unknown placeholder)."""


def check_lang(lang: str) -> str:
    """A well-formed BCP 47 tag (``en``, ``zh-Hans``, ``pt-BR``), or a clear error."""
    if not isinstance(lang, str) or not _TAG.match(lang.strip()):
        raise CatalogueError(f"--lang {lang!r} is not a language tag such as en, zh-Hans or pt-BR")
    return lang.strip()


def text_direction(lang: str) -> str:
    """``rtl`` for right-to-left languages, else ``ltr``."""
    return "rtl" if lang.split("-")[0].lower() in RTL_LANGUAGES else "ltr"


def shipped(lang: str) -> bool:
    """True for a language whose catalogue ships with the platform (no ``--messages`` needed)."""
    return lang in SHIPPED_LANGUAGES


def negotiate(accepted: Iterable[str]) -> str:
    """The shipped language for a browser's languages (``Accept-Language``, best first), for worker pages
    that belong to no known campaign (a broken link, the landing page): the same tag, else the first
    shipped language of the same primary language (``zh-CN``, ``zh-TW`` -> ``zh-Hans``), else English."""
    exact = {tag.lower(): tag for tag in SHIPPED_LANGUAGES}
    primary: dict[str, str] = {}
    for tag in SHIPPED_LANGUAGES:
        primary.setdefault(tag.split("-")[0].lower(), tag)
    for tag in accepted:
        tag = tag.strip().lower()
        if tag in exact:
            return exact[tag]
        if tag.split("-")[0] in primary:
            return primary[tag.split("-")[0]]
    return DEFAULT_LANG
