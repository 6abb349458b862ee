"""Answer images (docs/method.md §4): wrapping per script, colours, fonts, missing glyphs, shaping, storage."""
from __future__ import annotations

import io
import os
import signal

import pytest
from PIL import Image

from hit_builder.fonts import DEFAULT_FONTS, FontChain, FontError, MissingGlyphError, resolve_font_specs
from hit_builder.render import (
    Renderer,
    RenderProcessDied,
    RenderStyle,
    Role,
    ShapingUnavailableError,
    check_shaping,
    complex_script,
    encode_grey4_png,
    render_many,
    rendering_processes,
    shaping_available,
)
from hit_builder.storage import LocalImageStorage

CHINESE = ("光合作用是植物利用阳光把水和二氧化碳变成糖和氧气的过程，叶子里的叶绿素吸收阳光的能量。"
           "然后储存在葡萄糖里面，植物用这些能量生长。") * 3
ENGLISH = ("Photosynthesis converts light energy into chemical energy that is stored in glucose, "
           "which the plant later uses to grow, repair its tissues and make seeds.") * 2
UGARITIC_A = "\U00010380"  # in no default font


@pytest.fixture(scope="module")
def chain() -> FontChain:
    return FontChain.load()


@pytest.fixture(scope="module")
def renderer(chain: FontChain) -> Renderer:
    return Renderer(chain)


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_default_chain_is_noto_cjk_then_dejavu(chain: FontChain) -> None:
    assert [f.name for f in chain.faces] == ["Noto Sans CJK SC", "DejaVu Sans"]
    assert chain.face_of("中") == 0 and chain.face_of("a") == 0
    assert chain.face_of("م") == 1  # Arabic only in DejaVu
    assert chain.face_of(UGARITIC_A) is None


def test_chinese_wraps_between_characters(renderer: Renderer) -> None:
    lines = renderer.wrap(CHINESE)
    assert len(lines) >= 3
    units = [unit for line in lines for _x, unit in line]
    assert "".join(units) == CHINESE
    for line in lines:
        x, unit = line[-1]
        assert x + renderer._unit(unit).width <= renderer.text_width
        assert line[0][1][0] not in "，。"  # never a line starting with closing punctuation
    # Lines are filled: the next character would not have fitted.
    first, second = lines[0], lines[1]
    end = first[-1][0] + renderer._unit(first[-1][1]).width
    assert end + renderer._unit(second[0][1]).width > renderer.text_width


def test_latin_wraps_at_spaces_only(renderer: Renderer) -> None:
    lines = renderer.wrap(ENGLISH)
    assert len(lines) >= 3
    assert [unit for line in lines for _x, unit in line] == ENGLISH.split()
    for line in lines:
        assert line[-1][0] + renderer._unit(line[-1][1]).width <= renderer.text_width


def test_mixed_text_breaks_at_spaces_and_between_cjk_characters(renderer: Renderer) -> None:
    units = renderer.units("用Python写程序（很简单）。Then English words.")
    assert units == [("用", False), ("Python", False), ("写", False), ("程", False), ("序", False),
                     ("（很", False), ("简", False), ("单）。", False), ("Then", False), ("English", True),
                     ("words.", True)]


def test_a_word_wider_than_the_line_is_broken(renderer: Renderer) -> None:
    word = "Pneumonoultramicroscopicsilicovolcanoconiosis" * 3
    lines = renderer.wrap(f"a {word} b")
    assert len(lines) >= 3
    assert "".join(unit for line in lines for _x, unit in line) == f"a{word}b"
    assert all(x + renderer._unit(u).width <= renderer.text_width for line in lines for x, u in line)


