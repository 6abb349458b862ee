"""The worker pages' settings of a campaign, made at build time (:class:`WorkerPage`, stored with the campaign).

* ``lang``: the pages' language (``en``, ``zh-Hans`` shipped; others with the researcher's catalogue,
  checked and stored as ``messages``);
* ``instructions``: the researcher's own instruction text (Markdown; shown escaped, no raw HTML);
* ``contact``, ``pay`` (free text such as "2.00 USD"), ``minutes`` (expected time);
* ``example``: a question with a good and a bad answer (and the reference when the campaign shows it),
  drawn as images like the real items; shipped for English and Chinese, a JSON file otherwise;
* ``practice``: items made from the example, rated before the HIT starts and never stored;
* ``show_context``: the question's context passage can be opened on each item (collapsed).

:meth:`WorkerPage.to_json` and :meth:`WorkerPage.from_json` are its stored form (the key ``worker`` of the
campaign's settings, ``da_platform.config.campaign_settings``); reading refuses what they would not write.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from da_core.enums import Criterion
from da_core.errors import BuildError
from da_core.languages import DEFAULT_LANG

EXAMPLE_FIELDS = ("question", "reference", "good", "bad")
# Shipped examples for the built-in languages and criteria. Adequacy: a good answer and a fluent but
# wrong one; fluency: a natural answer and a jumbled one (a custom criterion brings its own example).
_SHIPPED = {
    ("en", Criterion.fluency): {
        "question": "What is the capital of Australia?",
        "reference": "The capital of Australia is Canberra.",
        "good": "Canberra is Australia's capital city.",
        "bad": "Capital the Australia of is city Canberra the.",
        "good_note": "It reads naturally.",
        "bad_note": "Its words are jumbled: hard to read, whatever it means.",
    },
    ("zh-Hans", Criterion.fluency): {
        "question": "澳大利亚的首都是哪里？",
        "reference": "澳大利亚的首都是堪培拉。",
        "good": "堪培拉是澳大利亚的首都。",
        "bad": "首都的是澳大利亚堪培拉是。",
        "good_note": "读起来自然通顺。",
        "bad_note": "词语顺序混乱，难以读懂。",
    },
    ("en", Criterion.adequacy): {
        "question": "What is the capital of Australia?",
        "reference": "The capital of Australia is Canberra.",
        "good": "Canberra is Australia's capital city.",
        "bad": "The capital of Australia is Sydney, its largest city.",
        "good_note": "It says the same as Answer A in other words.",
        "bad_note": "It names the wrong city, however fluent it is.",
    },
    ("zh-Hans", Criterion.adequacy): {
        "question": "澳大利亚的首都是哪里？",
        "reference": "澳大利亚的首都是堪培拉。",
        "good": "堪培拉是澳大利亚的首都。",
        "bad": "澳大利亚的首都是它最大的城市悉尼。",
        "good_note": "它用不同的话说出了与答案A相同的内容。",
        "bad_note": "它说错了城市，即使语句通顺。",
    },
}


NOTES = ("good_note", "bad_note")


def _text(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name!r} must be a text, not {value!r}")
    return value


def _required(data: Mapping[str, Any], name: str) -> str:
    value = _text(data, name)
    if value is None:
        raise ValueError(f"{name!r} is missing")
    return value


def _only(data: object, known: tuple[str, ...], what: str) -> Mapping[str, Any]:
    """``data`` as a JSON object of the ``known`` keys only (a ``ValueError`` names the others)."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be a JSON object, not {data!r}")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown {what} field(s): {', '.join(map(str, unknown))}")
    return data


@dataclass(frozen=True)
class ExampleImages:
    """Storage keys of the example's answer images (the reference only when the campaign shows it)."""

    good: str
    bad: str
    reference: str | None = None

    def image(self, which: str) -> str | None:
        """The key of the ``good``, ``bad`` or ``reference`` image (None: not drawn)."""
        return {"good": self.good, "bad": self.bad, "reference": self.reference}.get(which)

    def drawn(self) -> dict[str, str]:
        """The images drawn, by name (good, bad, then the reference if shown)."""
        return {name: key for name in ("good", "bad", "reference") if (key := self.image(name)) is not None}

    def to_json(self) -> dict[str, str]:
        return self.drawn()

    @classmethod
    def from_json(cls, data: object) -> ExampleImages:
        data = _only(data, ("good", "bad", "reference"), "example image")
        return cls(_required(data, "good"), _required(data, "bad"), _text(data, "reference"))


