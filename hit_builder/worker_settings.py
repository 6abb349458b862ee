"""The worker pages' settings of a campaign, made at build time (``Campaign.settings["worker"]``).

* ``lang``: the pages' language (``en``, ``zh-Hans`` shipped; others with the researcher's catalogue,
  checked and stored as ``messages``);
* ``instructions``: the researcher's own instruction text (Markdown; shown escaped, no raw HTML);
* ``contact``, ``pay`` (free text such as "2.00 USD"), ``minutes`` (expected time);
* ``example``: a question with a good and a bad answer (and the reference when the campaign shows it),
  drawn as images like the real items; shipped for English and Chinese, a JSON file otherwise;
* ``practice``: items made from the example, rated before the HIT starts and never stored;
* ``show_context``: the question's context passage can be opened on each item (collapsed).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from da_core.errors import BuildError

EXAMPLE_FIELDS = ("question", "reference", "good", "bad")
# Shipped examples for the built-in languages and criteria. Adequacy: a good answer and a fluent but
# wrong one; fluency: a natural answer and a jumbled one (a custom criterion brings its own example).
SHIPPED_EXAMPLES = {
    ("en", "fluency"): {
        "question": "What is the capital of Australia?",
        "reference": "The capital of Australia is Canberra.",
        "good": "Canberra is Australia's capital city.",
        "bad": "Capital the Australia of is city Canberra the.",
        "good_note": "It reads naturally.",
        "bad_note": "Its words are jumbled: hard to read, whatever it means.",
    },
    ("zh-Hans", "fluency"): {
        "question": "澳大利亚的首都是哪里？",
        "reference": "澳大利亚的首都是堪培拉。",
        "good": "堪培拉是澳大利亚的首都。",
        "bad": "首都的是澳大利亚堪培拉是。",
        "good_note": "读起来自然通顺。",
        "bad_note": "词语顺序混乱，难以读懂。",
    },
    ("en", "adequacy"): {
        "question": "What is the capital of Australia?",
        "reference": "The capital of Australia is Canberra.",
        "good": "Canberra is Australia's capital city.",
        "bad": "The capital of Australia is Sydney, its largest city.",
        "good_note": "It says the same as Answer A in other words.",
        "bad_note": "It names the wrong city, however fluent it is.",
    },
    ("zh-Hans", "adequacy"): {
        "question": "澳大利亚的首都是哪里？",
        "reference": "澳大利亚的首都是堪培拉。",
        "good": "堪培拉是澳大利亚的首都。",
        "bad": "澳大利亚的首都是它最大的城市悉尼。",
        "good_note": "它用不同的话说出了与答案A相同的内容。",
        "bad_note": "它说错了城市，即使语句通顺。",
    },
}


@dataclass(frozen=True)
class WorkerPageOptions:
    """What the researcher chose for the worker pages (``build --lang`` and friends)."""

    lang: str = "en"
    instructions: str | None = None
    contact: str | None = None
    pay: str | None = None
    minutes: int | None = None
    example: dict | None = None  # None: the shipped example of the language, if any
    practice: bool = False
    show_context: bool = False
    messages: dict | None = field(default=None)  # a checked catalogue for a language not shipped


def read_example(path: str | Path) -> dict:
    """An example item from a JSON file: question, reference, good, bad (and good_note, bad_note)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BuildError(f"{path}: cannot read the example ({error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BuildError(f"{path}: not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise BuildError(f"{path}: the example must be a JSON object with {', '.join(EXAMPLE_FIELDS)}")
    for name in (*EXAMPLE_FIELDS, "good_note", "bad_note"):
        value = data.get(name)
        if name in EXAMPLE_FIELDS and (not isinstance(value, str) or not value.strip()):
            raise BuildError(f"{path}: field {name!r} must be a non-empty text")
        if value is not None and not isinstance(value, str):
            raise BuildError(f"{path}: field {name!r} must be a text")
    return {name: data[name].strip() for name in (*EXAMPLE_FIELDS, "good_note", "bad_note") if data.get(name)}


def worker_settings(options: WorkerPageOptions, *, show_reference: bool, render: Any,
                    criterion: str = "adequacy", where: str = "example") -> tuple[dict, list[str]]:
    """``Campaign.settings["worker"]`` and the build's warnings.

    ``render(text, role, where)`` draws and stores an image and returns its storage key (the
    campaign's renderer and storage).
    """
    from da_core.languages import check_lang, shipped

    lang = check_lang(options.lang)
    warnings = []
    if not shipped(lang) and not options.messages:
        raise BuildError(f"the worker pages are shipped in en and zh-Hans; for {lang!r} give a catalogue "
                         "(--messages FILE.po, made from da_platform/rating/translations/worker.pot)")
    if options.minutes is not None and options.minutes < 1:
        raise BuildError("the expected time (--minutes) must be at least 1 minute")
    settings: dict[str, Any] = {"lang": lang, "show_context": bool(options.show_context)}
    if not shipped(lang):
        settings["messages"] = dict(options.messages or {})
    for name in ("instructions", "contact", "pay"):
        value = getattr(options, name)
        if value and value.strip():
            settings[name] = value.strip()
    if options.minutes is not None:
        settings["minutes"] = int(options.minutes)
    example = options.example or SHIPPED_EXAMPLES.get((lang, criterion))
    if example is None and options.practice:
        raise BuildError(f"a practice needs an example item (--example FILE.json) for language {lang!r} "
                         f"and the {criterion} criterion")
    if example is None:
        warnings.append(f"no example item for language {lang!r} and the {criterion} criterion (give one with "
                        "--example FILE.json); the instructions show none")
    else:
        images = {"good": render(example["good"], "candidate", f"{where}: good answer"),
                  "bad": render(example["bad"], "candidate", f"{where}: bad answer")}
        if show_reference:
            images["reference"] = render(example["reference"], "reference", f"{where}: reference")
        settings["example"] = {**example, "images": images}
        if options.practice:
            settings["practice"] = [{"question": example["question"], "candidate_image": images[kind],
                                     "reference_image": images.get("reference")} for kind in ("good", "bad")]
    return settings, warnings
