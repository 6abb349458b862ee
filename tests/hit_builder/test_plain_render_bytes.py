"""The plain answer images keep their exact bytes: changes to the OCR-resistant render
(``--render hardened``) must not touch them, or campaigns built before and after would show
different images for the same text (and their content-addressed keys would change).

The digests were recorded from the plain renderer before the hardened render was reworked, with
the fonts, Pillow and FreeType named below; on a machine with other versions the pictures differ
by a few antialiased pixels, so the comparison is only meaningful (and only run) with those.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hit_builder.fonts import DEFAULT_FONTS, FontChain, parse_font_spec
from hit_builder.render import Renderer, RenderStyle, Role
from tests.render_digests import TEXTS, skip_unless_recorded_with
from tests.render_digests import environment as font_environment

RECORDED_WITH = {
    "fonts": {"NotoSansCJK-Regular.ttc": "b76b0433203017ca80401b2ee0dd69350349871c4b19d504c34dbdd80541690a",
              "DejaVuSans.ttf": "abdc775b21b1bc470d50c97e790d276f2054b7504e56e5bd3e64f48d68582322"},
    "pillow": "13.0.0",
    "freetype": "2.14.3",
}
STYLES = {"default": RenderStyle(), "1x": RenderStyle(width=720, font_size=22, padding=10, scale=1)}
DIGESTS = {
    ("default", "english", "reference"): "51014005bbe3fb3036d8db36c0e8e4451f16ae9dfc1ea715108a34eadfea9276",
    ("default", "english", "candidate"): "f2e0dee966ff16a439b63a3f5e1f174ef528a2d49f3fff82d140db0e269226fe",
    ("default", "chinese", "reference"): "58630fbaaa1e9e7905a6e60f67f691bc8b45b4e01525ea1880b4953364477a87",
    ("default", "chinese", "candidate"): "687871e3043cc1f44d1141fd90495b25d9a63debee4de3bfbae69823ca9f6835",
    ("default", "mixed", "reference"): "ba34341c8b563cc09bfde400da0373a1be9060bb727cd5130ad0e3f9f8ddc77a",
    ("default", "mixed", "candidate"): "ac54eb21e14eec7198097390986dd665d4de74cb56c5712cb8345623a313ebb0",
    ("1x", "english", "reference"): "950e30abdf17388249026385d72bb61ad734dd2341636510c522a387cec826a4",
    ("1x", "english", "candidate"): "98435cc6706fe53ab8e620250487c08b8c8d2467edef4119a03281affef0eeae",
    ("1x", "chinese", "reference"): "9ba5349a1f3c743f5a82e8a7d070b9eed2503979541da9a4de9db99bf5762032",
    ("1x", "chinese", "candidate"): "1f1b3867ad56299361fddc35e157b7f07bee48ea6d6a6b473ba6dcdfeabfd962",
    ("1x", "mixed", "reference"): "1ef31882d60e485c8601ef6ba255531f50b10ab41cc55666f9b85c65ab51390c",
    ("1x", "mixed", "candidate"): "664eda75091e38607f02868514ee3c3e3535fe1ee8f3cf7bed062994baf92fc8",
}


def environment() -> dict:
    return font_environment(Path(parse_font_spec(spec)[0]) for spec in DEFAULT_FONTS)


@pytest.fixture(scope="module")
def chain() -> FontChain:
    skip_unless_recorded_with(RECORDED_WITH, environment())
    return FontChain.load(None)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_plain_images_keep_their_bytes(chain: FontChain, style: str) -> None:
    renderer = Renderer(chain, STYLES[style])
    found = {(style, name, role.value): hashlib.sha256(renderer.render(text, role)).hexdigest()
             for name, text in TEXTS.items() for role in Role}
    assert found == {key: digest for key, digest in DIGESTS.items() if key[0] == style}
