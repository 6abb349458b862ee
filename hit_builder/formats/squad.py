"""SQuAD v1.1 / v2.0 and CMRC 2018 (the same layout): ``{"data": [{"paragraphs": [{"context", "qas"}]}]}``.

Test set: one question per ``qas`` entry; its references are the ``answers[].text`` as the annotators
gave them, in their order, an annotator who repeats an earlier one's answer included: SQuAD's own human
score takes the second annotation as the human answer and the others as its references, so ``import
human`` needs it even when it repeats the first (a repeated reference changes no metric: each takes the
best reference). The paragraph is the question's context. SQuAD 2.0's unanswerable questions
(``is_impossible``, no answers) have nothing to compare against and are left out, and counted.
Answers: the official prediction file, one JSON object ``{"question id": "answer text", ...}``, where
``""`` is SQuAD v2.0's "no answer" (``empty_is_no_answer``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from da_core.errors import InputError
from hit_builder.formats.source import SourceTable, json_type, load_json, question_id
from hit_builder.readers import Record

_FIELDS = {"id": "id", "question": "question", "references": "answers", "context": "context"}
_TITLES = {"squad": "SQuAD", "cmrc": "CMRC"}


def _expect(value: Any, kind: type, file: str, path: str, what: str) -> Any:
    if not isinstance(value, kind):
        raise InputError(f"must be {what}, not {json_type(value)}", file=file, field=path)
    return value


def read_test_set(path: str | Path, name: str = "squad") -> SourceTable:
    """The questions of a SQuAD or CMRC file, as platform records."""
    file = str(path)
    document = _expect(load_json(path), dict, file, "(top level)", "a JSON object with a 'data' list")
    data = _expect(document.get("data"), list, file, "data", "a list of articles")
    records: list[Record] = []
    paths: dict[int, str] = {}
    repeating = 0
    unanswerable: list[str] = []
    for a, article in enumerate(data):
        article = _expect(article, dict, file, f"data[{a}]", "an object")
        paragraphs = _expect(article.get("paragraphs"), list, file, f"data[{a}].paragraphs", "a list")
        for p, paragraph in enumerate(paragraphs):
            where = f"data[{a}].paragraphs[{p}]"
            paragraph = _expect(paragraph, dict, file, where, "an object")
            qas = _expect(paragraph.get("qas"), list, file, f"{where}.qas", "a list of questions")
            for q, qa in enumerate(qas):
                at = f"{where}.qas[{q}]"
                qa = _expect(qa, dict, file, at, "an object")
                answers = _expect(qa.get("answers", []), list, file, f"{at}.answers", "a list")
                texts = []
                for k, answer in enumerate(answers):
                    answer = _expect(answer, dict, file, f"{at}.answers[{k}]", "an object with a 'text'")
                    texts.append(_expect(answer.get("text"), str, file, f"{at}.answers[{k}].text", "text"))
                if not texts and qa.get("is_impossible") is True:
                    unanswerable.append(question_id(qa.get("id")))
                    continue
                line = len(records) + 1
                paths[line] = at
                repeating += len({text.strip() for text in texts}) < len(texts)
                records.append(Record(line, {"id": qa.get("id"), "question": qa.get("question"),
                                             "references": texts, "context": paragraph.get("context")}))
    if not records:
        raise InputError("no answerable questions in the file", file=file, field="data")
    notes = []
    if unanswerable:
        notes.append(f"left out {len(unanswerable)} unanswerable question(s) (is_impossible, no answers)")
    if repeating:
        notes.append(f"kept every annotator's answer as given: in {repeating} question(s) an annotator repeats an "
                     "earlier answer (no metric changes; 'import human' takes the second annotation, as SQuAD's "
                     "human score does)")
    return SourceTable(file, "jsonl", tuple(_FIELDS), tuple(records), source_format=name, paths=paths,
                       field_names=_FIELDS, notes=tuple(notes), whole_json=True,
                       left_out=frozenset(unanswerable))


def read_answers(path: str | Path, name: str = "squad") -> SourceTable:
    """A prediction file ``{"question id": "answer", ...}`` as platform answer records."""
    file = str(path)
    document = _expect(load_json(path), dict, file, "(top level)",
                       "a JSON object mapping question ids to answer texts")
    if isinstance(document.get("data"), list):
        raise InputError(f"this is a {_TITLES.get(name, name)} dataset (questions under 'data'), not a prediction "
                         "file: answers are one JSON object mapping each question id to its answer text, "
                         '{"56be4db0acb8001400a502ec": "1937", ...}; import a dataset with \'import test-set\'',
                         file=file, field="data")
    records = [Record(k, {"id": qid, "answer": answer}) for k, (qid, answer) in enumerate(document.items(), start=1)]
    paths = {record.line: f'"{record.values["id"]}"' for record in records}
    return SourceTable(file, "jsonl", ("id", "answer"), tuple(records), source_format=name, paths=paths,
                       field_names={"id": "", "answer": ""}, whole_json=True, empty_is_no_answer=True)
