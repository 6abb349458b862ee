"""What the answer images' byte-for-byte tests share (``tests/hit_builder/test_*_render_bytes.py``): the
texts they draw, and the environment the bytes depend on (the fonts' files, Pillow, FreeType), which a
recorded digest holds only in."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import pytest
from PIL import __version__ as pillow_version
from PIL import features

TEXTS = {
    "english": "Yes. Timing matters: keep the oven door closed until the end. The key technique is to preheat the pan.",
    "chinese": "绿峰复合肥最适合吊兰。要经常检查叶片上有没有红蜘蛛。吊兰最适合放在早上几个小时的直射阳光下。",
    "mixed": "Ottawa（渥太华）is the capital: 1,440 minutes\nΑθήνα — Москва, naïve café, "
             "a-very-long-unbreakable-word-that-is-wider-than-one-line-of-the-answer-image",
}


def environment(font_files: Iterable[Path]) -> dict:
    """The fonts' SHA-256 by file name (None: not installed), and Pillow's and FreeType's versions."""
    fonts = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
             for path in font_files}
    return {"fonts": fonts, "pillow": pillow_version, "freetype": features.version("freetype2")}


def skip_unless_recorded_with(recorded: dict, found: dict) -> None:
    """Skip the test on a machine whose fonts or libraries differ from those the digests were recorded with
    (antialiased pixels differ there by a few levels); under CI (``CI=true``, which installs the recorded ones)
    fail instead, so that a changed environment never hides the bytes' test."""
    if found != recorded:
        message = f"the digests were recorded with {recorded}, this machine has {found}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (under CI the recorded fonts and libraries are expected)")
        pytest.skip(message)


def skip_unless_installed(message: str) -> None:
    """Skip a test whose font is not on this machine; under CI (``CI=true``, which installs the fonts) fail
    instead, so that a missing font never hides the test there."""
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (under CI the fonts are installed)")
    pytest.skip(message)
