"""Collect the worker pages' messages into the catalogue template and update the translations.

    python scripts/extract_messages.py          # writes worker.pot, merges it into every *.po

Sources: ``_("...")`` in da_platform/templates/worker/*.html, base.html and landing.html (Jinja's Babel
extractor) and
``N_("...")`` in da_platform/web/worker_messages.py. Each ``.po`` keeps its translations; new messages
arrive untranslated (tests/test_worker_i18n.py then fails until they are translated).
"""
from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "da_platform" / "templates"
TRANSLATIONS = ROOT / "da_platform" / "web" / "translations"
SOURCES = [(path, "jinja2.ext:babel_extract", {"_": None}) for path in
           [TEMPLATES / "base.html", TEMPLATES / "landing.html", *sorted((TEMPLATES / "worker").glob("*.html"))]]
SOURCES.append((ROOT / "da_platform" / "web" / "worker_messages.py", "python", {"N_": None}))


def template() -> Catalog:
    catalog = Catalog(project="da-platform worker pages", version="1", fuzzy=False)
    for path, method, keywords in SOURCES:
        for line, message, _comments, _context in extract_from_file(method, str(path), keywords=keywords):
            catalog.add(message, locations=[(str(path.relative_to(ROOT)), line)],
                        flags=("python-format",) if "%(" in message or "%%" in message else ())
    return catalog


def main() -> None:
    pot = template()
    with open(TRANSLATIONS / "worker.pot", "wb") as handle:
        write_po(handle, pot, width=0, omit_header=False, sort_output=False)
    for po_path in sorted(TRANSLATIONS.glob("*.po")):
        with open(po_path, "rb") as handle:
            catalog = read_po(handle)
        catalog.update(pot, no_fuzzy_matching=True)
        catalog.fuzzy = False
        with open(po_path, "wb") as handle:
            write_po(handle, catalog, width=0, ignore_obsolete=True)
        print(f"updated {po_path.relative_to(ROOT)}")
    print(f"wrote {len(pot)} messages to {(TRANSLATIONS / 'worker.pot').relative_to(ROOT)}")


if __name__ == "__main__":
    main()
