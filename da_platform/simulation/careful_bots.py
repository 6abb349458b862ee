"""Careful bots: automated raters that work through the real worker pages in Chromium, as a determined
attacker would build them, and simulated people who take the same path (for the simulation only).

Every worker drives its own browser context through Playwright's async API, so many rate at once in one
Chromium. The input is Playwright's ``page.mouse`` and ``page.keyboard``: DevTools Protocol input events,
which the page sees as trusted (``event.isTrusted``), exactly as a person's. Per item a worker

1. waits until the page shows the item and keeps the served images (the network responses, bytes as served);
2. reads them: OCR with Tesseract (English or Chinese by the question's script, which the page shows as
   text), or, for the kinds that stand for a vision model or a person, the slot's true texts, quality and kind
   (:class:`SlotTruth`, known to the simulation only);
3. decides a score with its strategy (:mod:`da_platform.simulation.careful_rules`); the check-aware bots first compare
   Answer B's pixels with every Answer B seen before in the HIT, with a tolerance (the per-slot image
   variation changes a few pixels by one level), and give a match the earlier score;
4. takes a human time: ``careful_rules.bot_seconds`` for bots (about 9-11 s for a typical item), or
   ``careful_rules.person_seconds`` for people; the first touch of the slider comes after 55-90 % of it;
5. moves the pointer along a curved, jittered path to the slider and clicks or drags it, reads where the
   slider ended and corrects (a drag or arrow keys) when it is off by more than 2, then moves to Next and
   clicks it (mouse down, a pause, mouse up).

``time_scale`` multiplies every wait (1: real time). Below 1 the pages' clock (``performance.now``) and the
server's (:class:`ScaledClock`, given to the app as ``create_app(clock=...)``) are slowed by the same factor, so
behaviour records and the server's time on item still show the unscaled times; reported numbers need real
pace all the same (the browser's own scheduling is not scaled).

Two browsers: ``stock`` as Playwright launches headless Chromium (``navigator.webdriver`` true,
``HeadlessChrome`` in the user agent, WebGL in software), and ``evading``: launched with
``--disable-blink-features=AutomationControlled``, with a user agent without "Headless" and a WebGL
renderer name rewritten by an init script, which is all it takes to hide the three automation traces of
the behaviour record. Simulated people use the evading browser: a person's browser shows no trace.

Never imported by the product (the web app, the CLI, the analysis): this is the simulation's side.
"""
from __future__ import annotations

import asyncio
import hashlib
import io
import math
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from da_platform.db.models import utcnow
from da_platform.rating.behaviour_record import TRACES
from da_platform.simulation import careful_rules as rules
from da_platform.simulation.people import KIND_OF, SYSTEM, HitState, Person
from da_platform.simulation.profiles import random_profile

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
EVADING_ARGS = ["--disable-blink-features=AutomationControlled"]
EVADING_WEBGL = """(() => {
  const gl2 = window.WebGL2RenderingContext;
  for (const proto of [WebGLRenderingContext.prototype, gl2 && gl2.prototype]) {
    if (!proto) continue;
    const get = proto.getParameter;
    proto.getParameter = function (name) {
      const value = get.call(this, name);
      if (typeof value !== "string") return value;
      return value.replace(/SwiftShader|llvmpipe|softpipe|Subzero/g, "Mesa Intel(R) UHD");
    };
  }
})();"""
STATE = """previous => {
  if (location.pathname.endsWith('/done')) return 'done';
  if (document.getElementById('message') !== null) return 'message';
  const form = document.getElementById('rating-form'), notice = document.getElementById('notice');
  if (form === null) return false;
  if (notice !== null && !notice.hidden) return notice.querySelector('a') ? 'refused' : 'lost';
  return form.dataset.ready === '1' && document.querySelector('input[name=slot]').value !== previous ? 'ready' : false;
}"""
SCALED_CLOCK = """(() => {
  const scale = %r, now = performance.now.bind(performance), start = now();
  performance.now = () => start + (now() - start) / scale;
})();"""
SLIDER_PAD = 8  # px from each end of the range input to where its values 0 and 100 sit (half a thumb)
REPEAT_TOLERANCE = 0.001  # share of pixels that may differ by more than 2 levels for two images to match


