"""The OCR-resistant images (``--render hardened``) keep their exact bytes, and the parts that make them fast
draw what they stand for: a glyph drawn once per character, font and size (rounded up to a multiple of
``_SIZE_STEP``) and turned onto the box its ink reaches, the texture's speckle set in one go, the decoys
tested against every glyph at once.

The digests were recorded (tests/render_digests.py) with the fonts (the chain's and their serif and bold
siblings), Pillow and FreeType named below, after the render was made cheaper (bilinear turns instead of
bicubic, numpy's generator for the texture: the pictures changed, docs/benchmarks-log.md); elsewhere the
pictures differ by a few antialiased pixels, so the comparison is only run with those. The faster parts are
also compared with what they stand for, Pillow's ``Image.rotate`` of the whole page and a fresh drawing, on
any machine.
"""
from __future__ import annotations

import hashlib
import math
import random
from pathlib import Path

import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw

from hit_builder import ocr_resistant
from hit_builder.fonts import FontChain, FontFace
from hit_builder.ocr_resistant import (
    _SIZE_STEP,
    _UPRIGHT_CACHE,
    Glyph,
    HardenedStyle,
    _advance,
    _draw_glyph,
    _font,
    _speckle,
    _upright,
)
from hit_builder.render import Renderer, Role
from tests.render_digests import TEXTS, environment, skip_unless_installed, skip_unless_recorded_with

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
    ("default", "english", "reference"): "5dca13ed8ac94d1c2cda160f4cec0db967e856b5af5a50b5b393c0bc02c0c172",
    ("default", "english", "candidate"): "b769b316101dc86247ee38650d20c37b6e7936d134eb02d80d43a45a544dd035",
    ("default", "chinese", "reference"): "12dde73ff23294b2f20b0d8b36d42b25696d668e202d755abf67eb34951beb64",
    ("default", "chinese", "candidate"): "cb53c4bc1846d2dcd5ad044a42aef9b39035e72fac8e07e0f062393bccc72359",
    ("default", "mixed", "reference"): "21c7d3a9608d411f06a757f72df192d83d631104c88b2009356b2d4116f8b65b",
    ("default", "mixed", "candidate"): "2331fe3ff9da57b6d52ea10962f97fa40ae8c6057869fcf1a196fb7e8ed926ec",
    ("per-character", "english", "reference"): "5a74251db56d2fff8c8b74c7b54cb7e9e82e69d52621ce909f75bc18a5d8a55d",
    ("per-character", "english", "candidate"): "83672b8ba6267370d0610235071d4f5798b662184ef1f82b18bb0704419df8d1",
    ("per-character", "chinese", "reference"): "6ad3004bf4e8ab0c21f42865862ca3fcaea06d5e371d65f82dcfc39ebca48b81",
    ("per-character", "chinese", "candidate"): "49c5038cb00f8ca80899107dee88751e3ac46b413d3cc0f9909bead34d658e0e",
    ("per-character", "mixed", "reference"): "279162b6f35da8538a0244cb183474178b9a38de9bc4c3b4a73760444844a88f",
    ("per-character", "mixed", "candidate"): "4a7a00be7a2069ac278b4ec391031efb0e12067eeaa793cc850b5e4d17f93ed9",
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


def _turned_whole_page(glyph: Glyph, size: tuple[int, int]) -> np.ndarray:
    """The glyph's upright canvas laid on a page and the whole page turned by Pillow's ``Image.rotate``
    (bilinear) about the middle of the glyph's baseline, moved by the fraction of a pixel that puts its
    baseline's start on (x, y)."""
    upright = _upright(glyph.character, glyph.font, glyph.size)
    assert upright is not None and upright.size == glyph.size  # sizes a multiple of _SIZE_STEP: not scaled
    ox, oy = upright.origin
    left, top = math.floor(glyph.x - ox), math.floor(glyph.y - oy)
    page = Image.new("L", (size[0] + 200, size[1] + 200), 0)  # 100 pixels of margin all round
    page.paste(upright.canvas, (left + 100, top + 100))
    turned = page.rotate(glyph.angle, resample=Image.Resampling.BILINEAR,
                         center=(left + 100 + ox + glyph.advance / 2, top + 100 + oy),
                         # Pillow's stubs say int; the affine matrix takes any real shift
                         translate=(glyph.x - ox - left, glyph.y - oy - top))  # type: ignore[arg-type]
    return np.asarray(turned, dtype=np.int64)[100:-100, 100:-100]


def test_a_glyph_turned_onto_its_box_is_the_page_turned_whole(chain: FontChain) -> None:
    rng = random.Random(7)
    fonts = [face.spec for face in chain.faces]
    characters = "agjQW|—国的。，ÅÆœ.-"
    width, height = 300, 160
    for k in range(300):
        character = rng.choice(characters)
        glyph = Glyph(character, fonts[chain.face_of(character) or 0], _SIZE_STEP * rng.randint(4, 12),
                      rng.uniform(5, 40), rng.uniform(-30, width + 10), rng.uniform(-20, height + 30),  # partly outside
                      rng.uniform(-25, 25), 0, 0)
        expected = _turned_whole_page(glyph, (width, height))
        drawn = Image.new("L", (width, height), 0)
        ImageDraw.Draw(drawn).rectangle((40, 30, 120, 90), fill=90)  # ink already there
        box = _draw_glyph(drawn, glyph)
        found = np.asarray(drawn, dtype=np.int64)
        # Over ink already there the coverage of both: 1 - (1 - a)(1 - b), on 0-255.
        behind = np.zeros((height, width), dtype=np.int64)
        behind[30:91, 40:121] = 90
        both = 255 - (255 - behind) * (255 - expected) / 255
        assert np.abs(found - both).max() <= 1, (k, glyph)  # a level of rounding, where a value falls halfway
        alone = Image.new("L", (width, height), 0)
        _draw_glyph(alone, glyph)
        ink = alone.getbbox()
        if ink is not None:  # the box returned (decoys keep clear of it) holds all of the glyph's ink
            assert box[0] <= ink[0] and box[1] <= ink[1] and ink[2] <= box[2] and ink[3] <= box[3], (k, glyph)


