"""The OCR-resistant images (``--render hardened``) keep their exact bytes through the work that made them
faster: a glyph is turned only where its ink can reach, drawn once per character, font and size, and the
texture's speckle is set in one go from the same random numbers.

The digests were recorded from the hardened render before that work, with the fonts (the chain's and
their serif and bold siblings), Pillow and FreeType named below; elsewhere the pictures differ by a few
antialiased pixels, so the comparison is only run with those. The faster parts are also compared with
what they replace, Pillow's ``Image.rotate`` and a ``randrange`` loop drawing points, on any machine.
"""
from __future__ import annotations

import hashlib
import math
import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageDraw

from hit_builder.fonts import FontChain
from hit_builder.ocr_resistant import Glyph, HardenedStyle, _draw_glyph, _font, _speckle
from hit_builder.render import Renderer, Role
from tests.render_digests import TEXTS, environment, skip_unless_recorded_with

FONT_FOLDERS = {"noto": Path("/usr/share/fonts/opentype/noto"), "dejavu": Path("/usr/share/fonts/truetype/dejavu")}
RECORDED_WITH = {
    "fonts": {
        "NotoSansCJK-Regular.ttc": "b76b0433203017ca80401b2ee0dd69350349871c4b19d504c34dbdd80541690a",
        "NotoSerifCJK-Regular.ttc": "a04178ec485dffdff7cc0c0c20e1fce9202d7e2160d805e8e44a4c8841c58481",
        "NotoSansCJK-Bold.ttc": "faa5f3656a78b2e2d450d27fe8382c778bc2b6bb5ea29c986664a6a435056ceb",
        "NotoSerifCJK-Bold.ttc": "a5d4b046c127da3d7c72f98b46c41489cd29bf52abfdf18aba920903e920d4ac",
        "DejaVuSans.ttf": "abdc775b21b1bc470d50c97e790d276f2054b7504e56e5bd3e64f48d68582322",
        "DejaVuSerif.ttf": "13e61509f5c81d7c3132810f4f903e3523df89c802bf6e0674621e8f659cdfe1",
        "DejaVuSans-Bold.ttf": "0d977336a6d5fba34eab8e3199eb218327161b5143749f802982c2bc34df0c96",
        "DejaVuSerif-Bold.ttf": "e2fd85eba2de65ac270d1cdb1685e252eb827f600850cf62af2d20c41b22e945",
    },
    "pillow": "13.0.0",
    "freetype": "2.14.3",
}
STYLES = {"default": HardenedStyle(), "per-character": HardenedStyle(font_change="character", wave_shared=False)}
DIGESTS = {
    ("default", "english", "reference"): "fc46f86401c0c883e7c04d5740b65a198006348bbdeef0eb9dea0fac76e5fedb",
    ("default", "english", "candidate"): "1f374a6db016869d0240e48a805008871c79b41c33d1301860c2a086475d818b",
    ("default", "chinese", "reference"): "8d2aa42e9269c81d235a48982482ff6eca80cf746bf7c20e6f30f8d1dc4032c5",
    ("default", "chinese", "candidate"): "0263fae5aa7ab2d59f89ff3366c2db029f5ec4a934909a9b9c42a98eab872938",
    ("default", "mixed", "reference"): "98b2e59c34a40195fd77de1ed92c9fb578df4095b7ffe9e79ed5f2a15c2d09e0",
    ("default", "mixed", "candidate"): "a82f1c8eb69f500f3b5594edf75da081c196bedae73380444bda0bf70d625b70",
    ("per-character", "english", "reference"): "e479e806c45ceedb026a23c9adb1e0693092e1469d249fe6b96aca3f3cef24b0",
    ("per-character", "english", "candidate"): "5f333bbd5a93b18902f6538f05db2c67d3d90cf7121ea691f0fc490dfbc30c0e",
    ("per-character", "chinese", "reference"): "f2598936450c39881d5213488eef2bd56a7db4dea33e38045d74ce973248d023",
    ("per-character", "chinese", "candidate"): "23b5e85e663b2e80028b4aa95ff8a2580db663908e3980798620cde9247a9bc3",
    ("per-character", "mixed", "reference"): "e9110ca98bbecdae352cd672edde09b7289dfd40e1c3df566877ab8186f82043",
    ("per-character", "mixed", "candidate"): "f8227669701fe66dcf817295356628db45060f29dbb259e620f470ebe6d18d01",
}


