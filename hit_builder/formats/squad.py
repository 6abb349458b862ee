"""SQuAD v1.1 / v2.0 and CMRC 2018 (the same layout): ``{"data": [{"paragraphs": [{"context", "qas"}]}]}``.

Test set: one question per ``qas`` entry; its references are the distinct ``answers[].text`` (annotators
often repeat each other), the paragraph is its context. SQuAD 2.0's unanswerable questions
(``is_impossible``, no answers) have nothing to compare against and are left out, and counted.
Answers: the official prediction file, one JSON object ``{"question id": "answer text", ...}``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from da_core.errors import InputError
from hit_builder.formats.source import SourceTable, distinct, json_type, load_json
from hit_builder.readers import Record

_FIELDS = {"id": "id", "question": "question", "references": "answers", "context": "context"}


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
    unanswerable = 0
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
                    unanswerable += 1
                    continue
                line = len(records) + 1
                paths[line] = at
                records.append(Record(line, {"id": qa.get("id"), "question": qa.get("question"),
                                             "references": distinct(texts), "context": paragraph.get("context")}))
    if not records:
        raise InputError("no answerable questions in the file", file=file, field="data")
    notes = (f"left out {unanswerable} unanswerable question(s) (is_impossible, no answers)",) if unanswerable else ()
    return SourceTable(file, "jsonl", tuple(_FIELDS), tuple(records), source_format=name, paths=paths,
                       field_names=_FIELDS, notes=notes, whole_json=True)


def read_answers(path: str | Path, name: str = "squad") -> SourceTable:
    """A prediction file ``{"question id": "answer", ...}`` as platform answer records."""
    file = str(path)
    document = _expect(load_json(path), dict, file, "(top level)",
                       "a JSON object mapping question ids to answer texts")
    records = [Record(k, {"id": qid, "answer": answer}) for k, (qid, answer) in enumerate(document.items(), start=1)]
    paths = {record.line: f'"{record.values["id"]}"' for record in records}
    return SourceTable(file, "jsonl", ("id", "answer"), tuple(records), source_format=name, paths=paths,
                       field_names={"id": "", "answer": ""}, whole_json=True)
