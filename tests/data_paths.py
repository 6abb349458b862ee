"""Where the tests' data files are."""
from __future__ import annotations

import os
from pathlib import Path

WMT21 = Path(os.environ.get("DA_WMT21_FIXTURE",
                            Path(__file__).resolve().parent / "data" / "wmt21-facebook-wikipedia-2021"))
"""The public WMT21 facebook-wikipedia release (tests/data, see its SOURCE.md); $DA_WMT21_FIXTURE overrides."""
