"""Group ``da_platform`` into rooms named after what they hold, and the tests into folders that mirror them.

    python3 scripts/restructure.py          # apply to this checkout (idempotent: a second run changes nothing)
    python3 scripts/restructure.py --plan   # only list what would move

Re-runnable on any branch that forked before the move: every file still at an old path is moved
(``git mv``), every definition still in the module it leaves is moved out (``SPLITS``), and every
reference to an old module, definition or path is rewritten across the repository: imports (also inside
functions), dotted names in strings, docs and ``pyproject.toml`` (``da_platform.crowd`` ->
``da_platform.simulation.crowd``), file paths (``da_platform/web/flow.py``), ``"da_platform" / "web"``
path joins. New imports of old paths that a branch added are rewritten the same way. Imports are then
sorted by ruff (``I001``; unused ones removed from the modules a split touched). CHANGELOG.md keeps its
history as written.

At the end it lists what it could not place: loose modules left at the top of ``da_platform/``, test
modules left at the top of ``tests/``, text edits whose old text it did not find.
"""
from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("da_platform", "hit_builder", "analysis", "da_core")

# -- the rooms: one line each, the rule of what belongs there ------------------------------------------

NEW_PACKAGES = {
    "da_platform/config":
        "How an installation is set up: settings from the environment, where the database is, dashboard accounts.",
    "da_platform/db":
        "What is stored: engine and migrations, the models and their states, rows that must exist, the audit trail.",
    "da_platform/images":
        "Where answer images live (folder, database, S3 bucket), and the per-slot variation they are served with.",
    "da_platform/rating":
        "A worker's ratings without Flask: slot order and storage, behaviour record, page language, ratings read back.",
    "da_platform/campaigns":
        "A built campaign's state: status and housekeeping, progress, assignments under way, the preview of a slot.",
    "da_platform/results":
        "What a campaign's ratings say: its one analysis (cached), rankings per subset, planning, a worker's plots.",
    "da_platform/exports":
        "Files made from a campaign (ranking, ratings, WMT, bundle); large ones prepared off the request path.",
    "da_platform/review":
        "Decisions about workers: the review policy, one researcher's decision, policy runs, carrying decisions out.",
    "da_platform/providers":
        "Talking to MTurk and Prolific: their one interface, clients, settings, money and fees, retries, idempotency.",
    "da_platform/simulation":
        "Simulated crowds, the demo, the sample data: only the CLI uses them, no product module (lint-imports checks).",
}

# Old path -> new path (a file or a whole folder, new files in it included), relative to the repository.
MOVES = [
    ("da_platform/settings.py", "da_platform/config/settings.py"),
    ("da_platform/location.py", "da_platform/config/location.py"),
    ("da_platform/web/admin/accounts.py", "da_platform/config/accounts.py"),
    ("da_platform/db.py", "da_platform/db/engine.py"),
    ("da_platform/sqlite_commit.py", "da_platform/db/sqlite_commit.py"),
    ("da_platform/models.py", "da_platform/db/models.py"),
    ("da_platform/states.py", "da_platform/db/states.py"),
    ("da_platform/rows.py", "da_platform/db/rows.py"),
    ("da_platform/operations/audit.py", "da_platform/db/audit.py"),
    ("da_platform/migrations", "da_platform/db/migrations"),
    ("da_platform/image_store.py", "da_platform/images/store.py"),
    ("da_platform/building/db_storage.py", "da_platform/images/database.py"),
    ("hit_builder/s3_storage.py", "da_platform/images/s3.py"),
    ("da_platform/web/image_variation.py", "da_platform/images/variation.py"),
    ("da_platform/web/flow.py", "da_platform/rating/flow.py"),
    ("da_platform/behaviour.py", "da_platform/rating/behaviour.py"),
    ("da_platform/ratings.py", "da_platform/rating/campaign_ratings.py"),
    ("da_platform/merged_ratings.py", "da_platform/rating/merged.py"),
    ("da_platform/web/worker_messages.py", "da_platform/rating/messages.py"),
    ("da_platform/web/translations", "da_platform/rating/translations"),
    ("da_platform/lifecycle.py", "da_platform/campaigns/lifecycle.py"),
    ("da_platform/progress.py", "da_platform/campaigns/progress.py"),
    ("da_platform/assignments.py", "da_platform/campaigns/assignments.py"),
    ("da_platform/preview.py", "da_platform/campaigns/preview.py"),
    ("da_platform/campaign_analysis.py", "da_platform/results/campaign_analysis.py"),
    ("da_platform/analysis_cache.py", "da_platform/results/analysis_cache.py"),
    ("da_platform/subsets.py", "da_platform/results/subsets.py"),
    ("da_platform/planning_view.py", "da_platform/results/planning_view.py"),
    ("da_platform/web/admin/plots.py", "da_platform/results/worker_plots.py"),
    ("da_platform/exports.py", "da_platform/exports/files.py"),
    ("da_platform/export_texts.py", "da_platform/exports/texts.py"),
    ("da_platform/prepared_exports.py", "da_platform/exports/prepared.py"),
    ("da_platform/operations/review.py", "da_platform/review/policy.py"),
    ("da_platform/operations/decisions.py", "da_platform/review/apply.py"),
    ("da_platform/operations/decision_actions.py", "da_platform/review/actions.py"),
    ("da_platform/operations/worker_decisions.py", "da_platform/review/by_hand.py"),
    ("da_platform/operations/policy_review.py", "da_platform/review/provider_run.py"),
    ("da_platform/operations/pool_review.py", "da_platform/review/pool_run.py"),
    ("da_platform/operations/provider.py", "da_platform/providers/base.py"),
    ("da_platform/operations/mturk.py", "da_platform/providers/mturk.py"),
    ("da_platform/operations/prolific.py", "da_platform/providers/prolific.py"),
    ("da_platform/operations/mturk_settings.py", "da_platform/providers/mturk_settings.py"),
    ("da_platform/operations/money.py", "da_platform/providers/money.py"),
    ("da_platform/operations/retry.py", "da_platform/providers/retry.py"),
    ("da_platform/operations/public_url.py", "da_platform/providers/public_url.py"),
    ("da_platform/operations/tokens.py", "da_platform/providers/idempotency.py"),
    ("da_platform/demo.py", "da_platform/simulation/demo.py"),
    ("da_platform/crowd.py", "da_platform/simulation/crowd.py"),
    ("da_platform/careful_bots.py", "da_platform/simulation/careful_bots.py"),
    ("da_platform/careful_rules.py", "da_platform/simulation/careful_rules.py"),
    ("da_platform/adversaries.py", "da_platform/simulation/adversaries.py"),
    ("da_platform/ocr.py", "da_platform/simulation/ocr.py"),
    ("da_platform/building/sample.py", "da_platform/simulation/sample.py"),
    ("da_platform/building/showcase.py", "da_platform/simulation/showcase.py"),
    ("da_platform/web/background.py", "da_platform/simulation/background.py"),
    ("analysis/simulation.py", "da_platform/simulation/profiles.py"),
    ("hit_builder/sample_data", "da_platform/simulation/sample_data"),
    ("da_platform/cli/campaign_setup.py", "da_platform/cli/imports.py"),
]

