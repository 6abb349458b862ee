"""Print the import arrows between the project's packages, read from the source (AST), not by importing.

    python scripts/import_graph.py              # da_platform, hit_builder, analysis, da_core
    python scripts/import_graph.py --depth 2    # their sub-packages/modules too (da_platform.web, ...)
    python scripts/import_graph.py --cycles     # also list the cycles between the nodes shown

Every ``import`` and ``from … import`` counts, also those inside functions (a lazy import is still
a dependency). Each line is ``source -> target  (N modules)``: N modules of ``source`` import
``target``. Exit status 1 when ``--cycles`` finds a cycle.
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("da_platform", "hit_builder", "analysis", "da_core")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> list[str]:
    """Absolute names of the modules ``module`` imports (relative imports resolved)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.append(prefix)
            names += [f"{prefix}.{alias.name}" for alias in node.names]  # ``from pkg import submodule``
    return names


def node(name: str, depth: int, known: set[str]) -> str | None:
    """The graph node of a module name: its first ``depth`` parts, if that is one of ours."""
    if name.split(".")[0] not in PACKAGES:
        return None
    parts = name.split(".")[:depth]
    while parts and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts) or None


def arrows(depth: int) -> Counter[tuple[str, str]]:
    files = [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
             if "migrations" not in p.parts]
    modules = {module_name(p): p for p in files}
    known = {".".join(m.split(".")[:d]) for m in modules for d in range(1, depth + 1)}
    found: Counter[tuple[str, str]] = Counter()
    for module, path in modules.items():
        source = node(module, depth, known)
        if source is None:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for name in imported(tree, module, path.name == "__init__.py"):
            target = node(name, depth, known)
            if target and target != source and not target.startswith(source + ".") \
                    and not source.startswith(target + "."):
                targets.add(target)
        for target in targets:
            found[source, target] += 1
    return found


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=1, help="module-name parts per node (1 = top packages)")
    parser.add_argument("--cycles", action="store_true", help="list cycles; exit status 1 if there is one")
    args = parser.parse_args(argv)
    found = arrows(args.depth)
    for (source, target), count in sorted(found.items()):
        print(f"{source} -> {target}  ({count} module{'s' if count != 1 else ''})")
    if args.cycles:
        loops = cycles(set(found))
        for loop in loops:
            print("cycle: " + " <-> ".join(loop))
        return 1 if loops else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