@dataclass(frozen=True)
class Example:
    """An example item: a question, its reference, a good and a bad answer (with a note each, optional);
    ``images`` once drawn for a campaign."""

    question: str
    reference: str
    good: str
    bad: str
    good_note: str | None = None
    bad_note: str | None = None
    images: ExampleImages | None = None

    def to_json(self) -> dict[str, Any]:
        texts = {name: getattr(self, name) for name in (*EXAMPLE_FIELDS, *NOTES) if getattr(self, name)}
        return {**texts, **({"images": self.images.to_json()} if self.images is not None else {})}

    @classmethod
    def from_json(cls, data: object) -> Example:
        data = _only(data, (*EXAMPLE_FIELDS, *NOTES, "images"), "example")
        question, reference, good, bad = (_required(data, name) for name in EXAMPLE_FIELDS)
        images = data.get("images")
        return cls(question, reference, good, bad, _text(data, "good_note"), _text(data, "bad_note"),
                   None if images is None else ExampleImages.from_json(images))


SHIPPED_EXAMPLES: dict[tuple[str, Criterion], Example] = {
    key: Example.from_json(texts) for key, texts in _SHIPPED.items()}


@dataclass(frozen=True)
class PracticeItem:
    """One practice item: the example's question with one of its answers (and the reference if shown)."""

    question: str
    candidate_image: str
    reference_image: str | None

    def image(self, role: str) -> str | None:
        """The key of the ``candidate`` or ``reference`` image."""
        return {"candidate": self.candidate_image, "reference": self.reference_image}.get(role)

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "candidate_image": self.candidate_image,
                "reference_image": self.reference_image}

    @classmethod
    def from_json(cls, data: object) -> PracticeItem:
        data = _only(data, ("question", "candidate_image", "reference_image"), "practice item")
        return cls(_required(data, "question"), _required(data, "candidate_image"), _text(data, "reference_image"))


@dataclass(frozen=True)
class WorkerPage:
    """The worker pages of a built campaign (see the module docstring). Campaigns built before these
    settings: English, no context, nothing of the researcher's."""

    lang: str = DEFAULT_LANG
    show_context: bool = False
    messages: Mapping[str, str] | None = None  # the catalogue of a language not shipped
    instructions: str | None = None
    contact: str | None = None
    pay: str | None = None
    minutes: int | None = None
    example: Example | None = None
    practice: tuple[PracticeItem, ...] = ()

    def describe_language(self) -> str:
        """``worker pages in zh-Hans (shipped catalogue)``, ``... in fr (the researcher's catalogue)``, with the
        direction of a right-to-left script: where the language is said (build, inspect, the dashboard)."""
        from da_core.languages import shipped, text_direction

        source = "shipped catalogue" if shipped(self.lang) else "the researcher's catalogue"
        direction = ", right to left" if text_direction(self.lang) == "rtl" else ""
        return f"worker pages in {self.lang} ({source}{direction})"

    def to_json(self) -> dict[str, Any]:
        """The stored form: language and context first, then only what was set."""
        data: dict[str, Any] = {"lang": self.lang, "show_context": self.show_context}
        if self.messages is not None:
            data["messages"] = dict(self.messages)
        data.update({name: getattr(self, name) for name in ("instructions", "contact", "pay", "minutes")
                     if getattr(self, name) is not None})
        if self.example is not None:
            data["example"] = self.example.to_json()
        if self.practice:
            data["practice"] = [item.to_json() for item in self.practice]
        return data

    @classmethod
    def from_json(cls, data: object) -> WorkerPage:
        """What :meth:`to_json` wrote; a ``ValueError`` names a field it would not have written."""
        data = _only(data, tuple(f.name for f in fields(cls)), "worker page")
        lang = _text(data, "lang") or DEFAULT_LANG
        show_context = data.get("show_context", False)
        if not isinstance(show_context, bool):
            raise ValueError(f"'show_context' must be true or false, not {show_context!r}")
        minutes = data.get("minutes")
        if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int)):
            raise ValueError(f"'minutes' must be a whole number, not {minutes!r}")
        messages = data.get("messages")
        if messages is not None and not (isinstance(messages, Mapping) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in messages.items())):
            raise ValueError("'messages' must map each message to its translation (texts)")
        practice = data.get("practice") or []
        if not isinstance(practice, list):
            raise ValueError(f"'practice' must be a list of items, not {practice!r}")
        example = data.get("example")
        return cls(lang=lang, show_context=show_context, messages=messages, instructions=_text(data, "instructions"),
                   contact=_text(data, "contact"), pay=_text(data, "pay"), minutes=minutes,
                   example=None if example is None else Example.from_json(example),
                   practice=tuple(PracticeItem.from_json(item) for item in practice))


