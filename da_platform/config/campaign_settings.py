"""A campaign's settings (``Campaign.settings``), typed: the one place that knows their JSON keys.

The settings are one JSON object per campaign. Its keys, in the order a build writes them:

- written once by ``build``: ``assembly``, ``degradation``, ``layout``, ``layout_description``, ``meaning``
  (layouts with meaning-change checks), ``check_originals`` (the targeted layout), ``render``, ``systems``,
  ``abstentions`` (with ``--allow-missing``), ``identical_answers`` (when merging), ``worker`` (the worker
  pages), ``long_answers``, ``id_salt``, ``ids`` (how the build was made: :mod:`.build_record`), and ``qc``
  (the quality-control policy, ``build --qc``; migration 0009 moved it out of older review policies), ``crowd``
  (the crowd preset, ``build --crowd``, and the parts set by hand), ``waves`` (``build --design waves``: the design,
  then one entry per wave added, :mod:`.waves_record`; absent: the fixed design);
- ``review``: the review policy, written by each review run (``mturk|prolific|pool review``);
- ``mturk`` and ``mturk_launch`` (``mturk launch``; ``mturk expire --delete`` adds the deleted HITs),
  ``prolific`` (``prolific launch``), ``pool_time_limit_minutes`` (``invite --time-limit``);
- ``rehearsal``: only in a rehearsal's scratch copy (``da-platform simulate``): of which campaign, the crowd's
  seed and truth, and the reward it was priced at (:class:`RehearsalCopy`); its times are the simulated crowd's.

Reading (:meth:`CampaignSettings.of`) accepts every shape an earlier version stored: any key may be missing
(campaigns built before it existed read its default), and a review policy that still holds the test of quality
control (before migration 0009) is read as that migration reads it. A value that cannot be read is a
:class:`CampaignSettingsError` naming its key and field. Writing (:meth:`CampaignSettings.replace`, then
:meth:`~CampaignSettings.to_json`; :meth:`CampaignSettings.update` for a campaign row) serialises back only
the parts replaced, each where its key was (a new key at the end): the JSON stored is the same, byte for
byte, as each operation wrote before these settings were typed, and what a build recorded is never rewritten.
"""
from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from analysis.qc_policy import DEFAULT_QC, QCPolicy
from da_platform.config.build_record import (
    AssemblyRecord,
    CheckOriginals,
    CrowdRecord,
    LayoutRecord,
    LongAnswersRecord,
    MergeRecord,
    MethodRecord,
    RenderRecord,
)
from da_platform.config.review_policy import ReviewPolicy
from da_platform.config.stored_json import CampaignSettingsError, checked_fields, json_object, number
from da_platform.config.waves_record import WavesRecord
from da_platform.db.models import Campaign
from da_platform.providers.definition import TimeLimit
from da_platform.providers.mturk.settings import MTurkSettings
from da_platform.providers.pool import DEFAULT_POOL_TIME_LIMIT_MINUTES
from da_platform.providers.prolific.settings import ProlificSettings
from da_platform.providers.registry import SOURCES
from hit_builder.layouts import CLASSIC, Layout, layout_named
from hit_builder.worker_settings import WorkerPage

REDACTED = ("id_salt",)
"""Keys left out of what leaves the platform (the bundle): the salt maps public ids back to slots."""
_LEGACY_QC = ("qc_method", "qc_alpha")  # in the review policy until migration 0009
__all__ = ["CampaignSettings", "CampaignSettingsError", "DEFAULT_POOL_TIME_LIMIT_MINUTES", "MTurkLaunch",
           "RehearsalCopy", "TimeLimits", "TIME_LIMITS", "REDACTED"]


@dataclass(frozen=True)
class MTurkLaunch:
    """Where the campaign's HITs were created on MTurk: the HIT type, live or sandbox, the HITs deleted since."""

    hit_type_id: str | None = None
    live: bool | None = None
    deleted_hits: tuple[str, ...] | None = None  # None: ``mturk expire`` never ran

    def __post_init__(self) -> None:
        if self.deleted_hits is not None:
            object.__setattr__(self, "deleted_hits", tuple(self.deleted_hits))

    def to_json(self) -> dict[str, Any]:
        return {f.name: list(value) if isinstance(value, tuple) else value
                for f in fields(self) if (value := getattr(self, f.name)) is not None}

    @classmethod
    def from_json(cls, data: object) -> MTurkLaunch:
        return _from_fields(cls, data, "MTurk launch")


