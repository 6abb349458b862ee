"""A wave's HITs (hit_builder.waves): the mix spread over HITs, items least planned first, every HIT verified."""
from __future__ import annotations

from collections import Counter

import pytest

from da_core.enums import SlotType
from hit_builder.assembly import AssemblyError
from hit_builder.layouts import CLASSIC, HARDENED, TARGETED
from hit_builder.waves import assemble_wave, spread

SYSTEMS = ("A", "B", "C", "D")
ITEMS = {s: [(s, f"q{q:03d}") for q in range(100)] for s in SYSTEMS}


def test_spread_gives_each_hit_its_slots_and_each_system_its_share_within_one_slot():
    shares = {"A": 0.5, "B": 0.3, "C": 0.15, "D": 0.05}
    per_hit = spread(shares, 70, 9)
    assert all(sum(counts.values()) == 70 for counts in per_hit)
    totals = Counter()
    for counts in per_hit:
        totals.update(counts)
    # 9 HITs × 70 slots = 630: A 315, B 189, C 94.5, D 31.5 exactly.
    for system, exact in {"A": 315, "B": 189, "C": 94.5, "D": 31.5}.items():
        assert abs(totals[system] - exact) <= 1


def test_spread_keeps_one_slot_for_each_system_that_must_have_one():
    per_hit = spread({"A": 0.99, "B": 0.005, "C": 0.005}, 70, 4, at_least_one=["B", "C"])
    assert all(counts["B"] >= 1 and counts["C"] >= 1 and sum(counts.values()) == 70 for counts in per_hit)


def test_spread_refuses_no_share_and_too_many_systems():
    with pytest.raises(AssemblyError, match="positive share"):
        spread({"A": 0.0}, 70, 1)
    with pytest.raises(AssemblyError, match="must each have a slot"):
        spread({f"S{i}": 1.0 for i in range(3)}, 2, 1, at_least_one=["S0", "S1", "S2"])


def test_a_wave_has_the_layouts_checks_and_no_item_twice_in_a_hit():
    wave = assemble_wave(ITEMS, {"A": 0.4, "B": 0.4, "C": 0.1, "D": 0.1}, 6, seed=1, wave=2, first_index=10)
    assert [hit.index for hit in wave.hits] == list(range(10, 16))
    for hit in wave.hits:
        kinds = Counter(slot.slot_type for slot in hit.slots)
        assert kinds == {SlotType.SYSTEM: 70, SlotType.BAD_REF: 10, SlotType.REPEAT: 10, SlotType.REF: 10}
        ordinary = hit.ordinary_items()
        assert len(set(ordinary)) == 70
        for slot in hit.slots:
            if slot.slot_type is not SlotType.SYSTEM:
                assert hit.slots[slot.original_position].item == slot.item
    counted = Counter(item[0] for hit in wave.hits for item in hit.ordinary_items())
    assert dict(counted) == dict(wave.slots_per_system)
    assert counted["A"] == pytest.approx(0.4 * 420, abs=1) and counted["D"] == pytest.approx(0.1 * 420, abs=1)


def test_items_not_yet_planned_come_first_and_an_item_is_planned_again_only_after_all_others():
    planned = {item: 1 for item in ITEMS["A"][:60]}  # 40 of A's items have never been planned
    wave = assemble_wave(ITEMS, {"A": 1.0}, 2, seed=3, wave=2, first_index=0, planned=planned)
    used = [item for hit in wave.hits for item in hit.ordinary_items()]
    assert len(used) == 140
    first_40 = {i for i in used if planned.get(i, 0) == 0}
    assert first_40 == set(ITEMS["A"][60:])  # all 40 unplanned items are in the wave
    again = Counter(used)
    assert max(again.values()) == 2 and sum(1 for n in again.values() if n == 2) == 40  # 140 = 100 + 40


def test_the_same_inputs_and_seed_give_the_same_wave_and_another_seed_another():
    shares = {"A": 0.25, "B": 0.25, "C": 0.25, "D": 0.25}
    one = assemble_wave(ITEMS, shares, 3, seed=5, wave=1, first_index=0)
    two = assemble_wave(ITEMS, shares, 3, seed=5, wave=1, first_index=0)
    other = assemble_wave(ITEMS, shares, 3, seed=6, wave=1, first_index=0)
    assert one == two
    assert one != other


def test_hardened_and_targeted_layouts_keep_their_composition():
    scores = {item: float(k % 7) for items in ITEMS.values() for k, item in enumerate(items)}
    for layout in (HARDENED, TARGETED):
        wave = assemble_wave(ITEMS, {"A": 0.7, "B": 0.3}, 2, seed=2, wave=3, first_index=0, layout=layout,
                             scores=scores)
        for hit in wave.hits:
            assert Counter(slot.slot_type for slot in hit.slots) == layout.hit_counts()


def test_a_system_with_too_few_items_for_its_slots_is_refused():
    few = {"A": ITEMS["A"][:30], "B": ITEMS["B"]}
    with pytest.raises(AssemblyError, match="system 'A' has 30 items"):
        assemble_wave(few, {"A": 0.9, "B": 0.1}, 1, seed=0, wave=2, first_index=0)


def test_bad_waves_are_refused():
    with pytest.raises(AssemblyError, match="at least one HIT"):
        assemble_wave(ITEMS, {"A": 1.0}, 0, seed=0, wave=1, first_index=0)
    with pytest.raises(AssemblyError, match="no items for system"):
        assemble_wave(ITEMS, {"Z": 1.0}, 1, seed=0, wave=1, first_index=0)
    with pytest.raises(AssemblyError, match="automatic score"):
        assemble_wave(ITEMS, {"A": 1.0}, 1, seed=0, wave=1, first_index=0, layout=TARGETED)
    assert CLASSIC.ordinary_per_hit == 70
