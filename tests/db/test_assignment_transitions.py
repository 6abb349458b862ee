"""The assignment state machine: one table (``da_platform.db.models.ASSIGNMENT_TRANSITIONS``), the same as the
documented one (docs/campaign-lifecycle.md, "Assignment states"), and every change of state the code makes named
from it."""
from __future__ import annotations

import re
from pathlib import Path

from da_platform.db.models import (
    ASSIGNMENT_TRANSITIONS,
    Assignment,
    AssignmentStatus,
    AssignmentTransition,
    make,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "campaign-lifecycle.md"


def documented() -> tuple[list[str], dict[str, tuple[set[str], str]]]:
    """The states the section lists, and its table: transition -> (from, to), read as a reader reads it ("any":
    every listed state; "any but `x`": every other one)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Assignment states\n", 1)[1].split("\n## ", 1)[0]
    states = re.findall(r"^- `(\w+)`(?:, `(\w+)`)?:", section, flags=re.M)
    names = [name for pair in states for name in pair if name]
    table: dict[str, tuple[set[str], str]] = {}
    for row in re.findall(r"^\| `(\w+)` \| ([^|]+) \| `(\w+)` \|", section, flags=re.M):
        transition, sources, target = row
        listed = set(re.findall(r"`(\w+)`", sources))
        if sources.strip() == "any":
            listed = set(names)
        elif sources.startswith("any but"):
            listed = set(names) - listed
        table[transition] = (listed, target)
    return names, table


def test_the_table_is_the_documented_one():
    states, table = documented()
    assert sorted(states) == sorted(status.value for status in AssignmentStatus) and len(states) == 6
    assert len(table) == 12
    assert {t.value: ({s.value for s in sources}, target.value)
            for t, (sources, target) in ASSIGNMENT_TRANSITIONS.items()} == table


def product_code() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in sorted((ROOT / "da_platform").rglob("*.py"))
            if path != ROOT / "da_platform" / "db" / "models.py" and "migrations" not in path.parts}


def test_every_transition_the_code_makes_is_in_the_table_and_every_one_is_made():
    used = {name for text in product_code().values() for name in re.findall(r"AssignmentTransition\.(\w+)", text)}
    assert used == {t.value for t in AssignmentTransition} == {t.value for t in ASSIGNMENT_TRANSITIONS}


def test_no_code_sets_an_assignment_status_but_through_the_table():
    # An assignment's status written directly: an ORM attribute set to a state, or an UPDATE's values(status=...).
    direct = re.compile(r"(\bassignment|\brow)\.status\s*=[^=]|values\([^)]*\bstatus=AssignmentStatus\.|"
                        r"\.status\s*=\s*AssignmentStatus\.|literal\(AssignmentStatus\.")
    found = [f"{path.relative_to(ROOT)}:{text[:match.start()].count(chr(10)) + 1}"
             for path, text in product_code().items() for match in direct.finditer(text)]
    assert found == []


def test_a_transition_changes_only_a_state_it_starts_from():
    assignment = Assignment(status=AssignmentStatus.completed)
    assert not make(assignment, AssignmentTransition.release) and assignment.status is AssignmentStatus.completed
    assert make(assignment, AssignmentTransition.release_unlisted) and assignment.status is AssignmentStatus.abandoned
    assert not make(assignment, AssignmentTransition.forged)  # abandoned already: nothing to do
    assert make(assignment, AssignmentTransition.sync_submitted) and assignment.status is AssignmentStatus.submitted