@dataclass(frozen=True)
class Kind:
    """How one kind of worker reads, scores and paces."""

    name: str
    description: str
    reads: str  # "ocr" | "truth"
    score: str  # "overlap" | "check-aware" | "judge" | "quality" | "person" (simulation.people)
    noise: float = 10.0
    pace: str = "bot"  # "bot" | "person"
    evading: bool = False
    automated: bool = True  # False: a simulated person


_BOTS = (
    Kind("overlap-noise-5", "OCR; 100 x ROUGE-L overlap of B with A, + N(0, 5)", "ocr", "overlap", 5),
    Kind("overlap-noise-10", "OCR; 100 x ROUGE-L overlap of B with A, + N(0, 10)", "ocr", "overlap", 10),
    Kind("overlap-noise-20", "OCR; 100 x ROUGE-L overlap of B with A, + N(0, 20)", "ocr", "overlap", 20),
    Kind("check-aware", "OCR; REPEATs matched by pixels, rewrites spotted by rules, else overlap + N(0, 10)",
         "ocr", "check-aware"),
    Kind("judge-noise", "the automatic judge (chrF of B against A, true texts) + N(0, 10)", "truth", "judge"),
    Kind("competent", "true quality with a person's bias, scale and noise; bot pace", "truth", "quality"),
)
KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    *(variant for bot in _BOTS for variant in (
        bot, replace(bot, name=f"{bot.name}-evading", evading=True,
                     description=f"{bot.name}, in a browser that hides the automation traces"))),
    Kind("honest", "a simulated person fitted to real crowd workers (simulation.people); reading pace", "truth",
         "person", pace="person", evading=True, automated=False),
)}
"""Every bot kind in the stock browser and as ``<kind>-evading`` (the automation traces hidden), and ``honest``."""


@dataclass(frozen=True)
class SlotTruth:
    """What the simulation knows of a slot: its true quality and texts (a vision model reads as well)."""

    quality: float
    candidate: str
    reference: str | None
    slot_type: str = "SYSTEM"  # what the slot is (a check's kind), for a simulated person's scores
    answer_quality: float | None = None  # the true quality of its answer (a check's original's); None: ``quality``


@dataclass
class WorkerRun:
    """One worker's HIT: what it did, and its own log of what it spotted (for the benchmark)."""

    name: str
    kind: str
    config: str
    ratings: int = 0
    finished: bool = False
    error: str | None = None
    rated: list[str] = field(default_factory=list)  # slot public ids, in the order rated
    scores: list[int] = field(default_factory=list)  # the score the slider showed when Next was pressed
    spotted: dict[str, str] = field(default_factory=dict)  # slot public id -> "repeat" or a rewrite rule
    seconds: list[float] = field(default_factory=list)  # time meant for each item (unscaled)
    taken: list[float] = field(default_factory=list)  # real seconds each item took (waits scaled, the rest not)


class ScaledClock:
    """The server's clock for runs faster than real time: time since ``start`` divided by ``scale``
    (``create_app(clock=...)``: called with an assignment's token, the same for all)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.start = utcnow()

    def __call__(self, token: str) -> datetime:
        return self.start + (utcnow() - self.start) / self.scale


class OcrFarm:
    """Tesseract readings shared by every bot of a run, keyed by the image with its lowest bits dropped (so the
    per-slot variation does not defeat the cache), at most ``parallel`` readings at a time."""

    def __init__(self, parallel: int = 2) -> None:
        from da_platform.simulation.ocr import TesseractReader

        self.readers = {"eng": TesseractReader("eng"), "chi_sim": TesseractReader("chi_sim+eng")}
        self._texts: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()
        self._slots = asyncio.Semaphore(parallel)
        self.readings = 0

    async def read(self, png: bytes, language: str) -> str:
        key = (language, hashlib.sha256((grey(png) >> 2).tobytes()).hexdigest())
        with self._lock:
            if key in self._texts:
                return self._texts[key]
        async with self._slots:
            text = await asyncio.to_thread(self.readers[language].read, png)
        with self._lock:
            self._texts[key] = text
            self.readings += 1
        return text


def grey(png: bytes) -> np.ndarray:
    """The image as 8-bit grey levels."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("L"), dtype=np.uint8)