# Test modules -> the folder of tests/ that mirrors what they test (tests/test_x.py -> tests/<folder>/test_x.py).
TEST_FOLDERS = {
    "analysis": ["agreement", "analysis_fluency_tiebreak", "analysis_io", "analysis_options", "analysis_simulated",
                 "analysis_stats", "behaviour_verdict", "metrics", "metrics_definitions", "metrics_validation",
                 "release_readers", "wmt21", "meteor_search", "metrics_progress", "beyond_automatic",
                 "pooled_checks"],
    "hit_builder": ["assembly", "degrade", "json_reading", "meaning", "render", "ocr_resistant", "plain_render_bytes"],
    "da_core": ["layers"],
    "config": ["settings", "database_location"],
    "db": ["migrations", "rows", "states", "durability"],
    "images": ["image_stores"],
    "building": ["build", "import", "import_formats", "layouts", "abstentions", "merging", "metric_labels",
                 "import_formats_study", "judge_scores", "targeted_layout"],
    "cli": ["import_cli", "web_cli", "analyze_fluency_cli", "reliability_cli", "metrics_cli", "metric_items"],
    "sources": ["arrival_rules"],
    "rating": ["server_time", "analysis_db", "automation_traces"],
    "campaigns": ["lifecycle"],
    "results": ["qc_policy", "analysis_cache", "campaign_analysis_paths", "campaign_ranking_access", "subsets",
                "planning_view", "abandoned_ratings"],
    "exports": ["exports", "prepared_exports"],
    "review": ["review_policy", "review_behaviour", "decision_paths", "admin_mturk"],
    "providers": ["mturk_contract", "prolific_contract", "mturk_sandbox", "mturk_e2e", "prolific_e2e"],
    "simulation": ["adversaries", "crowd", "demo", "sample_data", "careful_rules", "careful_bots_browser",
                   "crowd_resilience"],
    "web": ["admin_web", "admin_behaviour", "browser_admin", "browser_behaviour", "browser_campaign", "browser_worker",
            "browser_worker_page", "web_flow", "web_concurrency", "web_behaviour", "web_fakes", "multi_server",
            "worker_i18n", "first_impression", "browser_chinese_pages", "browser_dashboard_counts"],
}
TESTS_STAYING = {"test_organisation.py", "test_packaging.py"}  # about the project as a whole


