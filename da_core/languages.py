"""Worker-page languages: which ship with the platform, tag checks and text direction (no Flask)."""
from __future__ import annotations

import re

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