def _from_fields(cls: Any, data: object, what: str) -> Any:
    """A dataclass of the fields of the JSON object ``data``, checked (``stored_json.checked_fields``); an unknown
    field is a ``ValueError`` naming ``what``."""
    data = checked_fields(cls, data, f"the {what}")
    unknown = sorted(set(data) - {f.name for f in fields(cls)})
    if unknown:
        raise ValueError(f"unknown {what} field(s): {', '.join(unknown)}")
    return cls(**data)


@dataclass(frozen=True)
class RehearsalCopy:
    """A rehearsal's scratch copy of a campaign (``da-platform simulate``): what it rehearsed and how. Its
    assignments' times are the simulated crowd's clock (a worker's pace, not the time the rehearsal took), so the
    dashboard measures no rate and projects no finish from them."""

    of: str  # the campaign rehearsed (in the live database)
    seed: int
    truth: str  # metric:NAME or labels:FILE
    reward: str | None = None  # --reward PROVIDER:AMOUNT it was priced at (stored as the provider's settings too)

    def to_json(self) -> dict[str, Any]:
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}

    @classmethod
    def from_json(cls, data: object) -> RehearsalCopy:
        return _from_fields(cls, data, "rehearsal copy")

    def describe(self) -> str:
        """``a rehearsal of campaign 'x' (da-platform simulate, seed 1, truth metric:rouge-l, priced at
        mturk:2.00)``."""
        priced = f", priced at {self.reward}" if self.reward else ""
        return (f"a rehearsal of campaign {self.of!r} (da-platform simulate, seed {self.seed}, truth "
                f"{self.truth}{priced})")


TIME_LIMITS: Mapping[str, TimeLimit] = {name: source.time_limit for name, source in SOURCES.items()}
"""Per worker source: where its time limit for one HIT is stored, its unit and its default (each source's
definition says; the SQL of ``da_platform.config.time_limits`` reads the same paths)."""


@dataclass(frozen=True)
class TimeLimits:
    """The time limit for one HIT per worker source, as stored (None: the source's default)."""

    stored: Mapping[str, float | None] = field(default_factory=dict)

    def seconds(self, source: str) -> float | None:
        """Seconds a worker from ``source`` has for one HIT (None: a source without a limit)."""
        if source not in TIME_LIMITS:
            return None
        limit, value = TIME_LIMITS[source], self.stored.get(source)
        return (limit.default if value is None else value) * limit.unit

    @classmethod
    def of(cls, stored: Mapping[str, Any] | None) -> TimeLimits:
        """The limits from a campaign's stored settings JSON, reading nothing else (a worker's every rating
        asks for them)."""
        values: dict[str, float | None] = {}
        for source, limit in TIME_LIMITS.items():
            value: Any = stored or {}
            for key in limit.path:
                value = value.get(key) if isinstance(value, Mapping) else None
            if value is not None:
                value = _read(limit.path[0], lambda v: number(v, limit.path[-1]), value)  # noqa: B023 (called at once)
            values[source] = value
        return cls(values)