@dataclass
class Split:
    """Move top-level definitions (by name) from ``source`` to ``dest``, optionally renamed; ``calls`` are
    top-level call statements (by the called name) that move too. ``dest_doc``/``source_doc``: module
    docstrings written when the move happens; ``footer``: appended to ``dest`` after the last split into it."""

    source: str
    dest: str
    names: list[str]
    dest_doc: str | None = None
    source_doc: str | None = None
    footer: str = ""
    calls: list[str] = field(default_factory=list)


SERVE_DOC = """CLI: ``serve`` the worker pages for development.

Production does not use ``serve``; run the application factory under gunicorn (docs/deploy.md)::

    DA_SECRET_KEY=… DA_DATABASE_URL=… da-platform init
    gunicorn --worker-class gthread --workers 3 --threads 4 --bind 127.0.0.1:8000 "da_platform.web:create_app()"

Extension point (``serve --demo``): build the app with :func:`development_app` (extra configuration
in ``config``) and run it with :func:`run_development_server`; add the option to :func:`serve`.
"""
EXPORT_DOC = """``da-platform export ranking|ratings|wmt|bundle``.

The exports are the dashboard's (``da_platform.exports.files``): an empty campaign is refused, an
unfinished one unless ``--partial`` is given, and then the files say so.
"""

SPLITS = [
    Split("da_platform/web/i18n.py", "da_platform/rating/language.py",
          ["TRANSLATIONS", "TEMPLATE", "SHIPPED", "_PLACEHOLDER", "_CONVERSION", "_read_po", "message_ids",
           "load_catalogue", "placeholder_problem", "_shipped_messages", "WorkerLanguage", "worker_language",
           "ENGLISH"],
          dest_doc=None,  # the module's own docstring goes with the catalogues
          source_doc="Jinja's i18n for the worker pages: ``_()`` in the language of the campaign being shown\n"
                     "(the catalogues are :mod:`da_platform.rating.language`'s)."),
    # A campaign's deletion removes its prepared exports: the folder's name goes down to the lifecycle (exports
    # build on campaigns, not the other way round).
    Split("da_platform/exports/prepared.py", "da_platform/campaigns/lifecycle.py", ["campaign_folder"]),
    Split("da_platform/cli/imports.py", "da_platform/cli/build.py",
          ["build_command", "_read_text", "_read_messages", "_where"],
          dest_doc="``da-platform build``: a campaign from an imported test set (HITs, degraded answers, images).",
          source_doc="``da-platform import``: test sets, system answers, the second references as a human system,\n"
                     "and the bundled sample.",
          footer="\n\nCOMMANDS: list[click.Command] = [build_command]\n"),
    Split("da_platform/cli/imports.py", "da_platform/cli/tables.py", ["_table"],
          dest_doc="Plain-text tables for the commands' output."),
    Split("da_platform/cli/imports.py", "da_platform/cli/inspect.py", ["inspect_command"],
          dest_doc="``da-platform inspect``: a built campaign's summary and verification, one HIT's composition.",
          footer="\n\nCOMMANDS: list[click.Command] = [inspect_command]\n"),
    Split("da_platform/cli/export.py", "da_platform/cli/admin.py",
          ["admin", "_with_new_password", "create_user", "set_password", "list_users"],
          dest_doc="``da-platform admin``: the accounts of the researchers' dashboard.",
          source_doc=EXPORT_DOC,
          footer="\n\nCOMMANDS: list[click.Command] = [admin]\n"),
    Split("da_platform/cli/serve.py", "da_platform/cli/pool.py", ["invite", "_labels"],
          dest_doc="The lab's own pool: ``invite`` links, and ``pool review`` (the review policy for every worker).",
          source_doc=SERVE_DOC),
    Split("da_platform/cli/lifecycle.py", "da_platform/cli/pool.py",
          ["pool_group", "_pool_review_options", "pool_review"],
          source_doc="CLI: ``campaign list|pause|resume|close|release|preview|delete``, ``test-set list|delete``,\n"
                     "``system list|delete|replace`` (``da_platform.campaigns.lifecycle`` does the work).",
          footer="\n\nCOMMANDS: list[click.Command] = [invite, pool_group]\n"),
]

# Definitions renamed where they stay (a private helper other modules use becomes public): module -> {old: new}.
RENAMES = {
    "da_platform/cli/providers.py": {"_review_options": "review_options", "_review_changes": "review_changes",
                                     "_policy": "review_policy"},
    "da_platform/cli/tables.py": {"_table": "plain_table"},
}

