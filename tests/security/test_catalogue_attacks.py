"""Attack suite, researchers' catalogues: a translation that would break every item page is refused at build.

The worker pages format each translation with its message's values (``Item %(number)s of %(total)s``);
a translation with another placeholder (``%(bogus)d``), positional ones (``%s``) or a ``*`` width
raised KeyError/TypeError on every ``GET /a/<t>/slot`` (a 500). ``build --messages`` now formats every
translation as the pages do and refuses the catalogue, naming the message and its line.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from da_platform.web.i18n import TEMPLATE, CatalogueError, load_catalogue

ITEM = "Item %(number)s of %(total)s"
BREAKING = {
    "unknown placeholder": "Élément %(number)s sur %(bogus)d",
    "positional placeholders": "Élément %s sur %s",
    "one positional placeholder": "Élément %s",
    "star width": "Élément %(number)s sur %(total)*d",
    "lone percent": "Élément %(number)s sur %(total)s à 100 %",
    "a placeholder left out": "Élément %(number)s",
    "a placeholder doubled for another": "Élément %(number)s sur %(number)s",
    "a conversion other than s": "Élément %(number)d sur %(total)s",
}


def catalogue(path: Path, item_translation: str) -> Path:
    """A complete French catalogue made from the template, with ``item_translation`` for ``ITEM``."""
    with open(TEMPLATE, "rb") as handle:
        template = read_po(handle)
    catalog = Catalog(locale="fr")
    for message in template:
        if message.id:
            catalog.add(message.id, item_translation if message.id == ITEM else "FR " + str(message.id))
    with open(path, "wb") as handle:
        write_po(handle, catalog)
    return path


@pytest.mark.parametrize("case", list(BREAKING))
def test_a_translation_the_pages_cannot_format_is_refused(tmp_path, case):
    path = catalogue(tmp_path / "fr.po", BREAKING[case])
    with pytest.raises(CatalogueError) as refused:
        load_catalogue(path)
    assert f"{path}, line " in str(refused.value) and repr(ITEM) in str(refused.value)


def test_a_translation_may_reorder_its_placeholders(tmp_path):
    messages = load_catalogue(catalogue(tmp_path / "fr.po", "%(total)s éléments, celui-ci est le %(number)s (100 %%)"))
    assert messages[ITEM] == "%(total)s éléments, celui-ci est le %(number)s (100 %%)"


@pytest.mark.parametrize("case", ["unknown placeholder", "positional placeholders", "star width"])
def test_build_with_a_breaking_catalogue_builds_nothing(run, tmp_path, case):
    """The three catalogues of the report: ``build --messages`` refuses them, naming the message."""
    path = catalogue(tmp_path / "fr.po", BREAKING[case])
    result = run("build", "--test-set", "none", "--name", "fr", "--lang", "fr", "--messages", str(path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{path}, line " in result.output and repr(ITEM) in result.output, result.output
    assert "nothing was built" in result.output
