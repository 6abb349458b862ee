"""Loading the bundled synthetic sample (:mod:`da_platform.simulation.sample_data`) into the database."""
from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from da_platform.db.models import TestSet
from da_platform.simulation.sample_data import HUMAN, load_truth, sample_data_dir


def import_sample(session: Session, *, name: str = "sample", human: bool = True,
                  questions: int | None = None, only: Callable[[dict[str, Any]], bool] | None = None) -> TestSet:
    """Import the sample test set as ``name`` with all its systems (and HUMAN from the second references).

    ``questions`` keeps only the first that many questions (and their answers): a smaller sample;
    ``only`` keeps only the questions (test-set records) it accepts, e.g. those of one language.
    """
    from da_platform.building.importers import (
        import_second_reference_as_human,
        import_system_answers,
        import_test_set,
    )

    with tempfile.TemporaryDirectory() as scratch:
        folder = (sample_data_dir() if questions is None and only is None
                  else _first_questions(Path(scratch), questions, only))
        test_set = import_test_set(session, folder / "test_set.jsonl", name=name)
        for system, info in load_truth()["systems"].items():
            if info["file"] is not None:
                import_system_answers(session, test_set, folder / info["file"], system=system)
    if human:
        import_second_reference_as_human(session, test_set, name=HUMAN)
    return test_set


def _first_questions(folder: Path, questions: int | None,
                     only: Callable[[dict[str, Any]], bool] | None = None) -> Path:
    """Copies of the sample files in ``folder`` holding only the first ``questions`` questions (all: None)
    of those ``only`` accepts (all: None)."""
    source = sample_data_dir()
    lines = [line for line in (source / "test_set.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
             if only is None or only(json.loads(line))][:questions]
    (folder / "test_set.jsonl").write_text("".join(lines), encoding="utf-8")
    kept = {json.loads(line)["id"] for line in lines}
    for info in load_truth()["systems"].values():
        if info["file"] is not None:
            answers = (source / info["file"]).read_text(encoding="utf-8").splitlines(keepends=True)
            (folder / info["file"]).write_text(
                "".join(line for line in answers if json.loads(line)["id"] in kept), encoding="utf-8")
    return folder
