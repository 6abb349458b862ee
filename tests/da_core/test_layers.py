"""The dependency-free core: ``da_core`` imports the standard library and itself only.

The arrows between the packages (``da_platform`` -> ``hit_builder`` -> ``analysis`` -> ``da_core``) are
checked by ``lint-imports`` (pyproject.toml's ``[tool.importlinter]``); a "standard library only" rule is
not expressible there, so it is checked here, from the source (every import, also inside functions).
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "da_core"


def imported_top_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_da_core_imports_only_the_standard_library_and_itself() -> None:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 5  # __init__, enums, errors, languages, layout, text
    allowed = set(sys.stdlib_module_names) | {"__future__", "da_core"}
    outside = {str(f.relative_to(CORE.parent)): sorted(imported_top_names(f) - allowed) for f in files}
    assert {f: names for f, names in outside.items() if names} == {}


def test_the_check_sees_a_third_party_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import json\n\ndef f():\n    from sqlalchemy import select\n", encoding="utf-8")
    assert imported_top_names(module) - set(sys.stdlib_module_names) == {"sqlalchemy"}
