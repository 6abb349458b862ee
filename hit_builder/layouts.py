"""HIT layouts: how many ordinary items and which hidden checks each set of 10 slots holds.

* ``classic``: the published method (docs/method.md §2): per set 7 ``SYSTEM`` + ``BAD_REF``, ``REPEAT``, ``REF`` of
  the partner set's items, so 70/10/10/10 per HIT. It reproduces WMT's releases.
* ``hardened``: per set 6 ``SYSTEM`` + ``BAD_REF``, ``REPEAT``, ``REF`` and a ``MEANING`` check (the
  answer with its meaning changed but most words kept, see :mod:`hit_builder.meaning`), so
  60/10/10/10/10 per HIT: ten meaning pairs per HIT against raters who score by text overlap, at the
  price of 10 ordinary ratings per HIT.
* ``targeted``: the hardened composition, with each check's original chosen where a person's judgement
  is certain (method §2.9): the ``BAD_REF`` and ``MEANING`` copies are made of the partner set's answers
  with the highest automatic score (closest to the reference: a person rates them well, so the damaged
  copy must score lower), the ``REF`` is shown for the question of its lowest-scored answer (a person
  rates the reference higher), the ``REPEAT`` repeats a random one of the rest. Classic and hardened
  choose all three at random.

Every layout keeps 10 sets of 10 slots, the partner-set rule and "distinct ordinary items per HIT";
:func:`hit_builder.assembly.verify_hit` checks a HIT against its layout.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from da_core.enums import SlotType
from da_core.layout import SETS_PER_HIT, SLOTS_PER_SET

#: How a ``targeted`` layout picks each check's original among the partner set's ordinary items, by their
#: automatic score: the highest-scored left, the lowest-scored left, or any of those left (at random).
HIGHEST, LOWEST, ANY = "highest", "lowest", "random"
TARGETS = {SlotType.BAD_REF: HIGHEST, SlotType.MEANING: HIGHEST, SlotType.REF: LOWEST, SlotType.REPEAT: ANY}


@dataclass(frozen=True)
class Layout:
    """One HIT layout: its name, ordinary slots per set and the checks added to each set, in pick order;
    ``targeted``: originals chosen by the items' automatic scores (``TARGETS``) instead of at random."""

    name: str
    ordinary_per_set: int
    check_types: tuple[SlotType, ...]
    description: str
    targeted: bool = False

    def __post_init__(self) -> None:
        if self.ordinary_per_set + len(self.check_types) != SLOTS_PER_SET:
            raise ValueError(f"layout {self.name!r} does not fill its sets of {SLOTS_PER_SET} slots")

    @property
    def ordinary_per_hit(self) -> int:
        return SETS_PER_HIT * self.ordinary_per_set

    def set_counts(self) -> Counter:
        """Slot types of one set of 10."""
        return Counter({SlotType.SYSTEM: self.ordinary_per_set, **{t: 1 for t in self.check_types}})

    def hit_counts(self) -> dict[SlotType, int]:
        """Slot types of one HIT."""
        return {t: n * SETS_PER_HIT for t, n in self.set_counts().items()}

    def composition(self) -> str:
        """E.g. ``"70 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF"``."""
        return ", ".join(f"{n} {t.value}" for t, n in self.hit_counts().items())

    def describe(self) -> dict:
        """What goes into ``Campaign.settings["layout_description"]``."""
        originals = {t.value: TARGETS[t] for t in self.check_types}
        return {"name": self.name, "sets_per_hit": SETS_PER_HIT, "slots_per_set": SLOTS_PER_SET,
                "ordinary_per_set": self.ordinary_per_set, "checks_per_set": [t.value for t in self.check_types],
                "per_hit": {t.value: n for t, n in self.hit_counts().items()}, "description": self.description,
                **({"originals_by_score": originals} if self.targeted else {})}


CLASSIC = Layout("classic", 7, (SlotType.BAD_REF, SlotType.REPEAT, SlotType.REF),
                 "the published method (70 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF); reproduces WMT")
HARDENED = Layout("hardened", 6, (SlotType.BAD_REF, SlotType.REPEAT, SlotType.REF, SlotType.MEANING),
                  "60 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF, 10 MEANING: meaning-change checks against "
                  "raters who score by text overlap")
TARGETED = Layout("targeted", 6, (SlotType.BAD_REF, SlotType.MEANING, SlotType.REF, SlotType.REPEAT),
                  "60 SYSTEM, 10 BAD_REF, 10 MEANING, 10 REF, 10 REPEAT, checks made where a person's judgement "
                  "is certain: damaged copies of the best-scored answers, the reference beside the worst-scored",
                  targeted=True)
LAYOUTS = {layout.name: layout for layout in (CLASSIC, HARDENED, TARGETED)}
DEFAULT_LAYOUT = CLASSIC.name
"""The library's default (``build_campaign``): the published method, which reproduces WMT's releases. What
``da-platform build`` uses depends on the crowd it builds for (``da_platform.building.crowds``)."""


def layout_named(name: str) -> Layout:
    """The layout called ``name``; ValueError listing the known ones otherwise."""
    try:
        return LAYOUTS[name]
    except KeyError:
        raise ValueError(f"unknown HIT layout {name!r}; choose one of {', '.join(LAYOUTS)}") from None
