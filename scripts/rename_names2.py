"""The naming pass of the code base: module moves and identifier renames, re-runnable.

    python3 scripts/rename_names2.py [--check | --fields]

Moves each module below to its new name (``git mv`` when it is tracked) and rewrites every reference to the old
names in ``da_platform/``, ``analysis/``, ``hit_builder/``, ``da_core/``, ``tests/``, ``benchmarks/``, ``scripts/``,
``docs/``, ``README.md``, ``CONTRIBUTING.md`` and ``pyproject.toml``. Running it twice changes nothing: no new name
matches an old pattern, so a branch written against the old names can be merged and the script run again.
``--check`` lists what would change and exits 1 if anything would, writing nothing. The Python files rewritten get
their imports sorted again (``ruff --select I001``); a line the longer names make too long is for a person (ruff
E501 names it).

``--fields`` renames what only the types can tell apart: the ``CampaignSettings`` fields of a part that has a
default are ``stored_<key>`` (``stored_qc``: the policy stored, or None), read through the property that gives the
default (``qc_policy``: the policy that applies). A leftover ``settings.qc`` is therefore a mypy error, never a
silent change of meaning: ``--fields`` runs mypy and renames each attribute or keyword argument it names (code mypy
does not check, the tests and untyped functions, is for a person: ``git grep -nw qc`` and friends).

A module whose old and new files both exist (e.g. a merge re-created the old one) is not moved: the script says so
and leaves both for a person to join.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("da_platform", "analysis", "hit_builder", "da_core", "tests", "benchmarks", "scripts", "docs")
FILES = ("README.md", "CONTRIBUTING.md", "pyproject.toml")
SUFFIXES = {".py", ".md", ".html", ".js", ".toml", ".txt", ".cfg", ".sh"}
KEEP = {Path(__file__).resolve(), ROOT / "tests" / "test_naming.py"}  # they write the old names on purpose

# Old module -> new module (dotted, from the repository's root): each name says what the module holds.
MODULES = {
    # the review policy's logic (judge, plan, store), beside the policy's type in config/review_policy.py
    "da_platform.review.policy": "da_platform.review.decisions",
    # the behaviour record a page sends, read strictly (the analysis of records is analysis.behaviour_signals)
    "da_platform.rating.behaviour": "da_platform.rating.behaviour_record",
    # the per-worker behaviour and content signals
    "analysis.behaviour": "analysis.behaviour_signals",
    # sample size and power of the rank-sum comparisons, and the pairs' separation during a campaign
    "analysis.planning": "analysis.power",
    # a pair's items needed in the researcher's units: reachable or not, passes, HITs and cost
    "da_platform.results.planning_view": "da_platform.results.separation_cost",
    "tests.results.test_planning_view": "tests.results.test_separation_cost",
    # the first wave of a campaign in waves, planned at build time
    "da_platform.building.wave_plan": "da_platform.building.first_wave",
    # the quality-control states (status, method, scope, exclusion); the stored states are da_platform.db.states
    "analysis.states": "analysis.qc_states",
}


def module_rules() -> list[tuple[re.Pattern[str], str]]:
    """A reference to an old module, dotted or as a path (``a.b.c``, ``a/b/c.py``), in full from its package:
    ``rating.behaviour`` alone is also a column (``Rating.behaviour``), so short forms are left alone."""
    rules = []
    for old, new in MODULES.items():
        first, *rest = old.split(".")
        # every separator the same as the first (a back-reference): dotted or a path, never a mix
        pattern = r"(?<![\w./-])" + re.escape(first) + r"([./])" + r"\1".join(map(re.escape, rest)) + r"(?![\w])"
        first, *rest = new.split(".")
        rules.append((re.compile(pattern), first + "".join(r"\g<1>" + part for part in rest)))
    return rules


# Identifier renames (pattern, replacement), each safe to apply again.
IDENTIFIERS: list[tuple[str, str]] = [
    # ``from analysis import behaviour`` (a benchmark sets one of its thresholds): the module under its new name
    (r"(?m)^from analysis import behaviour$", "from analysis import behaviour_signals as behaviour"),
    # the review policy's answer for one assignment (a payment decision), beside analysis.verdict.WorkerVerdict (QC);
    # "Verdict (checks and behaviour signals)" is what analyze prints, not the class
    (r"(?<![\w.])Verdict\b(?! \()", "PaymentDecision"),
    # a CampaignSettings part with a default, named in a docstring or doc: its field (see --fields)
    (r"\bCampaignSettings\.(layout|qc|review|mturk|prolific)\b(?![\w(])", r"CampaignSettings.stored_\1"),
    # StrState, the base of every state enum, lives in da_core.enums (analysis.qc_states re-exports it)
    (r"(?m)^from analysis\.qc_states import StrState$", "from da_core.enums import StrState"),
]


def files() -> list[Path]:
    found = [ROOT / name for name in FILES if (ROOT / name).is_file()]
    for folder in FOLDERS:
        found += sorted(p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in SUFFIXES
                        and "__pycache__" not in p.parts and p.resolve() not in KEEP)
    return found


def path_of(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def tracked(path: Path) -> bool:
    listed = subprocess.run(["git", "ls-files", "--error-unmatch", str(path)], cwd=ROOT, capture_output=True)
    return listed.returncode == 0


def move_modules(check: bool) -> list[str]:
    changes = []
    for old, new in MODULES.items():
        source, target = path_of(old), path_of(new)
        if not source.exists():
            continue
        if target.exists():
            print(f"both {source.relative_to(ROOT)} and {target.relative_to(ROOT)} exist: join them by hand",
                  file=sys.stderr)
            continue
        changes.append(f"move {source.relative_to(ROOT)} -> {target.relative_to(ROOT)}")
        if check:
            continue
        if tracked(source):
            subprocess.run(["git", "mv", str(source), str(target)], cwd=ROOT, check=True)
        else:
            source.rename(target)
    return changes


def renamed(text: str) -> str:
    """``text`` with every old module and identifier name replaced by its new one."""
    for pattern, replacement in module_rules() + [(re.compile(p), r) for p, r in IDENTIFIERS]:
        text = pattern.sub(replacement, text)
    return text


def rewrite(check: bool) -> list[str]:
    changes, rewritten = [], []
    for path in files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = renamed(text)
        if new != text:
            changes.append(f"rewrite {path.relative_to(ROOT)}")
            if not check:
                path.write_text(new, encoding="utf-8")
                if path.suffix == ".py":
                    rewritten.append(str(path))
    if rewritten:  # imports of a moved module sort elsewhere: ruff puts them back in order (nothing else)
        subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "--fix", "--select", "I001", *rewritten],
                       cwd=ROOT, check=False)
    return changes


STORED_FIELDS = ("layout", "qc", "review", "mturk", "prolific")  # CampaignSettings: key -> field stored_<key>
_MYPY_FIELD = re.compile(r'^(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): error: (?:Item )?"CampaignSettings"'
                         r'(?: of "[^"]*")? has no attribute "(?P<name>\w+)"')
_MYPY_KEYWORD = re.compile(r'^(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): error: Unexpected keyword argument '
                           r'"(?P<name>\w+)" for "CampaignSettings"')


def rename_fields() -> list[str]:
    """Each use of a renamed ``CampaignSettings`` field that mypy reports, renamed (attribute or keyword), until mypy
    reports none (it names one use per line and message at a time)."""
    changes: list[str] = []
    for _ in range(10):
        found = _rename_reported_fields()
        if not found:
            break
        changes += found
    return changes


def _rename_reported_fields() -> list[str]:
    found = subprocess.run([sys.executable, "-m", "mypy", "--show-column-numbers", "--no-error-summary"], cwd=ROOT,
                           capture_output=True, text=True).stdout.splitlines()
    changes = []
    for report in found:
        match = _MYPY_FIELD.match(report) or _MYPY_KEYWORD.match(report)
        if match is None or match["name"] not in STORED_FIELDS:
            continue
        path, number, name = ROOT / match["path"], int(match["line"]) - 1, match["name"]
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if match.re is _MYPY_FIELD:  # the first .name from the reported expression on (the expression's own)
            start = int(match["column"]) - 1
            line = lines[number]
            lines[number] = line[:start] + re.sub(rf"\.{name}\b(?!_)", f".stored_{name}", line[start:], count=1)
        else:  # the keyword, on the call's line or one below it
            number = next(i for i in range(number, len(lines)) if re.search(rf"\b{name}=", lines[i]))
            lines[number] = re.sub(rf"\b{name}=", f"stored_{name}=", lines[number], count=1)
        path.write_text("".join(lines), encoding="utf-8")
        changes.append(f"field {match['path']}:{number + 1}: {name} -> stored_{name}")
    return changes


def main(argv: list[str]) -> int:
    if argv == ["--fields"]:
        changes = rename_fields()
        print("\n".join(changes + [f"{len(changes)} change(s)"]))
        return 0
    if argv not in ([], ["--check"]):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    check = argv == ["--check"]
    changes = move_modules(check)
    changes += rewrite(check)
    for change in changes:
        print(change)
    print(f"{len(changes)} change(s){' to make' if check else ''}")
    return 1 if check and changes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
