"""The HITs of one wave of a campaign run in waves (docs/method.md §12): ordinary items drawn per system by the
wave's mix, laid out with the layout's checks exactly as a fixed campaign's HITs (docs/method.md §2).

Pure, like :mod:`hit_builder.assembly`: it takes the candidate items of each system, each system's share of a
HIT's ordinary slots and how often each item has been planned so far, and returns verified HIT plans.

* **How many slots per system.** Each HIT has the layout's ordinary slots (70 classic, 60 hardened/targeted).
  ``spread`` turns the shares into whole slots HIT by HIT, carrying each system's rounding error into the next
  HIT, so that over the wave every system's total is within one slot of its exact share; a system the wave must
  rate (``at_least_one``) has at least one slot in every HIT.
* **Which items.** Each system's items are taken least planned first (an item not yet in the campaign before
  one rated once, and so on), ties in a random order drawn from the seed; the list is cycled, so an item is
  planned again only once every item of its system has been planned as often. No item is twice among one
  HIT's ordinary slots (a system with fewer items than its slots in a HIT is refused).
* **The HIT.** The HIT's ordinary items are shuffled and cut into sets as :func:`hit_builder.assembly.assemble`
  does; each set gets its checks from its partner set (``BAD_REF``, ``REPEAT``, ``REF`` and the layout's
  others), and every HIT is verified (:func:`hit_builder.assembly.verify_hit`).

The same inputs, seed and wave number give identical plans.
"""
from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from hit_builder.assembly import ASSEMBLY_VERSION, AssemblyError, HitPlan, _plan_hit, verify_hit
from hit_builder.layouts import CLASSIC, Layout


@dataclass(frozen=True)
class WaveAssembly:
    """The HITs of one wave and the ordinary slots each system got."""

    wave: int
    hits: tuple[HitPlan, ...]
    slots_per_system: Mapping[str, int]


def spread(shares: Mapping[str, float], slots: int, hits: int, *,
           at_least_one: Sequence[str] = ()) -> list[dict[str, int]]:
    """Whole ordinary slots per system for each of ``hits`` HITs of ``slots`` slots, following ``shares``
    (normalised here); each HIT's rounding error is carried into the next one."""
    total = sum(w for w in shares.values() if w > 0)
    if total <= 0:
        raise AssemblyError("a wave needs at least one system with a positive share")
    needed = [s for s in at_least_one if s in shares]
    if len(needed) > slots:
        raise AssemblyError(f"{len(needed)} systems must each have a slot, but a HIT has {slots} ordinary slots")
    exact = {s: slots * w / total for s, w in shares.items() if w > 0}
    carry = dict.fromkeys(exact, 0.0)
    counts_per_hit = []
    for _ in range(hits):
        target = {s: exact[s] + carry[s] for s in exact}
        counts = {s: max(0, math.floor(v)) for s, v in target.items()}
        for s in needed:
            counts[s] = max(counts[s], 1)
        left = slots - sum(counts.values())
        for s in sorted(target, key=lambda s: (-(target[s] - counts[s]), s)):
            if left <= 0:
                break
            counts[s] += 1
            left -= 1
        while left < 0:  # the minimum of one slot overshot: take from those furthest above their target
            donor = min((s for s in counts if counts[s] > (1 if s in needed else 0)),
                        key=lambda s: (target[s] - counts[s], s))
            counts[donor] -= 1
            left += 1
        for s in exact:
            carry[s] = target[s] - counts[s]
        counts_per_hit.append({s: n for s, n in counts.items() if n > 0})
    return counts_per_hit


def assemble_wave(items: Mapping[str, Sequence[Hashable]], shares: Mapping[str, float], hits: int, *, seed: int,
                  wave: int, first_index: int, layout: Layout = CLASSIC, planned: Mapping[Hashable, int] | None = None,
                  scores: Mapping[Hashable, float] | None = None,
                  at_least_one: Sequence[str] = ()) -> WaveAssembly:
    """Plan the ``hits`` HITs of wave ``wave`` (numbered from ``first_index``; see the module docstring).

    ``items[system]``: the system's items in a canonical order (distinct, hashable, shared by no other system);
    ``planned[item]``: how many ordinary slots the campaign has given the item so far; ``scores``: every item's
    automatic score, for a targeted layout."""
    if hits < 1:
        raise AssemblyError(f"a wave needs at least one HIT, got {hits}")
    unknown = sorted(set(shares) - set(items))
    if unknown:
        raise AssemblyError(f"no items for system(s) {', '.join(map(str, unknown))}")
    if layout.targeted:
        missing = [i for s in shares for i in items[s] if scores is None or i not in scores]
        if missing:
            raise AssemblyError(f"the {layout.name} layout chooses check originals by automatic score, but item "
                                f"{missing[0]!r} has none ({len(missing)} without a score)")
    planned = planned or {}
    rng = random.Random(f"da-platform wave assembly v{ASSEMBLY_VERSION} seed={seed} wave={wave} layout={layout.name}")
    per_hit = spread(shares, layout.ordinary_per_hit, hits, at_least_one=at_least_one)
    queues = {}
    for system in sorted(shares):
        candidates = list(items[system])
        tie = {item: rng.random() for item in candidates}
        queues[system] = sorted(candidates, key=lambda i: (planned.get(i, 0), tie[i]))
        most = max(c.get(system, 0) for c in per_hit)
        if most > len(candidates):
            raise AssemblyError(f"system {system!r} has {len(candidates)} items, fewer than the {most} ordinary "
                                "slots a HIT of this wave gives it (an item is never twice in one HIT)")
    position = dict.fromkeys(queues, 0)
    plans: list[HitPlan] = []
    totals: dict[str, int] = {}
    for h, counts in enumerate(per_hit):
        ordinary: list[Hashable] = []
        for system in sorted(counts):
            queue, start, n = queues[system], position[system], counts[system]
            ordinary += [queue[(start + k) % len(queue)] for k in range(n)]
            position[system] = start + n
            totals[system] = totals.get(system, 0) + n
        rng.shuffle(ordinary)
        plan = _plan_hit(first_index + h, wave, ordinary, rng, layout, scores)
        verify_hit(plan, layout)
        plans.append(plan)
    return WaveAssembly(wave, tuple(plans), totals)