# Text edits on the moved files: (path, old text, new text, skip if this text is already there).
EDITS: list[tuple[str, str, str, str | None]] = [
    ("da_platform/cli/imports.py", "\n# -- build and inspect " + "-" * 78 + "\n", "", None),
    ("da_platform/cli/imports.py", "\n\nCOMMANDS += [build_command, inspect_command]\n", "\n", None),
    ("da_platform/cli/export.py", "COMMANDS: list[click.Command] = [export, admin]",
     "COMMANDS: list[click.Command] = [export]", None),
    ("da_platform/cli/serve.py", "COMMANDS.extend([serve, invite])", "COMMANDS.extend([serve])", None),
    ("da_platform/cli/lifecycle.py", "COMMANDS.extend([campaign_group, test_set_group, system_group, pool_group])",
     "COMMANDS.extend([campaign_group, test_set_group, system_group])", None),
    ("da_platform/cli/__init__.py",
     '_COMMAND_MODULES = ("campaign_setup", "analyze", "metrics", "serve", "providers", "export", "demo", '
     '"lifecycle",\n                    "results", "reliability", "decide")',
     '_COMMAND_MODULES = ("imports", "build", "inspect", "analyze", "metrics", "serve", "pool", "providers", '
     '"export",\n                    "admin", "demo", "lifecycle", "results", "reliability", "decide")', None),
    ("da_platform/cli/__init__.py", '"campaign_setup",', '"imports", "build", "inspect",', '"imports"'),
    ("da_platform/cli/__init__.py", '"export",', '"export", "admin",', '"admin"'),
    ("da_platform/cli/__init__.py", '"serve",', '"serve", "pool",', '"pool"'),
]

# The same, after the references are rewritten: lines the longer names made too long.
FINAL_EDITS: list[tuple[str, str, str, str | None]] = [
    ("da_platform/web/worker.py",
     "crowd.SimulatedClock``, set as ``SIMULATED_CLOCK`` by the demo and\n    tests only) gives",
     "crowd.SimulatedClock``, set as ``SIMULATED_CLOCK`` by the\n    demo and tests only) gives", None),
    ("da_platform/exports/files.py",
     "says it leaves out (``da_platform.rating.campaign_ratings.abandoned_note``).",
     "says it leaves out\n        (``da_platform.rating.campaign_ratings.abandoned_note``).", None),
    ("tests/config/test_settings.py",
     'assert sorted(readers) == ["da_platform/cli/__init__.py", "da_platform/config/settings.py", '
     '"da_platform/web/__init__.py"]',
     'assert sorted(readers) == ["da_platform/cli/__init__.py", "da_platform/config/settings.py",\n'
     '                               "da_platform/web/__init__.py"]', None),
]

# Files whose text stays as written: the history, and this script (it names every old path).
UNTOUCHED = {"CHANGELOG.md", "scripts/restructure.py"}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".cfg", ".ini", ".txt", ".yaml", ".yml", ".sh", ".po", ".pot", ".html", ".json",
                 ".js", ".css", ".mako", ""}


# -- plumbing ---------------------------------------------------------------------------------------------

def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def tracked() -> list[str]:
    return [p for p in git("ls-files", "-z").split("\0") if p and (ROOT / p).is_file()]