@dataclass(frozen=True)
class WorkerPageOptions:
    """What the researcher chose for the worker pages (``build --lang`` and friends)."""

    lang: str = "en"
    instructions: str | None = None
    contact: str | None = None
    pay: str | None = None
    minutes: int | None = None
    example: Example | Mapping[str, str] | None = None  # None: the shipped example of the language, if any
    practice: bool = False
    show_context: bool = False
    messages: dict | None = field(default=None)  # a checked catalogue for a language not shipped


def read_example(path: str | Path) -> Example:
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
    for name in (*EXAMPLE_FIELDS, *NOTES):
        value = data.get(name)
        if name in EXAMPLE_FIELDS and (not isinstance(value, str) or not value.strip()):
            raise BuildError(f"{path}: field {name!r} must be a non-empty text")
        if value is not None and not isinstance(value, str):
            raise BuildError(f"{path}: field {name!r} must be a text")
    return Example.from_json({name: data[name].strip() for name in (*EXAMPLE_FIELDS, *NOTES) if data.get(name)})


def _example(given: Example | Mapping[str, str] | None) -> Example | None:
    """The researcher's example item (given as an :class:`Example` or its texts by field name)."""
    if given is None or isinstance(given, Example):
        return given
    try:
        return Example.from_json(given)
    except ValueError as error:
        raise BuildError(f"the example item: {error}") from None


def worker_settings(options: WorkerPageOptions, *, show_reference: bool, render: Callable[[str, str, str], str],
                    criterion: Criterion = Criterion.adequacy, where: str = "example") -> tuple[WorkerPage, list[str]]:
    """The campaign's :class:`WorkerPage` and the build's warnings.

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
    texts = {name: value.strip() for name in ("instructions", "contact", "pay")
             if (value := getattr(options, name)) and value.strip()}
    example = _example(options.example) or SHIPPED_EXAMPLES.get((lang, criterion))
    if example is None and options.practice:
        raise BuildError(f"a practice needs an example item (--example FILE.json) for language {lang!r} "
                         f"and the {criterion} criterion")
    practice: tuple[PracticeItem, ...] = ()
    if example is None:
        warnings.append(f"no example item for language {lang!r} and the {criterion} criterion (give one with "
                        "--example FILE.json); the instructions show none")
    else:
        images = ExampleImages(
            good=render(example.good, "candidate", f"{where}: good answer"),
            bad=render(example.bad, "candidate", f"{where}: bad answer"),
            reference=render(example.reference, "reference", f"{where}: reference") if show_reference else None)
        example = replace(example, images=images)
        if options.practice:
            practice = tuple(PracticeItem(example.question, key, images.reference)
                             for key in (images.good, images.bad))
    page = WorkerPage(lang=lang, show_context=bool(options.show_context),
                      messages=None if shipped(lang) else dict(options.messages or {}), **texts,
                      minutes=None if options.minutes is None else int(options.minutes), example=example,
                      practice=practice)
    return page, warnings