def same_picture(a: np.ndarray, b: np.ndarray, tolerance: float = REPEAT_TOLERANCE) -> bool:
    """Whether two images show the same thing: equal size, and at most ``tolerance`` of the pixels differ by
    more than 2 levels."""
    if a.shape != b.shape:
        return False
    return float(np.mean(np.abs(a.astype(np.int16) - b.astype(np.int16)) > 2)) <= tolerance


def bezier_path(start: tuple[float, float], end: tuple[float, float], rng: np.random.Generator) -> list[tuple]:
    """Points along a curved, jittered pointer path (a cubic Bézier with random control points, about one
    point per 12 px, each off by up to a pixel)."""
    (x0, y0), (x3, y3) = start, end
    distance = math.hypot(x3 - x0, y3 - y0)
    bend = rng.normal(0, 0.25) * distance
    angle = math.atan2(y3 - y0, x3 - x0) + math.pi / 2
    x1, y1 = x0 + (x3 - x0) * 0.3 + bend * math.cos(angle), y0 + (y3 - y0) * 0.3 + bend * math.sin(angle)
    x2, y2 = x0 + (x3 - x0) * 0.7 + bend * math.cos(angle) * 0.5, y0 + (y3 - y0) * 0.7 + bend * math.sin(angle) * 0.5
    steps = max(4, int(distance / 12))
    points = []
    for i in range(1, steps + 1):
        t = i / steps
        t = t * t * (3 - 2 * t)  # slow at both ends, as a hand moves
        x = (1 - t) ** 3 * x0 + 3 * (1 - t) ** 2 * t * x1 + 3 * (1 - t) * t * t * x2 + t ** 3 * x3
        y = (1 - t) ** 3 * y0 + 3 * (1 - t) ** 2 * t * y1 + 3 * (1 - t) * t * t * y2 + t ** 3 * y3
        jitter = rng.uniform(-1, 1, 2) if i < steps else (0, 0)
        points.append((x + jitter[0], y + jitter[1]))
    return points


class Hand:
    """A pointer and keyboard on one page, moving like a hand."""

    def __init__(self, page: Any, rng: np.random.Generator) -> None:
        self.page = page
        self.rng = rng
        self.at = (float(rng.uniform(200, 600)), float(rng.uniform(100, 400)))

    async def move(self, x: float, y: float) -> None:
        for px, py in bezier_path(self.at, (x, y), self.rng):
            await self.page.mouse.move(px, py)
            await asyncio.sleep(float(self.rng.uniform(0.006, 0.018)))
        self.at = (x, y)

    async def click(self, x: float, y: float) -> None:
        await self.move(x, y)
        await self.page.mouse.down()
        await asyncio.sleep(float(self.rng.uniform(0.06, 0.14)))
        await self.page.mouse.up()

    async def drag(self, start_x: float, end_x: float, y: float) -> None:
        await self.move(start_x, y)
        await self.page.mouse.down()
        overshoot = end_x + float(self.rng.normal(0, 6))
        for px, py in bezier_path((start_x, y), (overshoot, y + float(self.rng.normal(0, 2))), self.rng):
            await self.page.mouse.move(px, py)
            await asyncio.sleep(float(self.rng.uniform(0.008, 0.02)))
        await self.page.mouse.move(end_x, y + float(self.rng.normal(0, 1)), steps=3)
        await asyncio.sleep(float(self.rng.uniform(0.05, 0.12)))
        await self.page.mouse.up()
        self.at = (end_x, y)

    async def reveal(self, selector: str) -> dict:
        """Scroll with the mouse wheel until the element is in the window, as a person does; its box."""
        viewport = self.page.viewport_size
        for _ in range(40):
            box = await self.page.locator(selector).bounding_box()
            if box is None:
                raise RuntimeError(f"{selector} is not on the page")
            if box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]:
                return box
            step = float(self.rng.uniform(120, 320))
            await self.page.mouse.wheel(0, step if box["y"] > 0 else -step)
            await asyncio.sleep(float(self.rng.uniform(0.05, 0.2)))
        raise RuntimeError(f"{selector} could not be scrolled into the window")

    async def keys(self, key: str, times: int) -> None:
        for _ in range(times):
            await self.page.keyboard.press(key)
            await asyncio.sleep(float(self.rng.uniform(0.07, 0.16)))

    async def set_slider(self, target: int) -> int:
        """Move the slider to about ``target`` (click or drag, then corrections); the score it ended at."""
        box = await self.reveal("#slider")
        left, width, y = box["x"] + SLIDER_PAD, box["width"] - 2 * SLIDER_PAD, box["y"] + box["height"] / 2

        def x_of(value: float) -> float:
            return left + width * min(100.0, max(0.0, value)) / 100

        if self.rng.random() < 0.6:
            await self.click(x_of(target) + float(self.rng.normal(0, 2.5)), y + float(self.rng.normal(0, 2)))
        else:
            await self.drag(x_of(float(self.rng.uniform(25, 75))), x_of(target) + float(self.rng.normal(0, 2.5)), y)
        reached = int(await self.page.input_value("#score"))
        for _ in range(3):
            off = target - reached
            if abs(off) <= 2:
                break
            await asyncio.sleep(float(self.rng.uniform(0.2, 0.6)))
            if abs(off) <= 6 and self.rng.random() < 0.5:
                await self.keys("ArrowRight" if off > 0 else "ArrowLeft", abs(off))
            else:
                await self.drag(x_of(reached), x_of(target) + float(self.rng.normal(0, 1.5)), y)
            reached = int(await self.page.input_value("#score"))
        return reached

    async def press_next(self) -> None:
        box = await self.reveal("#next")
        await self.click(box["x"] + box["width"] * float(self.rng.uniform(0.3, 0.7)),
                         box["y"] + box["height"] * float(self.rng.uniform(0.3, 0.7)))