@pytest.fixture(scope="module")
def chain() -> FontChain:
    return FontChain.load(None)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_hardened_images_keep_their_bytes(chain: FontChain, style: str) -> None:
    skip_unless_recorded_with(RECORDED_WITH, environment(
        FONT_FOLDERS["noto" if name.startswith("Noto") else "dejavu"] / name for name in RECORDED_WITH["fonts"]))
    renderer = Renderer(chain, STYLES[style])
    found = {(style, name, role.value): hashlib.sha256(renderer.render(text, role)).hexdigest()
             for name, text in TEXTS.items() for role in Role}
    assert found == {key: digest for key, digest in DIGESTS.items() if key[0] == style}


def _drawn_whole(ink: Image.Image, glyph: Glyph) -> tuple[int, int, int, int]:
    """What the render did before: the glyph's whole square canvas turned by ``Image.rotate`` and laid
    over ``ink`` lighter-of-the-two; the box of its ink."""
    font = _font(glyph.font, glyph.size)
    size = int(font.size * 2)
    origin = (size / 4, size * 0.7)
    canvas = Image.new("L", (size, size), 0)
    ImageDraw.Draw(canvas).text(origin, glyph.character, font=font, fill=255, anchor="ls")
    left, top = math.floor(glyph.x - origin[0]), math.floor(glyph.y - origin[1])
    turned = canvas.rotate(glyph.angle, resample=Image.Resampling.BICUBIC,
                           center=(origin[0] + glyph.advance / 2, origin[1]),
                           # Pillow's stubs say int; the affine matrix takes any real shift
                           translate=(glyph.x - origin[0] - left, glyph.y - origin[1] - top))  # type: ignore[arg-type]
    region = (left, top, left + size, top + size)
    ink.paste(ImageChops.lighter(ink.crop(region), turned), region)
    box = turned.getbbox() or (0, 0, 0, 0)
    return left + box[0], top + box[1], left + box[2], top + box[3]


def test_a_glyph_turned_where_its_ink_reaches_is_the_glyph_turned_whole(chain: FontChain) -> None:
    rng = random.Random(7)
    fonts = [face.spec for face in chain.faces]
    characters = "agjQW|—国的。，ÅÆœ.-"
    width, height = 300, 160
    for k in range(400):
        character = rng.choice(characters)
        font = fonts[chain.face_of(character) or 0]
        glyph = Glyph(character, font, rng.randint(14, 48), rng.uniform(5, 40),
                      rng.uniform(-30, width + 10), rng.uniform(-20, height + 30),  # partly outside too
                      rng.uniform(-25, 25), 0, 0)
        whole = Image.new("L", (width, height), 0)
        ImageDraw.Draw(whole).rectangle((40, 30, 120, 90), fill=90)  # ink already there: lighter of the two
        expected_box = _drawn_whole(whole, glyph)
        reached = np.zeros((height, width), dtype=np.uint8)
        reached[30:91, 40:121] = 90
        assert _draw_glyph(reached, glyph) == expected_box, (k, glyph)
        assert np.array_equal(reached, np.asarray(whole)), (k, glyph)


@pytest.mark.parametrize(("size", "seed"), [((720, 133), 1), ((97, 1025), 2), ((1, 1), 3)])
def test_the_speckle_is_the_points_a_randrange_loop_draws(size: tuple[int, int], seed: int) -> None:
    count = max(1, size[0] * size[1] // 180) * 3  # (more than the render's: pixels drawn twice)
    drawn = Image.new("L", size, 255)
    rng = random.Random(seed)
    draw = ImageDraw.Draw(drawn)
    for _ in range(count):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        draw.point((x, y), fill=rng.randint(0xCC, 245))
    after_loop = rng.random()
    set_at_once = Image.new("L", size, 255)
    fast = random.Random(seed)
    _speckle(set_at_once, fast, count, 0xCC, 245)
    assert set_at_once.tobytes() == drawn.tobytes()
    assert fast.random() == after_loop  # the same numbers drawn: the texture goes on alike