def module_of(path: str) -> str:
    parts = list(Path(path).with_suffix("").parts) if path.endswith(".py") else list(Path(path).parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_moves() -> list[tuple[str, str]]:
    return [(f"tests/test_{name}.py", f"tests/{folder}/test_{name}.py")
            for folder, names in TEST_FOLDERS.items() for name in names]


def all_moves() -> list[tuple[str, str]]:
    return MOVES + test_moves()


def python_modules() -> set[str]:
    """Every module and package of the project as the tree is now."""
    found = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = module_of(str(path.relative_to(ROOT)))
            parts = name.split(".")
            found |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return found


@dataclass
class Report:
    changed: set[str] = field(default_factory=set)
    split_touched: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    moved_out: dict[str, dict[str, str]] = field(default_factory=dict)  # source file -> {name: new module}

    def say(self, line: str) -> None:
        print(line)


# -- step 1: packages and moves -------------------------------------------------------------------------

def create_packages(report: Report) -> None:
    for folder, rule in NEW_PACKAGES.items():
        init = ROOT / folder / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(_docstring(textwrap.fill(rule, 113)) + "\n", encoding="utf-8")
            git("add", str(init.relative_to(ROOT)))
            report.changed.add(str(init.relative_to(ROOT)))
            report.say(f"created {folder}/__init__.py")
    for folder in TEST_FOLDERS:
        (ROOT / "tests" / folder).mkdir(parents=True, exist_ok=True)


def move(old: str, new: str, report: Report) -> None:
    source, target = ROOT / old, ROOT / new
    if source.is_dir():
        files = [p for p in git("ls-files", "-z", "--", old).split("\0") if p]
        for path in files:
            move(path, new + path[len(old):], report)
        if not git("ls-files", "--", old).strip():
            for cache in sorted(source.rglob("__pycache__"), reverse=True):
                for pyc in cache.iterdir():
                    pyc.unlink()
                cache.rmdir()
            for folder in sorted((p for p in source.rglob("*") if p.is_dir()), reverse=True):
                if not any(folder.iterdir()):
                    folder.rmdir()
            if not any(source.iterdir()):
                source.rmdir()
        return
    if not source.exists():
        return
    if target.exists():
        report.notes.append(f"{old} and {new} both exist: left {old} where it is")
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    git("mv", old, new)
    report.changed.add(new)
    report.say(f"moved {old} -> {new}")
    if old.startswith("tests/test_") and new.count("/") == 2:  # one folder deeper: paths from __file__ shift
        text = target.read_text(encoding="utf-8")
        shifted = text.replace("Path(__file__).resolve().parents[1]", "Path(__file__).resolve().parents[2]")
        if shifted != text:
            target.write_text(shifted, encoding="utf-8")


# -- step 2: text edits ----------------------------------------------------------------------------------

def apply_edits(report: Report, edits: list[tuple[str, str, str, str | None]]) -> None:
    for path, old, new, unless in edits:
        file = ROOT / path
        if not file.exists():
            continue
        text = file.read_text(encoding="utf-8")
        if old in text and not (unless and unless in text):
            file.write_text(text.replace(old, new, 1), encoding="utf-8")
            report.changed.add(path)


# -- step 3: splits --------------------------------------------------------------------------------------

def _top_level(tree: ast.Module) -> list[tuple[set[str], ast.stmt]]:
    """Each top-level statement with the names it defines (or, for a call statement, the called name)."""
    out = []
    for node in tree.body:
        names: set[str] = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = {node.name}
        elif isinstance(node, ast.Assign):
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = {node.target.id}
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
            names = {"call:" + node.value.func.id}
        out.append((names, node))
    return out


def _span(lines: list[str], node: ast.stmt) -> tuple[int, int]:
    """0-based [start, end) of a statement's lines, decorators and the comment lines right above it included."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start, node.end_lineno or node.lineno


def _used_names(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def _import_block(tree: ast.Module, lines: list[str]) -> str:
    """The module's top-level imports (``if TYPE_CHECKING:`` blocks included), as written."""
    parts = []
    for node in tree.body:
        is_check = (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        if isinstance(node, (ast.Import, ast.ImportFrom)) or is_check:
            parts.append("".join(lines[node.lineno - 1:node.end_lineno]))
    return "".join(parts)


def _docstring(text: str) -> str:
    """``text`` as a module docstring (closing quotes on their own line when it has several lines)."""
    text = text.rstrip("\n")
    return f'"""{text}\n"""' if "\n\n" in text or len(text) > 113 else f'"""{text}"""'


def _replace_docstring(text: str, doc: str) -> str:
    tree = ast.parse(text)
    first = tree.body[0] if tree.body else None
    lines = text.splitlines(keepends=True)
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return "".join(lines[:first.lineno - 1]) + doc + "\n" + "".join(lines[first.end_lineno:])
    return doc + "\n" + text


def split(spec: Split, report: Report, last_into_dest: bool) -> None:
    source, dest = ROOT / spec.source, ROOT / spec.dest
    if not source.exists():
        return
    text = source.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    wanted = set(spec.names) | {"call:" + c for c in spec.calls}
    moving = [(names, node) for names, node in _top_level(tree) if names & wanted]
    if not moving:
        return
    spans = [_span(lines, node) for _, node in moving]
    moved_text = "\n\n".join("".join(lines[a:b]).rstrip("\n") + "\n" for a, b in spans)
    keep = [line for i, line in enumerate(lines) if not any(a <= i < b for a, b in spans)]
    remaining = re.sub(r"\n{4,}", "\n\n\n", "".join(keep))
    source_module, dest_module = module_of(spec.source), module_of(spec.dest)
    remaining_tree = ast.parse(remaining)
    defined_left = {n for names, _ in _top_level(remaining_tree) for n in names if not n.startswith("call:")}
    used_by_moved = _used_names([node for _, node in moving])
    imports = ""
    back = sorted(used_by_moved & defined_left)
    if back:
        imports += f"from {source_module} import {', '.join(back)}\n"
    earlier = report.moved_out.setdefault(spec.source, {})
    for module in sorted(set(earlier.values())):
        names = sorted(n for n, m in earlier.items() if m == module and n in used_by_moved)
        if names:
            imports += f"from {module} import {', '.join(names)}\n"
    if dest.exists():
        body = _add_import(dest.read_text(encoding="utf-8").rstrip("\n") + "\n\n\n" + moved_text,
                           _import_block(tree, lines) + imports)
    else:
        doc = _docstring(spec.dest_doc) if spec.dest_doc else ast.get_source_segment(text, tree.body[0]) or ""
        body = f"{doc}\n{_import_block(tree, lines)}{imports}\n\n{moved_text}"
    if last_into_dest and spec.footer:
        body = body.rstrip("\n") + "\n" + spec.footer
    dest.write_text(body, encoding="utf-8")
    moved_names = sorted(n for names, _ in moving for n in names if not n.startswith("call:"))
    earlier.update({n: dest_module for n in moved_names})
    still_used = sorted(_used_names([node for _, node in _top_level(remaining_tree)]) & set(moved_names))
    if still_used:  # the module keeps using what moved: it imports it from its new place
        if back:
            report.notes.append(f"{spec.source} and {spec.dest} import each other ({still_used} / {back})")
        remaining = _add_import(remaining, f"from {dest_module} import {', '.join(still_used)}\n")
    if spec.source_doc is not None:
        remaining = _replace_docstring(remaining, _docstring(spec.source_doc))
    source.write_text(remaining.rstrip("\n") + "\n", encoding="utf-8")
    git("add", spec.dest)
    report.changed |= {spec.source, spec.dest}
    report.split_touched |= {spec.source, spec.dest}
    report.say(f"moved {', '.join(moved_names)} from {spec.source} to {spec.dest}")


def _add_import(text: str, imports: str) -> str:
    """``imports`` after the module's last top-level import (ruff sorts and prunes them afterwards)."""
    tree = ast.parse(text)
    last = max((node.end_lineno or 0 for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))),
               default=0)
    lines = text.splitlines(keepends=True)
    return "".join(lines[:last]) + imports + "".join(lines[last:])


