"""The worker pages' settings made at build time: the researcher's example item may be given as its texts."""
from __future__ import annotations

import pytest

from da_core.errors import BuildError
from hit_builder.worker_settings import Example, WorkerPage, WorkerPageOptions, worker_settings

TEXTS = {"question": "Q?", "reference": "R.", "good": "G.", "bad": "B."}


def drawn(text: str, role: str, where: str) -> str:
    return f"{role}:{text}"


def test_an_example_given_as_texts_is_drawn_as_one_given_typed():
    as_texts, _ = worker_settings(WorkerPageOptions(example=TEXTS, practice=True), show_reference=True, render=drawn)
    typed, _ = worker_settings(WorkerPageOptions(example=Example(**TEXTS), practice=True), show_reference=True,
                               render=drawn)
    assert as_texts == typed
    assert as_texts.example.images.drawn() == {"good": "candidate:G.", "bad": "candidate:B.",
                                               "reference": "reference:R."}
    assert [(p.candidate_image, p.reference_image) for p in as_texts.practice] == [
        ("candidate:G.", "reference:R."), ("candidate:B.", "reference:R.")]


def test_an_example_without_its_reference_is_refused_naming_the_field():
    with pytest.raises(BuildError, match="the example item: 'reference' is missing"):
        worker_settings(WorkerPageOptions(example={"question": "Q?", "good": "G.", "bad": "B."}),
                        show_reference=True, render=drawn)


def test_the_worker_pages_language_in_one_line():
    assert WorkerPage().describe_language() == "worker pages in en (shipped catalogue)"
    assert WorkerPage(lang="zh-Hans").describe_language() == "worker pages in zh-Hans (shipped catalogue)"
    assert WorkerPage(lang="ar", messages={"x": "y"}).describe_language() == (
        "worker pages in ar (the researcher's catalogue, right to left)")
