"""HIT assembly (docs/method.md §2): composition invariants over many sizes, seeds and passes; determinism."""
from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from da_platform.db.models import SlotType
from hit_builder.assembly import (
    AssemblyError,
    HitPlan,
    assemble,
    partner_set,
    verify_hit,
)


def items(n: int) -> list[tuple[str, int]]:
    return [(f"sys{i % 3}", i) for i in range(n)]


def check_hit(hit: HitPlan) -> None:
    """The docs/method.md §2 rules, written out independently of assembly.verify_hit."""
    assert [s.position for s in hit.slots] == list(range(100))
    assert Counter(s.slot_type for s in hit.slots) == {
        SlotType.SYSTEM: 70, SlotType.REPEAT: 10, SlotType.BAD_REF: 10, SlotType.REF: 10}
    ordinary = [s.item for s in hit.slots if s.slot_type is SlotType.SYSTEM]
    assert len(set(ordinary)) == 70
    for set_index in range(10):
        members = hit.slots[set_index * 10:set_index * 10 + 10]
        assert all(s.set_index == set_index for s in members)
        types = Counter(s.slot_type for s in members)
        assert types == {SlotType.SYSTEM: 7, SlotType.REPEAT: 1, SlotType.BAD_REF: 1, SlotType.REF: 1}
        originals = []
        for check in (s for s in members if s.slot_type is not SlotType.SYSTEM):
            original = hit.slots[check.original_position]
            assert original.slot_type is SlotType.SYSTEM
            assert original.item == check.item
            assert original.set_index == (set_index + 5) % 10  # the other half of the HIT
            originals.append(check.original_position)
        assert len(set(originals)) == 3


def test_partner_sets_pair_the_two_halves() -> None:
    assert [partner_set(i) for i in range(10)] == [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=70, max_value=800), seed=st.integers(0, 2**31), passes=st.integers(1, 3))
def test_every_hit_has_the_spec_composition(n: int, seed: int, passes: int) -> None:
    plan = assemble(items(n), seed=seed, passes=passes)
    per_pass = -(-n // 70)
    assert len(plan.hits) == per_pass * passes
    assert plan.fill_per_pass == per_pass * 70 - n
    for hit in plan.hits:
        check_hit(hit)
    for pass_index in range(passes):
        ratings = Counter(item for hit in plan.hits if hit.pass_index == pass_index
                          for item in hit.ordinary_items())
        # Every item once per pass; the wrap-around fill gives exactly fill_per_pass items a second rating.
        assert set(ratings) == set(items(n))
        assert Counter(ratings.values()) == +Counter({1: n - plan.fill_per_pass, 2: plan.fill_per_pass})


def test_passes_shuffle_anew() -> None:
    plan = assemble(items(700), seed=5, passes=2)
    first = [hit.ordinary_items() for hit in plan.hits if hit.pass_index == 0]
    second = [hit.ordinary_items() for hit in plan.hits if hit.pass_index == 1]
    assert first != second
    assert sorted(sum(first, [])) == sorted(sum(second, []))


@pytest.mark.parametrize("n", [70, 71, 139, 140, 141])
def test_wrap_around_never_repeats_an_item_in_a_hit(n: int) -> None:
    plan = assemble(items(n), seed=0, passes=3)
    for hit in plan.hits:
        check_hit(hit)


def test_same_inputs_and_seed_give_identical_plans() -> None:
    assert assemble(items(500), seed=42, passes=2) == assemble(items(500), seed=42, passes=2)
    assert assemble(items(500), seed=42).hits != assemble(items(500), seed=43).hits


def test_plan_is_pinned_for_seed_0() -> None:
    """Changing how HITs are assembled changes this digest: bump ASSEMBLY_VERSION when it must change."""
    plan = assemble(items(150), seed=0, passes=2)
    text = repr([(h.index, h.pass_index, [dataclasses.astuple(s) for s in h.slots]) for h in plan.hits])
    assert hashlib.sha256(text.encode()).hexdigest() == PINNED_DIGEST


PINNED_DIGEST = "cbeb34e63ba70aaa6e98dbe699273dcc25e2e33d4ba8fc615d4a6e61e1a84b7d"


@pytest.mark.parametrize("n", [0, 1, 69])
def test_fewer_than_70_items_is_a_clear_error(n: int) -> None:
    with pytest.raises(AssemblyError, match=f"70 distinct ordinary items, but there are only {n}"):
        assemble(items(n), seed=0)


def test_duplicate_items_and_bad_passes_are_refused() -> None:
    with pytest.raises(AssemblyError, match="listed twice"):
        assemble(items(80) + [items(80)[3]], seed=0)
    with pytest.raises(AssemblyError, match="passes must be at least 1"):
        assemble(items(80), seed=0, passes=0)


def _replace_slot(hit: HitPlan, position: int, **changes) -> HitPlan:
    slots = list(hit.slots)
    slots[position] = dataclasses.replace(slots[position], **changes)
    return dataclasses.replace(hit, slots=tuple(slots))


def test_verify_hit_names_what_is_wrong() -> None:
    hit = assemble(items(70), seed=1).hits[0]
    verify_hit(hit)
    system = next(s for s in hit.slots if s.slot_type is SlotType.SYSTEM)
    other = next(s for s in hit.slots if s.slot_type is SlotType.SYSTEM and s.position != system.position
                 and not any(c.original_position == s.position for c in hit.slots))
    check = next(s for s in hit.slots if s.slot_type is SlotType.REPEAT)

    with pytest.raises(AssemblyError, match="HIT 0: composition is 69 SYSTEM, 11 REPEAT"):
        verify_hit(_replace_slot(hit, other.position, slot_type=SlotType.REPEAT,
                                 original_position=system.position))
    with pytest.raises(AssemblyError, match="appears twice among the ordinary slots"):
        verify_hit(_replace_slot(hit, other.position, item=system.item))
    same_half = next(s for s in hit.slots if s.slot_type is SlotType.SYSTEM and s.set_index == check.set_index)
    with pytest.raises(AssemblyError, match="not its partner set"):
        verify_hit(_replace_slot(hit, check.position, item=same_half.item, original_position=same_half.position))
    with pytest.raises(AssemblyError, match="same item"):
        verify_hit(_replace_slot(hit, check.position, item=("nobody", -1)))
    with pytest.raises(AssemblyError, match="no original"):
        verify_hit(_replace_slot(hit, check.position, original_position=None))
