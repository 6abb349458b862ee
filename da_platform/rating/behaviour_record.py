"""The behaviour record a worker's page sends with each rating (docs/quality-control.md#behaviour-record), read
strictly.

The page's script (``da_platform/static/behaviour.js``) sends one form field ``behaviour``: a JSON object of at
most ``MAX_BYTES`` bytes naming the slot it was recorded for and counting what happened while that
item was shown (see ``FIELDS``). The server keeps only those whitelisted integers, and the optional
fields when present (pages older than a field do not send it, and their records stay valid): whether
the item's pictures loaded (``IMAGES_LOADED``) and whether the browser showed traces of automation
(``TRACES``). Nothing that could identify a person (no user agent, no address, no event positions or
key values).

A rating is always accepted; its record is stored with a ``BehaviourStatus``: ``valid``, or why there
is no valid record (missing, invalid, oversized, or ``mismatched`` when it names another slot, e.g. a
record replayed from another rating). Having no valid record is itself evidence for quality control.
"""
from __future__ import annotations

import json
from typing import Any

from da_platform.db.models import BehaviourStatus

MAX_BYTES = 2048
VERSION = 1
COUNTS = ("pointer", "touch", "key", "paste", "copy")
"""Events counted while the item was shown (pointer and touch interactions, and key presses, on the slider)."""
DURATIONS = ("hidden_ms", "blur_ms", "shown_ms")
"""Milliseconds the page was hidden, the window unfocused, and the item shown (until the rating was sent)."""
FIELDS = ("first_input_ms", *COUNTS, *DURATIONS)
"""What is stored of a valid record (with ``v``, and the optional fields it reports): ``first_input_ms`` is null
when nothing touched the slider."""
IMAGES_LOADED = "images_loaded"
"""Optional, ``true``: the item's pictures loaded and were shown. The page takes no rating for an item
whose pictures failed (it offers a reload), so it never sends ``false``; a record without the field
comes from a page older than the check."""
TRACES = ("webdriver", "headless_ua", "software_gl")
"""Optional traces of an automated browser, 1 seen or 0 not, each one bit that identifies nobody:
``navigator.webdriver`` is true (the browser is driven by WebDriver or the DevTools Protocol), the user agent
names a headless browser (``HeadlessChrome``), WebGL is drawn by a software renderer (SwiftShader, llvmpipe:
no graphics hardware, as on most servers). A record without them is as valid as before."""
OPTIONAL = (IMAGES_LOADED, *TRACES)
MAX_COUNT = 1_000_000
MAX_MS = 7 * 24 * 3600 * 1000


def parse_behaviour(raw: str | None, slot_public_id: str) -> tuple[BehaviourStatus, dict[str, Any] | None]:
    """The status of a posted record for a rating of ``slot_public_id``, and what to store (valid only)."""
    if raw is None or raw == "":
        return BehaviourStatus.missing, None
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        return BehaviourStatus.oversized, None
    try:
        data = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return BehaviourStatus.invalid, None
    if not isinstance(data, dict) or not _REQUIRED <= set(data) <= _ALLOWED or _integer(data["v"]) != VERSION:
        return BehaviourStatus.invalid, None
    if not isinstance(data["slot"], str):
        return BehaviourStatus.invalid, None
    record: dict[str, Any] = {"v": VERSION}
    for name in FIELDS:
        value = data[name]
        if name == "first_input_ms" and value is None:
            record[name] = None
            continue
        number = _integer(value)
        if number is None or not 0 <= number <= (MAX_COUNT if name in COUNTS else MAX_MS):
            return BehaviourStatus.invalid, None
        record[name] = number
    if IMAGES_LOADED in data:
        if data[IMAGES_LOADED] is not True:  # not what the page's script can send
            return BehaviourStatus.invalid, None
        record[IMAGES_LOADED] = True
    for name in TRACES:
        if name in data:
            if _integer(data[name]) not in (0, 1):
                return BehaviourStatus.invalid, None
            record[name] = data[name]
    shown = record["shown_ms"]
    interactions = record["pointer"] + record["touch"] + record["key"]
    first = record["first_input_ms"]
    if (first is None) != (interactions == 0) or any(
            v is not None and v > shown for v in (first, record["hidden_ms"], record["blur_ms"])):
        return BehaviourStatus.invalid, None  # not what the page's script can produce
    if data["slot"] != slot_public_id:
        return BehaviourStatus.mismatched, None
    return BehaviourStatus.valid, record


_REQUIRED = {"v", "slot", *FIELDS}
_ALLOWED = _REQUIRED | set(OPTIONAL)


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")