# -- step 4: references ----------------------------------------------------------------------------------

@dataclass
class Maps:
    modules: dict[str, str]                          # old module -> new (exact name only)
    packages: dict[str, str]                         # old package -> new (everything below it too)
    symbols: dict[tuple[str, str], tuple[str, str]]  # (module, name) -> (new module, new name)
    paths: dict[str, str]                            # old path (file or folder) -> new path
    now: set[str]                                    # modules and packages of the tree as it is now
    split_dests: dict[str, list[str]]                # module -> the modules definitions moved out of it to

    def old(self) -> list[str]:
        return sorted(set(self.modules) | set(self.packages), key=len, reverse=True)

    def module(self, name: str) -> str | None:
        """The new name of a module; None if it did not move."""
        if name in self.modules:
            return self.modules[name]
        for old in sorted(self.packages, key=len, reverse=True):
            if name == old or name.startswith(old + "."):
                return self.packages[old] + name[len(old):]
        return None

    def ambiguous(self, name: str) -> bool:
        """An old module whose name is now a package (``da_platform.db``): only what follows tells which is meant."""
        return name in self.modules and name in self.now


def build_maps() -> Maps:
    modules, packages, paths = {}, {}, {}
    for old, new in all_moves():
        paths[old] = new
        if old.split("/")[0] not in PACKAGES:
            continue
        if old.endswith(".py"):
            modules[module_of(old)] = module_of(new)
        elif any((ROOT / new).rglob("*.py")):
            packages[module_of(old)] = module_of(new)
    renames = {(module_of(path), old): new for path, names in RENAMES.items() for old, new in names.items()}
    symbols: dict[tuple[str, str], tuple[str, str]] = {}
    for spec in SPLITS:
        sources = {module_of(spec.source)} | {old for old, new in modules.items() if new == module_of(spec.source)}
        for name in spec.names:
            for source in sources:
                symbols[source, name] = (module_of(spec.dest), renames.get((module_of(spec.dest), name), name))
    for (module, old), new in renames.items():
        for source in {module} | {s for s, n in modules.items() if n == module}:
            symbols.setdefault((source, old), (module, new))
    split_dests: dict[str, list[str]] = {}
    for spec in SPLITS:
        split_dests.setdefault(module_of(spec.source), []).append(module_of(spec.dest))
    return Maps(modules, packages, symbols, paths, python_modules(), split_dests)


def resolve(maps: Maps, module: str, name: str) -> tuple[str, str]:
    """Where ``from module import name`` finds ``name`` now: (module, name)."""
    for key in ((module, name), (maps.module(module) or module, name)):
        if key in maps.symbols:
            return maps.symbols[key]
    submodule = f"{module}.{name}"
    if submodule in maps.modules:  # ``from da_platform import exports``: that module moved
        return tuple(maps.modules[submodule].rpartition(".")[::2])  # type: ignore[return-value]
    moved = maps.module(module)
    if moved is None or (maps.ambiguous(module) and submodule in maps.now):
        moved = module  # ``from da_platform.db import models``: the new package already
    for dest in maps.split_dests.get(moved, ()):  # a name the source only imported, for what moved out
        if name not in bound_names(moved) and name in bound_names(dest):
            return dest, name
    return moved, name


_BOUND: dict[str, set[str]] = {}


def bound_names(module: str) -> set[str]:
    """The names a module binds at its top level (definitions and imports), read from its file."""
    if module not in _BOUND:
        path = ROOT / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / module.replace(".", "/") / "__init__.py"
        names: set[str] = set()
        if path.exists():
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {n for found, _ in _top_level(tree) for n in found}
            for node in tree.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        _BOUND[module] = names
    return _BOUND[module]