def _names(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValueError(f"must be a list of names, not {value!r}")
    return tuple(value)


def _abstentions(value: object) -> dict[str, tuple[str, ...]]:
    return {str(system): _names(questions) for system, questions in json_object(value, "it").items()}


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be a text, not {value!r}")
    return value


def _policy(cls: Any, what: str) -> Any:
    return lambda value: cls.from_dict(checked_fields(cls, value, what))


def _review(value: object) -> ReviewPolicy:
    data = {k: v for k, v in json_object(value, "the review policy").items() if k not in _LEGACY_QC}
    return ReviewPolicy.from_dict(checked_fields(ReviewPolicy, data, "the review policy"))


def _legacy_qc(stored: Mapping[str, Any]) -> QCPolicy | None:
    """The quality-control policy of a review policy stored before migration 0009 (read as it reads it)."""
    review = stored.get("review")
    if stored.get("qc") is not None or not isinstance(review, Mapping) or not any(k in review for k in _LEGACY_QC):
        return None
    return QCPolicy(review.get("qc_method", DEFAULT_QC.method.value), review.get("qc_alpha", DEFAULT_QC.alpha))


_READERS: dict[str, Any] = {
    "assembly": AssemblyRecord.from_json, "degradation": MethodRecord.from_json, "layout": layout_named,
    "layout_description": LayoutRecord.from_json, "meaning": MethodRecord.from_json,
    "check_originals": CheckOriginals.from_json, "render": RenderRecord.from_json, "systems": _names,
    "abstentions": _abstentions, "identical_answers": MergeRecord.from_json, "worker": WorkerPage.from_json,
    "long_answers": LongAnswersRecord.from_json, "id_salt": _text, "ids": _text,
    "qc": _policy(QCPolicy, "the quality-control policy"), "crowd": CrowdRecord.from_json,
    "waves": WavesRecord.from_json, "review": _review,
    "mturk": _policy(MTurkSettings, "the MTurk settings"), "mturk_launch": MTurkLaunch.from_json,
    "prolific": _policy(ProlificSettings, "the Prolific settings"),
    "pool_time_limit_minutes": lambda value: number(value, "pool_time_limit_minutes"),
    "rehearsal": RehearsalCopy.from_json,
}


def _read(key: str, reader: Any, value: object) -> Any:
    try:
        return reader(value)
    except (TypeError, ValueError) as error:
        raise CampaignSettingsError(f"campaign settings {key!r}: {error}") from None


def _json(value: Any) -> Any:
    """A part as stored."""
    if isinstance(value, Layout):
        return value.name
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):  # abstentions: system -> questions
        return {key: _json(item) for key, item in value.items()}
    for method in ("to_json", "to_dict"):
        if hasattr(value, method):
            return getattr(value, method)()
    return value


STORED_FIELDS = {"layout": "stored_layout", "qc": "stored_qc", "review": "stored_review", "mturk": "stored_mturk",
                 "prolific": "stored_prolific"}
"""JSON key -> field, for the parts read through a property that gives a default (``stored_qc`` is the policy stored
or None, ``qc_policy`` the policy that applies); every other field is named as its key."""


def _field(key: str) -> str:
    return STORED_FIELDS.get(key, key)


