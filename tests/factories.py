"""Test data made directly with the models (no importer): test sets, systems and their answers."""
from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from da_platform.db.engine import make_engine, session_factory, upgrade
from da_platform.db.models import Answer, Question, Reference, System, TestSet

if TYPE_CHECKING:  # benchmarks import this module without pytest
    import pytest

WORDS = ("light energy plant water cell sugar leaf root carbon oxygen grows makes stores uses the a of "
         "and in to because when which through sunlight chlorophyll glucose process produce").split()
CHINESE = "光合作用是植物利用阳光把水和二氧化碳变成糖和氧气的过程叶子里的叶绿素吸收能量"


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def chinese_sentence(rng: random.Random, characters: int) -> str:
    return "".join(rng.choice(CHINESE) for _ in range(characters)) + "。"


def make_test_set(session: Session, *, name: str = "test set", questions: int = 20,
                  systems: tuple[str, ...] = ("alpha", "beta", "gamma", "delta"), chinese: int = 0,
                  seed: int = 0) -> TestSet:
    """A test set of ``questions`` questions (the last ``chinese`` of them in Chinese), one reference
    each, and one answer per system per question; flushed, not committed."""
    rng = random.Random(seed)
    test_set = TestSet(name=name)
    session.add(test_set)
    made = []
    for i in range(questions):
        in_chinese = i >= questions - chinese
        question = Question(external_id=f"q{i:04d}", text=f"Question {i}: why does it happen?")
        test_set.questions.append(question)
        text = chinese_sentence(rng, rng.randint(8, 30)) if in_chinese else sentence(rng, rng.randint(3, 30))
        question.references.append(Reference(position=0, text=text))
        made.append((question, in_chinese))
    for system_name in systems:
        system = System(name=system_name)
        test_set.systems.append(system)
        for question, in_chinese in made:
            text = chinese_sentence(rng, rng.randint(1, 25)) if in_chinese else sentence(rng, rng.randint(1, 25))
            system.answers.append(Answer(question=question, text=text))
    session.flush()
    return test_set


def cli_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, questions: int) -> str:
    """A migrated SQLite database under ``tmp_path`` holding ``make_test_set``'s test set "cli set", set up for
    the CLI: ``$DA_DATABASE_URL`` names it, the instance folder is ``tmp_path/instance`` and the caller's
    ``$DA_IMAGE_FOLDER`` and ``$DA_FONT`` are unset. Returns its URL."""
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    monkeypatch.setenv("DA_DATABASE_URL", url)
    monkeypatch.setenv("DA_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.delenv("DA_IMAGE_FOLDER", raising=False)
    monkeypatch.delenv("DA_FONT", raising=False)
    upgrade(url)
    engine = make_engine(url)
    with session_factory(engine)() as session:
        make_test_set(session, name="cli set", questions=questions)
        session.commit()
    engine.dispose()
    return url