def rewrite_imports(text: str, maps: Maps, own: str = "") -> tuple[str, list[str]]:
    """Imports of moved modules and definitions rewritten (local names of renamed definitions with them); a
    definition that moved into the importing module ``own`` itself is no longer imported."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, list[str]]] = []
    renamed: dict[str, str] = {}
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in PACKAGES:
            groups: dict[str, list[str]] = {}
            changed = False
            for alias in node.names:
                module, name = resolve(maps, node.module, alias.name)
                local = alias.asname or alias.name
                if name != alias.name and alias.asname is None and (node.module, alias.name) in maps.symbols \
                        or name != alias.name and alias.asname is None \
                        and (maps.module(node.module) or node.module, alias.name) in maps.symbols:
                    renamed[alias.name] = name  # a renamed definition: its uses here are renamed too
                    local = name
                changed |= (module, name) != (node.module, alias.name)
                if module == own and local == name:
                    continue
                groups.setdefault(module, []).append(name if local == name else f"{name} as {local}")
            if changed:
                statements = [f"from {module} import {', '.join(names)}" for module, names in groups.items()]
                edits.append((node.lineno, node.end_lineno or node.lineno, statements))
        elif isinstance(node, ast.Import):
            moved = [maps.module(a.name) if not maps.ambiguous(a.name) else None for a in node.names]
            if any(moved):
                names = [(m or a.name) + (f" as {a.asname}" if a.asname else "") for m, a in zip(moved, node.names)]
                edits.append((node.lineno, node.end_lineno or node.lineno, [f"import {', '.join(names)}"]))
    for first, last, statements in sorted(edits, reverse=True):
        head = lines[first - 1]
        indent = head[: len(head) - len(head.lstrip())]
        code = "".join(lines[first - 1:last])
        if ";" in code.split("#", 1)[0]:
            problems.append(f"line {first}: an import shares its line with another statement; rewrite it by hand")
            continue
        comment = ""
        if first == last and "#" in head:
            comment = "  #" + head.split("#", 1)[1].rstrip("\n")
        elif "#" in code:
            problems.append(f"line {first}: a comment inside a multi-line import was dropped")
        replacement = [f"{indent}{statement}\n" for statement in statements]
        if not replacement:
            lines[first - 1:last] = []
            continue
        replacement[-1] = replacement[-1].rstrip("\n") + comment + "\n"
        lines[first - 1:last] = replacement
    text = "".join(lines)
    if renamed:
        text = rename_names(text, renamed)
    return text, problems


def rename_names(text: str, names: dict[str, str]) -> str:
    """Rename NAME tokens (not attributes ``x.name``, not strings) per ``names``."""
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines = text.splitlines(keepends=True)
    changes = []
    for i, token in enumerate(tokens):
        if token.type == tokenize.NAME and token.string in names:
            previous = tokens[i - 1].string if i else ""
            if previous != ".":
                changes.append((token.start, token.end, names[token.string]))
    for (row, col), (_, end_col), new in sorted(changes, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[end_col:]
    return "".join(lines)


def rewrite_dotted(text: str, maps: Maps) -> str:
    """Dotted module names and ``module.definition`` in any text (strings, comments, docs, settings)."""
    for (module, name), (new_module, new_name) in sorted(maps.symbols.items(), key=lambda kv: -len(kv[0][0])):
        text = re.sub(rf"(?<![\w.]){re.escape(module)}\.{re.escape(name)}(?!\w)", f"{new_module}.{new_name}", text)
    if not maps.old():
        return text
    pattern = re.compile(r"(?<![\w./-])(" + "|".join(re.escape(m) for m in maps.old()) + r")(?![\w])")

    def replace(match: re.Match[str]) -> str:
        old = match.group(1)
        after = re.match(r"\.([A-Za-z_]\w*)", text[match.end():])
        if old in maps.modules and after and f"{old}.{after.group(1)}" in maps.now:
            return old  # ``da_platform.db.models``: a module of the new package
        if maps.ambiguous(old) and not after:
            return old
        return maps.module(old) or old

    return pattern.sub(replace, text)


def rewrite_paths(text: str, maps: Maps, python: bool) -> str:
    """File and folder paths (``da_platform/web/flow.py``), and in Python ``"da_platform" / "web"`` joins."""
    if not maps.paths:
        return text
    pattern = re.compile(r"(?<![\w/.-])(" + "|".join(re.escape(p) for p in sorted(maps.paths, key=len, reverse=True))
                         + r")(?![\w-])")
    text = pattern.sub(lambda m: maps.paths[m.group(1)], text)
    if python:
        joined = re.compile(r"""(["'])([\w.]+)\1(?:\s*/\s*(["'])[\w.]+\3)+""")

        def replace(match: re.Match[str]) -> str:
            quote = match.group(1)
            segments = re.findall(r"""["']([\w.]+)["']""", match.group(0))
            path = "/".join(segments)
            for old in sorted(maps.paths, key=len, reverse=True):
                if path == old or path.startswith(old + "/"):
                    new = maps.paths[old] + path[len(old):]
                    return " / ".join(f"{quote}{s}{quote}" for s in new.split("/"))
            return match.group(0)

        text = joined.sub(replace, text)
    return text


def rewrite_references(maps: Maps, report: Report) -> None:
    for path in tracked():
        file = ROOT / path
        if path in UNTOUCHED or file.suffix not in TEXT_SUFFIXES or path.startswith("tests/data/"):
            continue
        if file.suffix == "" and file.name not in ("Makefile", "run"):
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = text
        if file.suffix == ".py":
            try:
                new, problems = rewrite_imports(new, maps, module_of(path))
            except SyntaxError as error:
                report.notes.append(f"{path}: not parsed ({error}); imports left as they are")
                problems = []
            report.notes += [f"{path}: {p}" for p in problems]
        new = rewrite_paths(rewrite_dotted(new, maps), maps, file.suffix == ".py")
        if new != text:
            file.write_text(new, encoding="utf-8")
            report.changed.add(path)
            report.say(f"rewrote references in {path}")


def apply_renames(maps: Maps, report: Report) -> None:
    """Renamed definitions in the module that defines them (importers were renamed with their imports)."""
    for path, names in RENAMES.items():
        file = ROOT / path
        if not file.exists():
            continue
        text = file.read_text(encoding="utf-8")
        defined = {n for found, _ in _top_level(ast.parse(text)) for n in found}
        todo = {old: new for old, new in names.items() if old in defined}
        if todo:
            file.write_text(rename_names(text, todo), encoding="utf-8")
            report.changed.add(path)
            report.split_touched.add(path)


def prune_split_imports(report: Report) -> None:
    """Imports the split modules no longer use, removed before the references are rewritten (so a name a
    module only imported for what moved out is looked for where it went)."""
    touched = sorted(p for p in report.split_touched if (ROOT / p).exists())
    if touched:
        subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "--fix", "--exit-zero", "--select", "F401",
                        *touched], cwd=ROOT, check=True)
    _BOUND.clear()