@dataclass(frozen=True)
class CampaignSettings:
    """Everything a campaign stores about itself (see the module docstring); None: not stored.

    The fields are the JSON keys, in the order a build writes them; a part that has a default is a field
    ``stored_<key>`` (None: not stored) read through its property (:attr:`hit_layout`, :attr:`qc_policy`,
    :attr:`review_policy`, :attr:`mturk_settings`, :attr:`prolific_settings`: the part stored, else its default)."""

    assembly: AssemblyRecord | None = None
    degradation: MethodRecord | None = None
    stored_layout: Layout | None = None  # None: built before layouts existed (classic)
    layout_description: LayoutRecord | None = None
    meaning: MethodRecord | None = None
    check_originals: CheckOriginals | None = None
    render: RenderRecord | None = None
    systems: tuple[str, ...] | None = None
    abstentions: Mapping[str, tuple[str, ...]] | None = None  # system -> the questions it did not answer
    identical_answers: MergeRecord | None = None
    worker: WorkerPage = WorkerPage()
    long_answers: LongAnswersRecord | None = None
    id_salt: str | None = None
    ids: str | None = None
    stored_qc: QCPolicy | None = None
    crowd: CrowdRecord | None = None  # None: built without a crowd preset (before presets, or by the library)
    waves: WavesRecord | None = None  # None: the fixed design
    stored_review: ReviewPolicy | None = None
    stored_mturk: MTurkSettings | None = None
    mturk_launch: MTurkLaunch | None = None
    stored_prolific: ProlificSettings | None = None
    pool_time_limit_minutes: float | None = None
    rehearsal: RehearsalCopy | None = None  # only in a rehearsal's scratch copy
    _stored: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)  # as read (None: new)
    _written: tuple[str, ...] = field(default=(), repr=False, compare=False)  # keys replaced since

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The JSON keys, in the order a build writes them."""
        keys = {field: key for key, field in STORED_FIELDS.items()}
        return tuple(keys.get(f.name, f.name) for f in fields(cls) if not f.name.startswith("_"))

    @classmethod
    def from_json(cls, stored: Mapping[str, Any] | None) -> CampaignSettings:
        """The settings stored as ``stored`` (None or {}: a campaign that stored none). Keys this version does
        not know are kept as they are; a value it cannot read is a :class:`CampaignSettingsError`."""
        if not isinstance(stored, Mapping | None):
            raise CampaignSettingsError(f"campaign settings must be a JSON object, not {stored!r}")
        data = stored or {}
        parts = {key: _read(key, _READERS[key], data[key]) for key in cls.keys() if data.get(key) is not None}
        if "qc" not in parts and (legacy := _read("review", _legacy_qc, data)) is not None:
            parts["qc"] = legacy
        return cls(**{_field(key): value for key, value in parts.items()}, _stored=data)

    @classmethod
    def of(cls, campaign: Campaign) -> CampaignSettings:
        """The settings of a campaign row."""
        return cls.from_json(campaign.settings)

    def replace(self, **parts: Any) -> CampaignSettings:
        """These settings with ``parts`` replaced (by key; None removes one): :meth:`to_json` writes them."""
        unknown = sorted(set(parts) - set(self.keys()))
        if unknown:
            raise TypeError(f"no campaign setting(s) {', '.join(unknown)}")
        written = self._written + tuple(key for key in parts if key not in self._written)
        return dataclasses.replace(self, **{_field(key): value for key, value in parts.items()}, _written=written)

    def to_json(self) -> dict[str, Any]:
        """The JSON to store: as read, with the replaced parts serialised in place (a new key at the end);
        new settings (a build's): every part set, in the order of :meth:`keys`."""
        if self._stored is None:
            return {key: _json(value) for key in self.keys() if (value := self.part(key)) is not None}
        stored = copy.deepcopy(dict(self._stored))
        for key in self._written:
            value = self.part(key)
            if value is None:
                stored.pop(key, None)
            else:
                stored[key] = _json(value)
        return stored

    def public_json(self) -> dict[str, Any]:
        """:meth:`to_json` with the :data:`REDACTED` keys' values replaced by ``"(redacted)"``."""
        return {key: "(redacted)" if key in REDACTED else value for key, value in self.to_json().items()}

    @classmethod
    def update(cls, campaign: Campaign, **parts: Any) -> CampaignSettings:
        """Replace ``parts`` of a campaign row's settings and store them on the row (the caller commits)."""
        settings = cls.of(campaign).replace(**parts)
        campaign.settings = settings.to_json()
        return settings

    def part(self, key: str) -> Any:
        """The part stored under JSON key ``key`` (None: not stored)."""
        return getattr(self, _field(key))

    @property
    def hit_layout(self) -> Layout:
        """The HIT layout (campaigns built before layouts existed: classic)."""
        return self.stored_layout or CLASSIC

    @property
    def qc_policy(self) -> QCPolicy:
        """The quality-control policy stored, else the platform's default (``DEFAULT_QC``)."""
        return self.stored_qc or DEFAULT_QC

    @property
    def review_policy(self) -> ReviewPolicy:
        """The review policy last used, else the default one."""
        return self.stored_review or ReviewPolicy()

    @property
    def mturk_settings(self) -> MTurkSettings:
        """The MTurk settings stored (at the last launch), else the defaults."""
        return self.stored_mturk or MTurkSettings()

    @property
    def prolific_settings(self) -> ProlificSettings:
        """The Prolific settings stored (at the last launch), else the defaults."""
        return self.stored_prolific or ProlificSettings()

    @property
    def time_limits(self) -> TimeLimits:
        """The time limit for one HIT per worker source (each read at its source's path, as stored)."""
        def stored(path: tuple[str, ...]) -> float | None:
            value: Any = self.part(path[0])
            for name in path[1:]:
                value = getattr(value, name, None)
            return value

        return TimeLimits({name: stored(limit.path) for name, limit in TIME_LIMITS.items()})
