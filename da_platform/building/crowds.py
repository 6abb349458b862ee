"""Who will rate a campaign decides how it is built: one preset per kind of crowd (``build --crowd``).

A preset names the HIT layout, the answer images' render and the quality-control test that suit a crowd
(docs/quality-control.md, "The defaults, and why", has the measurements behind each choice):

- ``paid``: strangers paid per task on MTurk or Prolific, among whom automated raters are expected. The
  default: a researcher who gives no option gets the defences.
- ``pool``: a lab's own pool of known people (``da-platform invite``): nothing to defend against, so
  nothing that costs a reader.
- ``reproduce``: the published method as published (classic layout, plain images, the BAD_REF test), to
  reproduce WMT's or the published QA study's numbers.

An explicit ``--layout``, ``--render`` or ``--qc`` overrides its part of the preset; the campaign stores the
preset and what was overridden (``CampaignSettings.crowd``), and ``build``, ``inspect``, the dashboard and the
launch commands show it.

The :class:`CrowdChoice` (:func:`choose`: a preset and the overrides) is the one source of a build's layout,
render and quality-control policy (``da_platform.building.build.BuildSpec.crowd``). A library caller that builds
without a preset (the demo, tests, benchmarks) gives the parts alone (``CrowdChoice(layout=...)``): no crowd is
recorded then, and no policy unless given.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from analysis.qc_policy import DEFAULT_QC, QCPolicy
from analysis.qc_states import QCMethod
from da_platform.config.build_record import CrowdRecord
from da_platform.config.campaign_settings import CampaignSettings
from hit_builder.layouts import DEFAULT_LAYOUT
from hit_builder.ocr_resistant import HardenedStyle, RenderKind, render_kind, render_style
from hit_builder.render import RenderStyle


class Crowd(str, Enum):
    """The kinds of crowd a campaign is built for."""

    paid = "paid"
    pool = "pool"
    reproduce = "reproduce"


@dataclass(frozen=True)
class CrowdPreset:
    """The layout, render and quality-control policy a campaign for ``crowd`` gets unless told otherwise."""

    crowd: Crowd
    layout: str
    render: RenderStyle
    qc: QCPolicy
    description: str

    def parts(self) -> dict[str, str]:
        return {"layout": self.layout, "render": render_kind(self.render), "qc": self.qc.method.value}


PRESETS: dict[Crowd, CrowdPreset] = {preset.crowd: preset for preset in (
    CrowdPreset(Crowd.paid, "classic", HardenedStyle(), QCPolicy(QCMethod.weighted),
                "strangers paid per task (MTurk, Prolific)"),
    CrowdPreset(Crowd.pool, "classic", RenderStyle(), QCPolicy(QCMethod.weighted), "a lab's own pool of known people"),
    CrowdPreset(Crowd.reproduce, "classic", RenderStyle(), QCPolicy(QCMethod.wilcoxon),
                "the published method, to reproduce WMT's or the published study's numbers"),
)}
DEFAULT_CROWD = Crowd.paid
"""What ``da-platform build`` builds for unless told (``--crowd``)."""
EARLIER_PAID_QC = frozenset({QCMethod.pooled.value})
"""The test earlier versions' ``paid`` preset stored (the pooled test, before the weighted one): a campaign built
with it keeps it (its analysis never changes by itself) and is not warned about at launch."""


@dataclass(frozen=True)
class CrowdChoice:
    """What a campaign is built with: the HIT layout, the answer images' render, the quality-control policy
    stored with it, and the preset they were chosen by with the parts an explicit option overrode
    (:func:`choose`). Without a preset (a library caller's own choice) nothing about a crowd is recorded, and
    ``qc`` None stores no policy (the analysis then applies ``analysis.qc_policy.DEFAULT_QC``)."""

    layout: str = DEFAULT_LAYOUT
    render: RenderStyle = RenderStyle()
    qc: QCPolicy | None = None
    preset: CrowdPreset | None = None

    def parts(self) -> dict[str, str]:
        """Layout, render and test by name."""
        return {"layout": self.layout, "render": render_kind(self.render), "qc": (self.qc or DEFAULT_QC).method.value}

    @property
    def overrides(self) -> dict[str, str]:
        """The parts that differ from the preset: part -> the value used (none without a preset)."""
        if self.preset is None:
            return {}
        preset = self.preset.parts()
        return {part: value for part, value in self.parts().items() if preset[part] != value}

    def record(self) -> CrowdRecord | None:
        """What the campaign stores (``CampaignSettings.crowd``; None without a preset)."""
        return None if self.preset is None else CrowdRecord(self.preset.crowd.value, self.overrides)

    def describe(self) -> str:
        """E.g. ``paid (layout classic, render hardened, weighted test)``, overrides marked."""
        name = "no crowd preset" if self.preset is None else self.preset.crowd.value
        return describe_parts(name, self.parts(), self.overrides)


def choose(crowd: Crowd | str = DEFAULT_CROWD, *, layout: str | None = None, render: RenderKind | str | None = None,
           qc: QCMethod | str | None = None) -> CrowdChoice:
    """The preset for ``crowd``, with each part given explicitly (not None) in its place."""
    try:
        preset = PRESETS[Crowd(crowd)]
    except ValueError:
        raise ValueError(f"unknown crowd {crowd!r}; expected one of {', '.join(c.value for c in Crowd)}") from None
    return CrowdChoice(layout or preset.layout, render_style(render) if render else preset.render,
                       QCPolicy(QCMethod(qc)) if qc is not None else preset.qc, preset)


def describe_parts(preset: str, parts: Mapping[str, str], overrides: Mapping[str, str]) -> str:
    """``preset (layout L, render R, Q test)``, each overridden part followed by ``(set by hand)``."""
    def part(name: str, text: str) -> str:
        return text + (" (set by hand)" if name in overrides else "")

    return (f"{preset} (" + ", ".join([part("layout", f"layout {parts['layout']}"),
                                       part("render", f"render {parts['render']}"),
                                       part("qc", f"{parts['qc']} test")]) + ")")


def stored_parts(settings: CampaignSettings) -> dict[str, str]:
    """The layout, render and quality-control test a campaign was built with, from its stored settings."""
    return {"layout": settings.hit_layout.name,
            "render": RenderKind.hardened if settings.render and settings.render.ocr_resistant else RenderKind.plain,
            "qc": settings.qc_policy.method.value}


def stored_crowd(settings: CampaignSettings) -> str | None:
    """How a campaign's stored settings describe its crowd preset, or None for a campaign built without one
    (before presets, or by the library without one)."""
    if settings.crowd is None:
        return None
    return describe_parts(settings.crowd.preset, stored_parts(settings), settings.crowd.overrides)


def launch_warning(settings: CampaignSettings, provider: str) -> str | None:
    """A warning for launching on a paid crowd (``provider``: mturk or prolific) a campaign built otherwise
    than the ``paid`` preset says; None when it was built as the preset says."""
    paid, used = PRESETS[Crowd.paid].parts(), stored_parts(settings)
    if used["qc"] in EARLIER_PAID_QC:
        used["qc"] = paid["qc"]  # built by an earlier paid preset: its test was measured for paid crowds too
    differ = {part: value for part, value in used.items() if paid[part] != value}
    if not differ:
        return None
    built = (f"built for the {settings.crowd.preset!r} crowd" if settings.crowd
             else "built without a crowd preset")
    parts = ", ".join(f"{part} {value} instead of {paid[part]}" for part, value in differ.items())
    return (f"this campaign was {built}, with {parts}: its defences against automated raters on {provider} are "
            "not the measured ones of --crowd paid (docs/quality-control.md, 'The defaults, and why'); "
            "fine for a reproduction, otherwise rebuild it with --crowd paid")
