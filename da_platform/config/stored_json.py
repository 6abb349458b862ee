"""Reading stored JSON values with a type each: a wrong one is a ``ValueError`` that names the field.

Used by the campaign's settings (:mod:`da_platform.config.campaign_settings`) and its build records
(:mod:`da_platform.config.build_record`); the keys themselves are theirs.
"""
from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from decimal import Decimal
from enum import Enum
from types import NoneType, UnionType
from typing import Any

_MISSING = object()


class CampaignSettingsError(ValueError):
    """A stored value of a campaign's settings that cannot be read; the message names its key.

    (Here, beside the readers, so that the command line can catch it without importing the settings.)"""


def json_object(value: object, what: str) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else a ``ValueError`` saying what it should have been."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must be a JSON object, not {value!r}")
    return value


def whole(data: Mapping[str, Any], name: str, default: Any = _MISSING) -> Any:
    """The whole number ``data[name]``; ``default`` when there is none (without a default: required)."""
    value = _present(data, name, default)
    if value is not default and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{name!r} must be a whole number, not {value!r}")
    return value


def text(data: Mapping[str, Any], name: str, default: Any = _MISSING) -> Any:
    """The text ``data[name]``; ``default`` when there is none (without a default: required)."""
    value = _present(data, name, default)
    if value is not default and not isinstance(value, str):
        raise ValueError(f"{name!r} must be a text, not {value!r}")
    return value


def _present(data: Mapping[str, Any], name: str, default: Any) -> Any:
    if data.get(name) is not None:
        return data[name]
    if default is _MISSING:
        raise ValueError(f"{name!r} is missing")
    return default


def number(value: object, name: str) -> float:
    """A JSON number (not a boolean) as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name!r} must be a number, not {value!r}")
    return float(value)


def checked_fields(cls: type, data: object, what: str) -> Mapping[str, Any]:
    """``data`` (a JSON object of ``cls``' dataclass fields) with each value of the JSON type its field's
    annotation allows: the field named, not a ``TypeError`` deep inside ``cls``. Unknown keys are left for
    ``cls.from_dict`` to refuse; the values themselves are ``cls``' to check."""
    data = json_object(data, what)
    hints = _hints(cls)
    for name, value in data.items():
        if name in hints and not _allowed(hints[name], value):
            raise ValueError(f"{what} field {name!r}: {value!r} is not {_describe(hints[name])}")
    return data


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """``cls``' resolved field annotations (resolved once: the worker pages read settings on every page)."""
    return typing.get_type_hints(cls)


def _allowed(hint: Any, value: object) -> bool:
    if isinstance(hint, UnionType) or typing.get_origin(hint) is typing.Union:
        return any(_allowed(option, value) for option in typing.get_args(hint))
    origin = typing.get_origin(hint)
    if origin is tuple:
        (item, *_) = typing.get_args(hint)
        return isinstance(value, (list, tuple)) and all(_allowed(item, v) for v in value)
    if hint is NoneType:
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is Decimal:  # money and rates are stored as strings; whole numbers are exact too
        return isinstance(value, (str, int, Decimal)) and not isinstance(value, bool)
    if hint is str or (isinstance(hint, type) and issubclass(hint, Enum)):
        return isinstance(value, str)
    return True  # anything else: its class checks it


def _describe(hint: Any) -> str:
    names = {bool: "true or false", int: "a whole number", float: "a number", str: "a text",
             Decimal: "an amount (a text such as '1.50')", NoneType: "null"}
    if isinstance(hint, UnionType) or typing.get_origin(hint) is typing.Union:
        return " or ".join(_describe(option) for option in typing.get_args(hint))
    if typing.get_origin(hint) is tuple:
        return f"a list of {_describe(typing.get_args(hint)[0])}s"
    return names.get(hint, "a text" if isinstance(hint, type) and issubclass(hint, Enum) else str(hint))