@dataclass
class Worker:
    """One worker of a kind, rating one HIT through the pages."""

    name: str
    kind: Kind
    config: str
    invite_url: str
    truth: Mapping[str, SlotTruth]
    rng: np.random.Generator
    ocr: OcrFarm | None = None
    time_scale: float = 1.0
    on_rating: Callable[[], None] | None = None
    profile: Any = None
    repeats: list[tuple[np.ndarray, int]] = field(default_factory=list)
    person: Person | None = None  # the honest kind: a person as fitted to real crowd workers, and this HIT's state
    hit: HitState | None = None

    def __post_init__(self) -> None:
        # The competent bot: true quality through a person's bias, scale and noise (the idealised worker's).
        self.profile = random_profile("honest", self.rng)
        if self.kind.score == "person":
            self.person = Person.draw(self.rng)
            self.hit = self.person.start_hit(self.rng)

    async def run(self, context: Any) -> WorkerRun:
        record = WorkerRun(self.name, self.kind.name, self.config)
        page = await context.new_page()
        page.set_default_timeout(120_000)
        images: dict[str, bytes] = {}
        pending: list[asyncio.Task] = []

        async def keep(response: Any) -> None:
            if "/image/" in response.url and response.ok:
                try:
                    images[response.url] = await response.body()
                except Exception:  # noqa: BLE001 - a response the page dropped (navigation): fetched again below
                    pass

        page.on("response", lambda response: pending.append(asyncio.ensure_future(keep(response))))
        hand = Hand(page, self.rng)
        try:
            await page.goto(self.invite_url)
            if await page.locator("#start").count() == 0:
                raise RuntimeError(f"no task offered: {(await page.inner_text('main'))[:200]}")
            await asyncio.sleep(self._scaled(float(self.rng.uniform(4, 12))))  # reads the instructions
            box = await hand.reveal("#start")
            await hand.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            previous, lost = "", 0
            while True:
                state = await (await page.wait_for_function(STATE, arg=previous, timeout=300_000)).json_value()
                if state == "done":
                    record.finished = True
                    break
                if state == "lost":  # the page could not send the rating: Next again, as a person would
                    lost += 1
                    if lost > 20:
                        raise RuntimeError("the page could not send a rating in 20 tries")
                    await asyncio.sleep(float(self.rng.uniform(2, 4)))
                    await hand.press_next()  # (a press while the rating is on its way does nothing)
                    continue
                if state != "ready":
                    text = await page.inner_text("#notice" if state == "refused" else "main")
                    raise RuntimeError(f"the page said: {' '.join(text.split())[:200]}")
                slot = await page.input_value("input[name=slot]")
                await self._rate(page, hand, slot, images, pending, record)
                record.rated.append(slot)
                record.ratings += 1
                if self.on_rating is not None:
                    self.on_rating()
                previous = slot
        except Exception as error:  # noqa: BLE001 - one worker's failure is reported, the others go on
            record.error = f"{type(error).__name__}: {error}"[:500]
        finally:
            await page.close()
        return record

    def _scaled(self, seconds: float) -> float:
        return seconds * self.time_scale

    async def _served(self, page: Any, selector: str, images: dict[str, bytes], pending: list) -> bytes | None:
        """The bytes of an answer image as served (captured from the network, else fetched again)."""
        if await page.locator(selector).is_hidden():
            return None
        src = await page.eval_on_selector(selector, "img => img.src")  # (currentSrc lags behind a new src)
        if not src:
            return None
        await asyncio.gather(*pending)
        pending.clear()
        if src not in images:
            response = await page.context.request.get(src)
            images[src] = await response.body()
        return images[src]

    async def _rate(self, page: Any, hand: Hand, slot: str, images: dict[str, bytes], pending: list,
                    record: WorkerRun) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        truth = self.truth.get(slot)
        question = await page.inner_text("#question")
        candidate_png = await self._served(page, "#answer-b", images, pending)
        reference_png = await self._served(page, "#answer-a", images, pending)
        score, texts = await self._decide(slot, question, candidate_png, reference_png, truth, record)
        seconds = (rules.person_seconds if self.kind.pace == "person" else rules.bot_seconds)(texts, self.rng)
        first_input = seconds * float(self.rng.uniform(0.55, 0.9))
        await asyncio.sleep(max(0.0, began + self._scaled(first_input) - loop.time()))
        record.scores.append(await hand.set_slider(score))
        await asyncio.sleep(max(0.0, began + self._scaled(seconds) - loop.time()))
        record.seconds.append(seconds)
        record.taken.append(loop.time() - began)
        await hand.press_next()

    async def _decide(self, slot: str, question: str, candidate_png: bytes | None, reference_png: bytes | None,
                      truth: SlotTruth | None, record: WorkerRun) -> tuple[int, list[str]]:
        """The score this worker gives, and the texts it read (for its pace)."""
        kind = self.kind
        if kind.reads == "truth" or candidate_png is None:
            if truth is None:  # not a slot of the campaign (e.g. a practice item): a middle score
                return int(self.rng.integers(40, 61)), [question]
            texts = [truth.candidate] + ([truth.reference] if truth.reference and reference_png else [])
            if kind.score == "judge":
                return rules.judge_noise(truth.candidate, truth.reference or "", kind.noise, self.rng), texts
            if self.person is not None and self.hit is not None:
                quality = truth.quality if truth.answer_quality is None else truth.answer_quality
                return self.person.score(KIND_OF.get(truth.slot_type, SYSTEM), quality, self.hit, self.rng), texts
            return self.profile.rate(truth.quality, self.rng), texts
        assert self.ocr is not None
        language = "chi_sim" if HAN.search(question) else "eng"
        candidate = await self.ocr.read(candidate_png, language)
        reference = await self.ocr.read(reference_png, language) if reference_png else ""
        texts = [candidate, reference]
        if kind.score == "check-aware":
            picture = grey(candidate_png)
            for earlier, given in self.repeats:
                if same_picture(picture, earlier):
                    record.spotted[slot] = "repeat"
                    return given, texts
            score, rewrite = rules.check_aware(candidate, reference, kind.noise, self.rng)
            if rewrite is not None:
                record.spotted[slot] = rewrite.rule
            self.repeats.append((picture, score))
            return score, texts
        return rules.overlap_noise(candidate, reference, kind.noise, self.rng), texts


