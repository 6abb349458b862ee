"""The non-editable wheel carries everything the platform needs at run time."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_carries_templates_static_migrations_and_sample_data(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--wheel-dir", str(tmp_path), str(ROOT)], check=True)
    wheel = next(tmp_path.glob("da_platform-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "da_platform/templates/base.html",
        "da_platform/templates/worker/slot.html",
        "da_platform/templates/admin/campaign.html",
        "da_platform/static/worker.js",
        "da_platform/static/worker.css",
        "da_platform/db/migrations/env.py",
        "da_platform/db/migrations/script.py.mako",
        "da_platform/db/migrations/versions/0001_initial_schema.py",
        "da_platform/simulation/sample_data/test_set.jsonl",
        "da_platform/simulation/sample_data/truth.json",
        "analysis/report.py",
        "da_core/errors.py",
        "da_platform/rating/translations/worker.pot",  # read at run time: a fresh install needs no compile step
        "da_platform/rating/translations/zh-Hans.po",
    }
    assert expected <= names, sorted(expected - names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "da-platform = da_platform.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    assert not any(n.startswith("tests/") for n in names)
