"""The bundled synthetic sample: a QA test set, systems of known quality, and that quality.

Files (written by ``python -m da_platform.simulation.sample_data.generate``): ``test_set.jsonl``, one
``<system>.jsonl`` per system, and ``truth.json`` with the known order of the systems and the true
quality (0-100) of every (system, question) answer.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HUMAN = "HUMAN"


def sample_data_dir() -> Path:
    """The folder holding the bundled sample files."""
    return Path(__file__).parent


def load_truth() -> dict[str, Any]:
    """``truth.json``: ``order`` (best first), ``systems`` (file, mean quality, description) and
    ``quality[system][question id]``."""
    return json.loads((sample_data_dir() / "truth.json").read_text(encoding="utf-8"))


def sample_questions() -> int:
    """How many questions the sample's test set has (its lines)."""
    with (sample_data_dir() / "test_set.jsonl").open(encoding="utf-8") as lines:
        return sum(1 for line in lines if line.strip())
