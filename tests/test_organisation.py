"""The test suite's own layout, as flaskr's: no test module imports from another test module or from a
conftest. Shared fixtures live in ``conftest.py``, shared helpers in modules not named ``test_*``."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_test_module(name: str) -> bool:
    """``test_x``, ``tests.test_x``, ``tests.security.test_x`` or any conftest, as an imported module name."""
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def forbidden_imports(root: Path) -> list[str]:
    """``file:line: module`` for every import (at any depth: also inside functions) in a ``.py`` file below
    ``root`` of a test module or a conftest; ``from tests import test_x`` counts too."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                names = [module] if _is_test_module(module) else [f"{module}.{alias.name}" for alias in node.names]
            else:
                continue
            found += [(str(path.relative_to(root)), node.lineno, name) for name in names if _is_test_module(name)]
    return [f"{file}:{line}: {name}" for file, line, name in sorted(found)]


def test_no_test_module_imports_another_test_module_or_a_conftest():
    assert forbidden_imports(TESTS) == [], "move shared fixtures to conftest.py and helpers to a non-test_ module"


def test_the_check_finds_each_way_of_importing_a_test_module(tmp_path):
    (tmp_path / "security").mkdir()
    (tmp_path / "helpers.py").write_text("from tests.web_factories import make_web_env\nimport json\n")
    (tmp_path / "test_a.py").write_text("from tests.test_b import login\nfrom tests import helpers, test_c\n")
    (tmp_path / "security" / "test_d.py").write_text(
        "def f():\n    from test_import import write\n    import tests.test_e\n"
        "from tests.security.conftest import FAKE\nfrom .test_f import g\n")
    assert forbidden_imports(tmp_path) == [
        "security/test_d.py:2: test_import",
        "security/test_d.py:3: tests.test_e",
        "security/test_d.py:4: tests.security.conftest",
        "security/test_d.py:5: .test_f",
        "test_a.py:1: tests.test_b",
        "test_a.py:2: tests.test_c",
    ]