def test_image_size_colours_and_png_format(renderer: Renderer) -> None:
    style = renderer.style
    for role, darkest in ((Role.reference, style.reference_grey), (Role.candidate, style.candidate_grey)):
        image = decode(renderer.render(CHINESE, role))
        lines = len(renderer.wrap(CHINESE))
        assert image.size == (style.width, 2 * style.padding + lines * renderer.line_height)
        assert image.mode == "L"
        low, high = image.getextrema()
        assert (low, high) == (darkest, 255)
        assert set(image.tobytes()) <= {17 * level for level in range(16)}
    png = renderer.render(ENGLISH, Role.candidate)
    assert png[24] == 4 and png[25] == 0  # IHDR: 4 bits per pixel, greyscale
    plain = io.BytesIO()
    decode(png).convert("RGB").save(plain, format="PNG")
    assert len(png) < 0.65 * len(plain.getvalue())  # 4 bits a pixel instead of 24


def test_hard_line_breaks_are_kept(renderer: Renderer) -> None:
    assert len(renderer.wrap("one\ntwo\n\nfour")) == 4


def test_grey4_png_round_trips_an_odd_width() -> None:
    image = Image.new("L", (5, 3), 255)
    image.putpixel((4, 2), 0)
    image.putpixel((0, 0), 0x66)
    indexed = image.point([v // 17 for v in range(256)])
    indexed.putpalette([v for i in range(16) for v in (i * 17,) * 3])
    decoded = decode(encode_grey4_png(indexed.tobytes("raw", "P;4"), 5, 3))
    assert decoded.tobytes() == image.tobytes()


def test_missing_glyph_fails_naming_the_character_and_the_text(renderer: Renderer) -> None:
    text = f"The letter {UGARITIC_A} is ancient"
    with pytest.raises(MissingGlyphError) as error:
        renderer.render(text, Role.candidate, where="answer of system 'x', question 'q1'")
    message = str(error.value)
    assert "U+10380 UGARITIC LETTER ALPA" in message
    assert "answer of system 'x', question 'q1'" in message and "is ancient" in message
    assert error.value.character == UGARITIC_A


def test_complex_scripts_are_detected() -> None:
    assert complex_script("plain English, 中文") is None
    assert complex_script("abc مرحبا") == "Arabic"
    assert complex_script("שלום") == "Hebrew"
    assert complex_script("नमस्ते") == "Devanagari"


def test_without_shaping_complex_scripts_fail_clearly(chain: FontChain) -> None:
    with pytest.raises(ShapingUnavailableError, match="question 'q9'.*Arabic.*without libraqm"):
        check_shaping("مرحبا بالعالم", "question 'q9'", available=False)
    check_shaping("plain text needs no shaping", "q", available=False)
    renderer = Renderer(chain, shaping=False)
    with pytest.raises(ShapingUnavailableError, match="Hebrew"):
        renderer.render("שלום עולם", Role.candidate)
    assert decode(renderer.render(ENGLISH, Role.candidate)).height > 0


@pytest.mark.skipif(not shaping_available(), reason="this Pillow has no raqm; the failure path is tested above")
def test_right_to_left_text_is_shaped_and_right_aligned(renderer: Renderer) -> None:
    image = decode(renderer.render("مرحبا بالعالم", Role.candidate))  # shorter than half a line
    left, _top, right, _bottom = Image.eval(image, lambda v: 255 - v).getbbox()
    assert right > renderer.style.width - renderer.style.padding - 3  # ink reaches the right margin
    assert left > renderer.style.width // 2


def test_identical_text_renders_identically_and_is_stored_once(renderer: Renderer, tmp_path) -> None:
    storage = LocalImageStorage(tmp_path)
    first = renderer.render(ENGLISH, Role.candidate)
    assert Renderer(renderer.chain).render(ENGLISH, Role.candidate) == first
    assert storage.put(first) == storage.put(first)
    assert len(list(tmp_path.rglob("*.png"))) == 1
    assert renderer.render(ENGLISH, Role.reference) != first


def test_render_many_in_parallel_matches_one_process(renderer: Renderer, tmp_path) -> None:
    jobs = [(f"{ENGLISH[:40]} {i}", Role.candidate, f"text {i}") for i in range(30)] + [(CHINESE, Role.reference, "zh")]
    one = render_many(renderer, jobs, LocalImageStorage(tmp_path / "one"), processes=1)
    two = render_many(renderer, jobs, LocalImageStorage(tmp_path / "two"), processes=2)
    assert one == two and len(set(one)) == len(jobs)
    progress = []
    render_many(renderer, jobs, LocalImageStorage(tmp_path / "one"), processes=1,
                progress=lambda done, total: progress.append((done, total)))
    assert progress[-1] == (len(jobs), len(jobs))


class DyingStorage(LocalImageStorage):
    """A folder storage whose worker processes are killed the moment they store anything (as the system's
    out-of-memory killer would); the calling process stores normally."""

    def __init__(self, folder) -> None:
        super().__init__(folder)
        self.parent = os.getpid()

    def put_many(self, pngs: list[bytes]) -> list[str]:
        if os.getpid() != self.parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().put_many(pngs)


def test_a_render_process_that_dies_fails_the_build_instead_of_hanging(renderer: Renderer, tmp_path) -> None:
    """A multiprocessing.Pool replaced a killed worker and waited forever for its chunk (the hardened demo hung
    while rendering); the build now stops with an error that says what happened."""
    jobs = [(f"{ENGLISH[:40]} {i}", Role.candidate, f"text {i}") for i in range(30)]

    def hung(*_) -> None:
        raise TimeoutError("render_many still waiting for a dead process after 120 s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        with pytest.raises(RenderProcessDied, match="stopped before it finished.*killed"):
            render_many(renderer, jobs, DyingStorage(tmp_path), processes=2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_storage_keys_are_opaque_and_checked(tmp_path) -> None:
    storage = LocalImageStorage(tmp_path)
    key = storage.put(b"\x89PNG fake")
    assert len(key) == 64 and storage.exists(key) and storage.read(key) == b"\x89PNG fake"
    assert storage.path(key).parent.parent == tmp_path
    for bad in ("../../etc/passwd", key.upper(), key[:-1]):
        assert not storage.exists(bad)
        with pytest.raises(KeyError):
            storage.read(bad)
    with pytest.raises(KeyError):
        storage.read("0" * 64)


def test_font_configuration(tmp_path) -> None:
    from pathlib import Path

    from da_platform.config.settings import Settings

    dejavu = DEFAULT_FONTS[1]
    from_environment = list(Settings.from_environ({"DA_FONT": dejavu}, start=tmp_path).font_paths)
    assert from_environment == [dejavu]
    assert resolve_font_specs(from_environment) == [dejavu]
    assert resolve_font_specs() == [s for s in DEFAULT_FONTS if Path(s.partition("#")[0]).is_file()]
    chain = FontChain.load(from_environment)
    assert [f.name for f in chain.faces] == ["DejaVu Sans"]
    with pytest.raises(MissingGlyphError, match=r"U\+4E2D CJK UNIFIED IDEOGRAPH-4E2D"):
        chain.check("中文", "reference of question 'q1'")
    with pytest.raises(FontError, match="font file not found"):
        resolve_font_specs([str(tmp_path / "nope.ttf")])
    (tmp_path / "broken.ttf").write_bytes(b"not a font")
    with pytest.raises(FontError, match="cannot read font"):
        FontChain.load([str(tmp_path / "broken.ttf")])


def test_render_style_is_recorded() -> None:
    described = RenderStyle().describe()
    assert described["width"] == 720 and "4 bits" in described["png"]


def test_a_few_hundred_hardened_images_are_drawn_on_every_core() -> None:
    """A hardened build of a few hundred images took twice the plain build's time in one process while a second
    core stood idle (471 Chinese answers: 10.4 s against 7.4 s in two processes, for the same CPU); from about 3 s
    of drawing, render_many uses every core. Plain images go on being drawn in the calling process up to 1,000."""
    from hit_builder.ocr_resistant import HardenedStyle

    cores = os.cpu_count() or 1
    assert rendering_processes(250, HardenedStyle()) == cores
    assert rendering_processes(249, HardenedStyle()) == 1
    assert rendering_processes(999, RenderStyle()) == 1
    assert rendering_processes(1_000, RenderStyle()) == cores