def test_a_glyph_of_another_size_is_scaled_to_it(chain: FontChain) -> None:
    """Drawn at the next multiple of _SIZE_STEP and scaled down as it is turned: its ink is as tall as
    FreeType's own drawing at its size, to a pixel."""
    for character, spec in (("国", chain.faces[0].spec), ("H", chain.faces[-1].spec)):
        for size in range(36, 45):
            drawn = Image.new("L", (200, 200), 0)
            _draw_glyph(drawn, Glyph(character, spec, size, 30.0, 50.0, 150.0, 0.0, 0, 0))
            ink = drawn.point(lambda v: 255 if v >= 128 else 0).getbbox()
            own = Image.new("L", (200, 200), 0)
            ImageDraw.Draw(own).text((50, 150), character, font=_font(spec, size), fill=255, anchor="ls")
            truth = own.point(lambda v: 255 if v >= 128 else 0).getbbox()
            assert ink is not None and truth is not None
            assert abs((ink[3] - ink[1]) - (truth[3] - truth[1])) <= 1, (character, size, ink, truth)


def test_a_render_from_the_caches_is_the_render_drawn_afresh(chain: FontChain) -> None:
    renderer = Renderer(chain, HardenedStyle())
    text = TEXTS["mixed"] + TEXTS["chinese"]
    first = renderer.render(text, Role.candidate)
    assert _upright.cache_info().currsize > 0  # the glyphs are kept ...
    assert renderer.render(text, Role.candidate) == first  # ... and drawn from the cache alike
    for cached in (_upright, ocr_resistant._decoy, _advance, ocr_resistant._plain_font, _font):
        cached.cache_clear()
    assert Renderer(FontChain.load(None), HardenedStyle()).render(text, Role.candidate) == first
    # The cache of drawn glyphs is bounded (a few kB a glyph).
    assert _upright.cache_info().maxsize == _UPRIGHT_CACHE <= 10_000


def test_wide_characters_advance_alike_with_and_without_text_layout() -> None:
    """CJK characters are measured without raqm (:func:`_advance`): the same lengths as with it."""
    from PIL import ImageFont

    folder = Path("/usr/share/fonts/opentype/noto")
    fonts = sorted(folder.glob("Noto*CJK-*.ttc"))
    if not fonts:
        skip_unless_installed("no Noto CJK font installed")
    characters = [chr(code) for code in range(0x4E00, 0x9FFF, 97)] + list("，。、：；！？（）「」《》")
    for path in fonts:
        for size in (36, 41):
            laid = ImageFont.truetype(str(path), size, index=2)
            plain = ImageFont.truetype(str(path), size, index=2, layout_engine=ImageFont.Layout.BASIC)
            assert [plain.getlength(c) for c in characters] == [laid.getlength(c) for c in characters], path


@pytest.mark.parametrize("spec", ["/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc#2",
                                  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
def test_a_face_read_with_numbered_glyphs_covers_what_its_character_map_says(spec: str) -> None:
    path, _, index = spec.partition("#")
    if not Path(path).is_file():
        skip_unless_installed(f"{path} is not installed")
    font = TTFont(path, fontNumber=int(index or 0), lazy=True)  # read the usual way, glyph names and all
    assert FontFace.load(spec).codepoints == frozenset(font.getBestCmap())
    font.close()


@pytest.mark.parametrize(("size", "seed"), [((720, 133), 1), ((97, 1025), 2), ((1, 1), 3)])
def test_the_speckle_sets_its_count_of_pixels_evenly(size: tuple[int, int], seed: int) -> None:
    count = max(1, size[0] * size[1] // 180)
    image = Image.new("L", size, 255)
    _speckle(image, np.random.default_rng(seed), count, 0xCC, 245)
    pixels = np.asarray(image)
    changed = pixels[pixels != 255]
    assert changed.size <= count and (changed.size == 0 or changed.min() >= 0xCC)
    if size[0] * size[1] > 1000:
        # Few collisions, and both halves of the image (top and bottom) speckled alike.
        assert changed.size >= 0.9 * count
        top, bottom = (pixels[: size[1] // 2] < 245).sum(), (pixels[size[1] // 2:] < 245).sum()
        assert abs(int(top) - int(bottom)) < 0.2 * (top + bottom)
        again = Image.new("L", size, 255)
        _speckle(again, np.random.default_rng(seed), count, 0xCC, 245)
        assert again.tobytes() == image.tobytes()


def test_the_texture_takes_64_bits_of_the_text_generator(chain: FontChain) -> None:
    """Everything the texture draws comes from one 64-bit seed: the text's generator goes on as if it had
    drawn just that."""
    image = Image.new("L", (720, 300), 255)
    rng = random.Random(5)
    ocr_resistant._texture(image, rng, HardenedStyle(), chain, 60, [(100, 100, 200, 150)])
    after = random.Random(5)
    after.getrandbits(64)
    assert rng.random() == after.random()
    pixels = np.asarray(image)
    assert pixels.min() >= HardenedStyle().texture_darkest and (pixels < 255).mean() > 0.004
