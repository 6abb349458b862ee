"""Files for the importers' tests: a small valid test set, DuReader questions and predictions in the real
shape, writing a file exactly as given, and a snapshot of the import tables (equal snapshots before and
after a refused import mean an unchanged database)."""
from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

TABLES = ("test_set", "question", "reference", "system", "answer")

BASE_TEST_SET = (
    '{"id": "a1", "question": "Why do leaves change colour in autumn?", '
    '"references": ["Chlorophyll breaks down, revealing other pigments.", "The green pigment fades."]}\n'
    '{"id": "a2", "question": "为什么秋天树叶会变色？", '
    '"references": ["叶绿素分解，其他色素显现出来。", "绿色素褪去了。"], '
    '"answer_type": "description"}\n'
    '{"id": "a3", "question": "Is tea healthy?", "references": ["Yes, in moderation."], '
    '"answer_type": "yes_no", "yes_no": "yes"}\n'
)


def database_snapshot(sessions: sessionmaker[Session]) -> dict[str, list[tuple]]:
    """Every row of the import tables, in id order: equal snapshots mean an unchanged database."""
    with sessions() as s:
        return {t: [tuple(r) for r in s.execute(text(f"SELECT * FROM {t} ORDER BY id"))] for t in TABLES}


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def write_jsonl(path: Path, rows) -> Path:
    """``rows`` as JSON lines (UTF-8, characters as they are)."""
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


# DuReader 2.0 / MRC2018 shape: one JSON object per line (the files end in .json).
DUREADER = [
    {"question_id": 186572, "question": "生鸡蛋能吃吗", "question_type": "YES_NO", "fact_or_opinion": "OPINION",
     "answers": ["能吃，但要新鲜的。", "不能，生鸡蛋有细菌。"], "yesno_answers": ["Yes", "No"],
     "entity_answers": [[], []],
     "documents": [{"title": "...", "paragraphs": ["..."], "is_selected": True}]},
    {"question_id": 186573, "question": "世界最高峰是哪座山", "question_type": "ENTITY", "fact_or_opinion": "FACT",
     "answers": ["珠穆朗玛峰，高8848.86米。", "是珠峰"], "yesno_answers": [],
     "entity_answers": [["珠穆朗玛峰"], ["珠峰"]], "documents": []},
    {"question_id": 186574, "question": "如何养绿萝", "question_type": "DESCRIPTION", "fact_or_opinion": "OPINION",
     "answers": ["放在半阴的地方，保持土壤湿润。"], "yesno_answers": [], "entity_answers": [[]], "documents": []},
]
DUREADER_PREDICTIONS = [
    {"question_id": 186572, "question_type": "YES_NO", "answers": ["能吃，新鲜的就可以。"], "yesno_answers": ["Yes"],
     "entity_answers": [[]], "source": "zhidao"},
    {"question_id": 186573, "question_type": "ENTITY", "answers": ["珠穆朗玛峰", "珠峰"], "yesno_answers": [],
     "entity_answers": [["珠穆朗玛峰"]], "source": "zhidao"},
    {"question_id": 186574, "question_type": "DESCRIPTION", "answers": ["多浇水。"], "yesno_answers": [],
     "entity_answers": [[]], "source": "zhidao"},
]