# -- step 5: tidy and report -----------------------------------------------------------------------------

def tidy(report: Report) -> None:
    changed = sorted(p for p in report.changed if p.endswith(".py") and (ROOT / p).exists())
    if not changed:
        return
    ruff = [sys.executable, "-m", "ruff", "check", "--quiet"]
    touched = sorted(p for p in report.split_touched if (ROOT / p).exists())
    if touched:  # imports copied with the definitions, or left behind by them, that are not used
        subprocess.run([*ruff, "--fix", "--exit-zero", "--select", "F401", *touched], cwd=ROOT, check=True)
    subprocess.run([*ruff, "--fix", "--exit-zero", "--select", "I001", *changed], cwd=ROOT, check=True)
    long = subprocess.run([*ruff, "--select", "E501", "--output-format", "concise", *changed], cwd=ROOT,
                          capture_output=True, text=True).stdout.split("\n")
    report.notes += [f"longer than the line limit now (wrap by hand): {line}" for line in long if ": E501" in line]
    git("add", "--", *sorted(p for p in report.changed if (ROOT / p).exists()))


def leftovers(report: Report) -> None:
    loose = sorted(p.name for p in (ROOT / "da_platform").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    if loose:
        report.notes.append("modules still loose in da_platform/ (give each a room): " + ", ".join(loose))
    flat = sorted(p.name for p in (ROOT / "tests").glob("test_*.py") if p.name not in TESTS_STAYING)
    if flat:
        report.notes.append("test modules still at the top of tests/ (add them to TEST_FOLDERS): " + ", ".join(flat))
    for path, old, _, unless in EDITS + FINAL_EDITS:
        file = ROOT / path
        if file.exists():
            text = file.read_text(encoding="utf-8")
            if old in text and not (unless and unless in text):
                report.notes.append(f"{path}: edit not applied: {old.strip()!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", action="store_true", help="only list the moves still to do")
    args = parser.parse_args(argv)
    if args.plan:
        for old, new in all_moves():
            if (ROOT / old).exists():
                print(f"{old} -> {new}")
        for spec in SPLITS:
            if (ROOT / spec.source).exists():
                text = (ROOT / spec.source).read_text(encoding="utf-8")
                left = [n for found, _ in _top_level(ast.parse(text)) for n in found if n in spec.names]
                if left:
                    print(f"{spec.source}: {', '.join(left)} -> {spec.dest}")
        return 0
    report = Report()
    create_packages(report)
    for old, new in all_moves():
        move(old, new, report)
    apply_edits(report, EDITS)
    for i, spec in enumerate(SPLITS):
        last = not any(later.dest == spec.dest for later in SPLITS[i + 1:])
        split(spec, report, last)
    prune_split_imports(report)
    maps = build_maps()
    rewrite_references(maps, report)
    apply_edits(report, FINAL_EDITS)
    apply_renames(maps, report)
    tidy(report)
    leftovers(report)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if not report.changed:
        print("nothing to do: the tree is already restructured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