async def launch(playwright: Any, *, evading: bool) -> Any:
    """Headless Chromium, stock (as Playwright launches it) or evading (see the module docstring)."""
    return await playwright.chromium.launch(executable_path=CHROMIUM,
                                            args=CHROMIUM_ARGS + (EVADING_ARGS if evading else []))


async def new_context(browser: Any, *, hide_user_agent: bool = False, hide_webgl: bool = False,
                      time_scale: float = 1.0) -> Any:
    """A fresh context (no shared cookies or cache) of a desktop size; ``hide_user_agent``: a user agent without
    "Headless"; ``hide_webgl``: the WebGL renderer's name rewritten; scaled: the page's clock slowed by
    ``time_scale``."""
    options: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}
    if hide_user_agent:
        version = browser.version.split(".")[0]
        options["user_agent"] = (f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
                                 f"Chrome/{version}.0.0.0 Safari/537.36")
    context = await browser.new_context(**options)
    if hide_webgl:
        await context.add_init_script(EVADING_WEBGL)
    if time_scale != 1.0:
        await context.add_init_script(SCALED_CLOCK % time_scale)
    return context


async def run_workers(workers: list[Worker]) -> list[WorkerRun]:
    """Every worker at once, each in its own context of the stock or the evading Chromium."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browsers = {evading: await launch(playwright, evading=evading)
                    for evading in sorted({w.kind.evading for w in workers})}

        async def one(worker: Worker) -> WorkerRun:
            evading = worker.kind.evading
            context = await new_context(browsers[evading], hide_user_agent=evading, hide_webgl=evading,
                                        time_scale=worker.time_scale)
            try:
                return await worker.run(context)
            finally:
                await context.close()

        try:
            return list(await asyncio.gather(*(one(w) for w in workers)))
        finally:
            for browser in browsers.values():
                await browser.close()


TRACE_PAGE = """<!doctype html><form id="rating-form"><input type="hidden" name="slot" value="s-1">
<input type="range" id="slider" min="0" max="100"></form>"""
TRACE_VARIANTS: dict[str, tuple[list[str], bool, bool]] = {
    # name: (launch flags, user agent without "Headless", WebGL renderer rewritten by an init script)
    "stock (Playwright's headless Chromium)": ([], False, False),
    "--headless=new": (["--headless=new"], False, False),
    "--disable-blink-features=AutomationControlled": (EVADING_ARGS, False, False),
    "that flag + a user agent without Headless": (EVADING_ARGS, True, False),
    "that + a WebGL init script (the evading kinds)": (EVADING_ARGS, True, True),
}


async def page_traces(script: str) -> dict[str, dict[str, int]]:
    """The automation traces the worker page's own script (``behaviour.js``, given as text) records in each
    of ``TRACE_VARIANTS``: variant -> {trace: 0 or 1}."""
    import json

    from playwright.async_api import async_playwright

    found = {}
    async with async_playwright() as playwright:
        for name, (flags, user_agent, webgl) in TRACE_VARIANTS.items():
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + flags)
            context = await new_context(browser, hide_user_agent=user_agent, hide_webgl=webgl)
            page = await context.new_page()
            await page.set_content(TRACE_PAGE)
            await page.add_script_tag(content=script)
            record = await page.evaluate("""() => { const form = document.getElementById('rating-form');
                form.dispatchEvent(new Event('submit')); return form.querySelector('input[name=behaviour]').value; }""")
            found[name] = {trace: json.loads(record)[trace] for trace in TRACES}
            await browser.close()
    return found


def scaled_clock(time_scale: float) -> ScaledClock | None:
    """The server's clock for ``time_scale`` (None: the real clock, at real pace)."""
    return None if time_scale == 1.0 else ScaledClock(time_scale)


def slot_truth(session: Any, campaign_id: int, quality: Mapping[str, Mapping[str, float]]) -> dict[str, SlotTruth]:
    """Slot public id -> its true quality (``da_platform.simulation.crowd.SlotOracle``) and texts, for one campaign."""
    from sqlalchemy import select

    from da_platform.db.models import Hit, Slot
    from da_platform.simulation.crowd import SlotOracle

    oracle = SlotOracle.from_database(session, campaign_id, quality)
    rows = session.execute(select(Slot.public_id, Slot.candidate_text, Slot.reference_text)
                           .join(Hit, Slot.hit_id == Hit.id).where(Hit.campaign_id == campaign_id)).all()
    return {public_id: SlotTruth(oracle(public_id), candidate, reference, *oracle.answer(public_id))
            for public_id, candidate, reference in rows}
