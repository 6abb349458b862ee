"""HIT assembly (docs/method.md §2): ordinary items cut into HITs of 100 slots with hidden quality checks.

Pure: takes the items to rate, a seed and a number of passes, and returns plans (no database).

How a campaign is laid out:

* Each pass shuffles the items with its own generator (seeded from the campaign seed and the pass
  number), cuts the list into sets of 7 and groups ten consecutive sets into one HIT.
* The last HIT of a pass is filled by wrapping around to the start of *that pass's* list. A pass never
  shares a HIT with another pass, so a HIT's 70 ordinary items are 70 distinct positions of one
  shuffled list: with at least 70 items the wrapped-in items come from the first HIT of the pass and can
  never be in the last HIT already. This is what guarantees "never the same item twice in one HIT's
  ordinary slots" across wrap-around and pass boundaries; the price is at most 69 extra ratings per
  pass. Fewer than 70 distinct items cannot fill one HIT without repeating an item and are refused
  with :class:`AssemblyError`.
* Set *i* takes three distinct ordinary items of its partner set (*i* ± 5): a ``BAD_REF`` of the first,
  a ``REPEAT`` of the second and a ``REF`` for the third (a layout may add check types); then each set of
  10 is shuffled, keeping the order of sets. The classic and hardened layouts pick those items at random;
  a targeted layout picks them by each item's automatic score (``scores``, ``hit_builder.layouts.TARGETS``:
  the highest-scored for damaged copies, the lowest-scored for the reference), ties broken at random.

Every HIT is verified (:func:`verify_hit`) before it is returned. Same items (in the same order), seed
and passes give identical plans: the generators are seeded from strings (SHA-512 based, independent of
``PYTHONHASHSEED``) and only ``random.Random.shuffle``/``sample`` are used.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import NoReturn

from da_core.enums import SlotType
from da_core.errors import BuildError
from da_core.layout import SETS_PER_HIT, SLOTS_PER_SET
from hit_builder.layouts import CLASSIC, HIGHEST, LOWEST, TARGETS, Layout

ASSEMBLY_VERSION = 1
ORDINARY_PER_SET = 7
ORDINARY_PER_HIT = SETS_PER_HIT * ORDINARY_PER_SET  # 70
SLOTS_PER_HIT = SETS_PER_HIT * SLOTS_PER_SET  # 100
CHECK_TYPES = (SlotType.BAD_REF, SlotType.REPEAT, SlotType.REF)  # first, second, third partner item
EXPECTED_COUNTS = {SlotType.SYSTEM: 70, SlotType.REPEAT: 10, SlotType.BAD_REF: 10, SlotType.REF: 10}


class AssemblyError(BuildError):
    """The items cannot be assembled into valid HITs, or a HIT failed verification."""


@dataclass(frozen=True)
class SlotPlan:
    """One slot of a planned HIT; ``original_position`` links a check to its ordinary slot."""

    position: int
    set_index: int
    slot_type: SlotType
    item: Hashable
    original_position: int | None = None


@dataclass(frozen=True)
class HitPlan:
    """One planned HIT: 100 slots in serving order, from one pass over the items."""

    index: int
    pass_index: int
    slots: tuple[SlotPlan, ...]

    def ordinary_items(self) -> list[Hashable]:
        return [s.item for s in self.slots if s.slot_type is SlotType.SYSTEM]


@dataclass(frozen=True)
class Assembly:
    """All HITs of a campaign, and how the items were spread over them."""

    hits: tuple[HitPlan, ...]
    items: int
    passes: int
    hits_per_pass: int
    fill_per_pass: int  # items rated once more per pass to fill the last HIT (wrap-around)


def partner_set(set_index: int) -> int:
    """The set whose items are checked in ``set_index``: i+5 for the first half, i−5 for the second."""
    half = SETS_PER_HIT // 2
    return set_index + half if set_index < half else set_index - half


def assemble(items: Sequence[Hashable], *, seed: int, passes: int = 1, layout: Layout = CLASSIC,
             scores: Mapping[Hashable, float] | None = None) -> Assembly:
    """Plan the HITs for ``items`` (distinct, hashable, in a canonical order) per docs/method.md §2 and ``layout``;
    a targeted layout needs every item's automatic ``scores``."""
    per_hit = layout.ordinary_per_hit
    if passes < 1:
        raise AssemblyError(f"passes must be at least 1, got {passes}")
    if layout.targeted:
        unscored = [item for item in items if scores is None or item not in scores]
        if unscored:
            raise AssemblyError(f"the {layout.name} layout chooses check originals by automatic score, but item "
                                f"{unscored[0]!r} has none ({len(unscored)} without a score)")
    if len(set(items)) != len(items):
        duplicated = next(item for item, n in Counter(items).items() if n > 1)
        raise AssemblyError(f"item {duplicated!r} is listed twice; every item must be distinct")
    if len(items) < per_hit:
        raise AssemblyError(
            f"a HIT needs {per_hit} distinct ordinary items, but there are only {len(items)} "
            "(systems × questions); add questions or systems"
        )
    hits_per_pass = math.ceil(len(items) / per_hit)
    fill = hits_per_pass * per_hit - len(items)
    hits: list[HitPlan] = []
    for pass_index in range(passes):
        rng = random.Random(f"da-platform assembly v{ASSEMBLY_VERSION} seed={seed} pass={pass_index}"
                            + ("" if layout is CLASSIC else f" layout={layout.name}"))
        order = list(items)
        rng.shuffle(order)
        order += order[:fill]
        for h in range(hits_per_pass):
            ordinary = order[h * per_hit:(h + 1) * per_hit]
            hit = _plan_hit(len(hits), pass_index, ordinary, rng, layout, scores)
            verify_hit(hit, layout)
            hits.append(hit)
    return Assembly(tuple(hits), len(items), passes, hits_per_pass, fill)


