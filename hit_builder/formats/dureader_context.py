"""The context of a DuReader question: the paragraph of its documents that best covers its answers.

DuReader gives each question up to five web documents (``documents``: ``title``, ``paragraphs``,
``is_selected``), not a passage. Its own preprocessing (``utils/preprocess.py``, ``find_fake_answer``,
which fills the ``most_related_para`` of the released preprocessed data) takes, in each document, the
paragraph with the highest recall of the answers' words, max over the answers (|paragraph ∩ answer| /
|answer|, counting repeats), the shorter paragraph on a tie; its answer spans come from the documents
marked ``is_selected`` only. The platform does the same over all those documents at once and keeps one
paragraph: the selected documents (all documents when none is marked), highest recall, then the
shorter, then the earlier. Tokens are the platform's script-aware tokens (``da_core.text.tokenize``: a
Chinese character is a token, whatever spaces a word segmenter put around it), so raw and preprocessed
files give the same context. No paragraph sharing a token with an answer: no context.

(For its test questions, which have no answers, the baseline ranks paragraphs by the recall of the
*question's* words instead. Every imported question has answers, and the question's words favour a
paragraph that repeats the question, the shortest such on a tie, which tells a rater nothing.)
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from da_core.errors import InputError
from da_core.text import tokenize


def most_related_paragraph(documents: Any, answers: Sequence[str], *, file: str, line: int) -> str | None:
    """The paragraph the module docstring describes, or None; malformed ``documents`` raise ``InputError``."""
    if documents is None:
        return None
    if not isinstance(documents, list):
        raise InputError("must be a list of documents", file=file, line=line, field="documents")
    candidates: list[tuple[bool, str]] = []
    for d, document in enumerate(documents):
        if not isinstance(document, dict):
            raise InputError(f"document {d + 1} must be an object", file=file, line=line, field="documents")
        paragraphs = document.get("paragraphs", [])
        if not isinstance(paragraphs, list) or not all(isinstance(p, str) for p in paragraphs):
            raise InputError(f"document {d + 1}: 'paragraphs' must be a list of texts", file=file, line=line,
                             field="documents")
        selected = document.get("is_selected") in (True, 1)
        candidates += [(selected, paragraph) for paragraph in paragraphs]
    if any(selected for selected, _ in candidates):
        candidates = [c for c in candidates if c[0]]
    wanted = [Counter(tokenize(answer)) for answer in answers if isinstance(answer, str)]
    wanted = [counts for counts in wanted if counts]
    best: tuple[float, int] | None = None
    chosen = None
    for _, paragraph in candidates:
        tokens = tokenize(paragraph)
        have = Counter(tokens)
        recall = max((sum((have & counts).values()) / sum(counts.values()) for counts in wanted), default=0.0)
        if recall > 0 and (best is None or (-recall, len(tokens)) < best):
            best, chosen = (-recall, len(tokens)), paragraph.strip()
    return chosen or None
