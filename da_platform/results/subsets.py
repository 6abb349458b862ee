"""Rankings per subset of a campaign's questions: by answer type, yes/no label, script (a proxy for
the language: character scripts such as Chinese vs. space-separated ones), or any column of a file
keyed by question id (the test set file itself, with its metadata columns).

Quality control and each worker's z-standardisation come from the whole campaign (the campaign's
analysis, ``CampaignAnalysis``); a subset then keeps the item scores of its questions and ranks the
systems on them exactly as the campaign ranking does (system z = mean item z; one-sided rank-sum tests
on item z-scores; ``analysis.ranking.rank_systems``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from analysis.ranking import Ranking, rank_systems
from analysis.report import GroupAnalysis
from da_core.text import is_character_script
from da_platform.db.models import Campaign, Question

BUILT_IN = ("answer_type", "yes_no_label", "script")
MISSING = "(none)"


@dataclass(frozen=True)
class SubsetSystem:
    system: str
    raw: float
    z: float
    n_ratings: int
    n_items: int


@dataclass(frozen=True)
class SubsetRanking:
    """The ranking of one subset (``value`` of the attribute)."""

    value: str
    questions: int
    systems: tuple[SubsetSystem, ...]  # in ranking order
    ranking: Ranking


def question_values(session: Session, campaign: Campaign, by: str) -> dict[str, str]:
    """Each question id of the campaign's test set -> its value of a built-in attribute."""
    if by not in BUILT_IN:
        raise ValueError(f"unknown subset attribute {by!r}; expected one of {', '.join(BUILT_IN)} or a file column")
    rows = session.execute(select(Question.external_id, Question.text, Question.answer_type, Question.yes_no_label)
                           .where(Question.test_set_id == campaign.test_set_id)).all()
    if by == "script":
        return {q: "character script (e.g. Chinese)" if is_character_script(text) else "space-separated"
                for q, text, _, _ in rows}
    if by == "answer_type":
        return {q: kind.value if kind is not None else MISSING for q, _, kind, _ in rows}
    return {q: label or MISSING for q, _, _, label in rows}


def file_values(path: Path, column: str, id_field: str = "id") -> dict[str, str]:
    """Question id -> value of ``column`` in a JSONL/CSV/TSV file (InputError naming file and line)."""
    from hit_builder.readers import read_table

    table = read_table(path)
    for name in (id_field, column):
        if name not in table.fields:
            raise table.error(f"no column {name!r} (columns: {', '.join(table.fields)})", field=name)
    values = {}
    for record in table.records:
        value = record.values.get(column)
        values[str(record.values.get(id_field))] = MISSING if value in (None, "") else str(value)
    return values


def subset_rankings(group: GroupAnalysis, values: dict[str, str], *, alpha: float) -> list[SubsetRanking]:
    """One ranking per value, from the group's item scores of the questions with that value."""
    items = group.scores.items
    item_value = np.array([values.get(item, MISSING) for item in items.item.tolist()], dtype=object)
    found = []
    for value in sorted(set(item_value.tolist())):
        mask = item_value == value
        systems: dict[str, SubsetSystem] = {}
        item_z: dict[str, np.ndarray] = {}
        for name in sorted(set(items.system[mask].tolist())):
            rows = mask & (items.system == name)
            item_z[name] = items.z[rows]
            systems[name] = SubsetSystem(name, float(items.raw[rows].mean()), float(items.z[rows].mean()),
                                         int(items.n_ratings[rows].sum()), int(rows.sum()))
        ranking = rank_systems(item_z, {s: v.z for s, v in systems.items()}, alpha=alpha)
        found.append(SubsetRanking(value, len(set(items.item[mask].tolist())),
                                   tuple(systems[s] for s in ranking.systems), ranking))
    return found