def _plan_hit(index: int, pass_index: int, ordinary: list[Hashable], rng: random.Random,
              layout: Layout = CLASSIC, scores: Mapping[Hashable, float] | None = None) -> HitPlan:
    size = layout.ordinary_per_set
    sets = [ordinary[s * size:(s + 1) * size] for s in range(SETS_PER_HIT)]
    # Entries: (type, item, origin) where origin = (set, index within that set's ordinary list).
    entries_per_set = []
    for s in range(SETS_PER_HIT):
        p = partner_set(s)
        entries = [(SlotType.SYSTEM, item, (s, k)) for k, item in enumerate(sets[s])]
        if layout.targeted:
            assert scores is not None  # (checked by assemble)
            picked = targeted_picks([scores[item] for item in sets[p]], layout, rng)
        else:
            picked = rng.sample(range(size), len(layout.check_types))
        entries += [(kind, sets[p][k], (p, k)) for kind, k in zip(layout.check_types, picked)]
        rng.shuffle(entries)
        entries_per_set.append(entries)
    position_of = {}
    for s, entries in enumerate(entries_per_set):
        for offset, (kind, _item, origin) in enumerate(entries):
            if kind is SlotType.SYSTEM:
                position_of[origin] = s * SLOTS_PER_SET + offset
    slots = tuple(
        SlotPlan(
            position=s * SLOTS_PER_SET + offset,
            set_index=s,
            slot_type=kind,
            item=item,
            original_position=None if kind is SlotType.SYSTEM else position_of[origin],
        )
        for s, entries in enumerate(entries_per_set)
        for offset, (kind, item, origin) in enumerate(entries)
    )
    return HitPlan(index, pass_index, slots)


def targeted_picks(scores: Sequence[float], layout: Layout, rng: random.Random) -> list[int]:
    """Indices of the partner set's items each check of ``layout`` copies (in ``check_types`` order), chosen
    by ``scores`` as ``hit_builder.layouts.TARGETS`` says; equal scores are ordered at random."""
    tie = [rng.random() for _ in scores]
    left = list(range(len(scores)))
    picked = []
    for kind in layout.check_types:
        rule = TARGETS[kind]
        if rule == HIGHEST:
            chosen = max(left, key=lambda i: (scores[i], tie[i]))
        elif rule == LOWEST:
            chosen = min(left, key=lambda i: (scores[i], tie[i]))
        else:
            chosen = left[rng.randrange(len(left))]
        left.remove(chosen)
        picked.append(chosen)
    return picked


def verify_hit(hit: HitPlan, layout: Layout = CLASSIC) -> None:
    """Check one HIT's composition in ``layout`` (docs/method.md §2); raise :class:`AssemblyError` naming what is
    wrong."""
    def fail(message: str) -> NoReturn:
        raise AssemblyError(f"HIT {hit.index}: {message}")

    slots = hit.slots
    if [s.position for s in slots] != list(range(SLOTS_PER_HIT)):
        fail(f"positions must be 0–{SLOTS_PER_HIT - 1} in order")
    counts = Counter(s.slot_type for s in slots)
    expected = layout.hit_counts()
    if counts != expected:
        fail("composition is " + ", ".join(f"{counts[t]} {t.value}" for t in SlotType
                                        if t in counts or t in expected)
             + f" instead of {layout.composition()} ({layout.name} layout)")
    ordinary = hit.ordinary_items()
    if len(set(ordinary)) != len(ordinary):
        duplicated = next(item for item, n in Counter(ordinary).items() if n > 1)
        fail(f"item {duplicated!r} appears twice among the ordinary slots")
    for s in slots:
        if s.set_index != s.position // SLOTS_PER_SET:
            fail(f"slot {s.position} is in set {s.set_index}, expected {s.position // SLOTS_PER_SET}")
    for set_index in range(SETS_PER_HIT):
        members = slots[set_index * SLOTS_PER_SET:(set_index + 1) * SLOTS_PER_SET]
        set_counts = Counter(s.slot_type for s in members)
        if set_counts != layout.set_counts():
            fail(f"set {set_index} does not hold {layout.ordinary_per_set} SYSTEM and one each of "
                 + ", ".join(t.value for t in layout.check_types))
        originals = set()
        for s in members:
            if s.slot_type is SlotType.SYSTEM:
                if s.original_position is not None:
                    fail(f"ordinary slot {s.position} links to an original")
                continue
            if s.original_position is None or not 0 <= s.original_position < SLOTS_PER_HIT:
                fail(f"{s.slot_type.value} slot {s.position} has no original in the HIT")
            original = slots[s.original_position]
            if original.slot_type is not SlotType.SYSTEM or original.item != s.item:
                fail(f"{s.slot_type.value} slot {s.position} does not point at an ordinary slot "
                     "of the same item")
            if original.set_index != partner_set(set_index):
                fail(f"{s.slot_type.value} slot {s.position} (set {set_index}) checks set "
                     f"{original.set_index}, not its partner set {partner_set(set_index)}")
            originals.add(s.original_position)
        if len(originals) != len(layout.check_types):
            fail(f"the checks of set {set_index} do not use {len(layout.check_types)} distinct ordinary items")
