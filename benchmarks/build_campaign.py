"""Benchmark: build a campaign of 1,000 HITs (100,000 slots: 70,000 items + 30,000 checks) on SQLite.

Generates a test set (7,000 questions, 10 systems; 5 % of the questions in Chinese, 20 % yes/no
questions whose short answers systems often share), then times ``build_campaign`` end to end:
assembly, degradation, rendering (deduplicated: each distinct text and role once), bulk inserts and
verification. In the same run it renders every slot's images on their own (candidate and, for
adequacy, reference: 200,000 images, no deduplication) with the same renderer and processes, and
reports the ratio. Peak memory is the maximum resident set of this process and of the rendering
processes (``resource.getrusage``).

    python benchmarks/build_campaign.py [--questions 7000] [--systems 10] [--processes N] [--style 2x|1x]
"""
from __future__ import annotations

import argparse
import itertools
import os
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, insert, select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.building.crowds import CrowdChoice
from da_platform.db.engine import make_engine, session_factory, upgrade
from da_platform.db.models import Answer, Hit, Question, Reference, Slot, SlotType, System, TestSet
from hit_builder.fonts import FontChain
from hit_builder.render import Renderer, RenderStyle, Role, render_many
from hit_builder.storage import LocalImageStorage

CHINESE = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说"
           "产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从"
           "业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利")


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
    words = {"".join(rng.choice(syllables) for _ in range(rng.choice((1, 2, 2, 3, 3, 4)))) for _ in range(size * 2)}
    return rng.sample(sorted(words), size)


class TextMaker:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        self.cum_weights = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(self.words))))  # Zipf

    def sentence(self, n: int) -> str:
        words = self.rng.choices(self.words, cum_weights=self.cum_weights, k=n)
        return " ".join(words).capitalize() + "."

    def chinese(self, n: int) -> str:
        return "".join(self.rng.choice(CHINESE) for _ in range(n)) + "。"

    def answer_like(self, reference: str, quality: float) -> str:
        words = reference.rstrip(".").split()
        kept = [w if self.rng.random() < quality else self.rng.choices(self.words, cum_weights=self.cum_weights)[0]
                for w in words]
        if self.rng.random() > quality:
            kept = kept[: max(1, len(kept) * 2 // 3)] + self.sentence(self.rng.randint(2, 10)).rstrip(".").split()
        return " ".join(kept).capitalize() + "."


def generate(url: str, questions: int, systems: int, seed: int = 1) -> None:
    """Insert the test set in bulk (not timed)."""
    maker = TextMaker(seed)
    rng = maker.rng
    engine = make_engine(url)
    with session_factory(engine)() as session:
        test_set = TestSet(name="bench")
        session.add(test_set)
        session.flush()
        question_rows, reference_texts, kinds = [], [], []
        for i in range(questions):
            kind = "zh" if i % 20 == 0 else "yes_no" if i % 5 == 1 else "text"
            question_rows.append({"test_set_id": test_set.id, "external_id": f"q{i:05d}",
                                  "text": f"Question {i}: what explains it?"})
            if kind == "zh":
                reference_texts.append(maker.chinese(rng.randint(12, 60)))
            elif kind == "yes_no":
                reference_texts.append(rng.choice(("Yes.", "No.")) + " " + maker.sentence(rng.randint(3, 8)))
            else:
                reference_texts.append(maker.sentence(rng.randint(8, 45)))
            kinds.append(kind)
        question_ids = list(session.scalars(insert(Question).returning(Question.id, sort_by_parameter_order=True),
                                            question_rows))
        session.execute(insert(Reference), [{"question_id": q, "position": 0, "text": t}
                                            for q, t in zip(question_ids, reference_texts)])
        system_ids = list(session.scalars(insert(System).returning(System.id, sort_by_parameter_order=True),
                                          [{"test_set_id": test_set.id, "name": f"system{s:02d}"}
                                           for s in range(systems)]))
        answers = []
        for s, system_id in enumerate(system_ids):
            quality = 0.3 + 0.65 * s / max(1, systems - 1)
            for question_id, reference, kind in zip(question_ids, reference_texts, kinds):
                if kind == "yes_no":
                    text = rng.choice(("Yes.", "No.")) if rng.random() < 0.6 else maker.answer_like(reference, quality)
                elif kind == "zh":
                    text = maker.chinese(rng.randint(5, 50))
                else:
                    text = maker.answer_like(reference, quality)
                answers.append({"system_id": system_id, "question_id": question_id, "text": text})
        session.execute(insert(Answer), answers)
        session.commit()
    engine.dispose()


def max_rss_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: kilobytes


def cpu_seconds(who: int) -> float:
    """CPU time (user + system) of this process, or of its finished children (the rendering pools)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


class PerSlotStorage:
    """The no-deduplication baseline: every image is written to a file of its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def path(self, key: str) -> Path:
        return self.folder / key[-2:] / f"{key}.png"

    def put(self, png: bytes) -> str:
        self.count += 1
        key = f"{os.getpid()}-{self.count}"
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return key

    def put_many(self, pngs: list[bytes]) -> list[str]:
        """What the rendering processes call (``hit_builder.render.render_many``): a file each."""
        return [self.put(png) for png in pngs]

    def read(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            raise KeyError(key) from None

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=7000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--processes", type=int, default=None, help="rendering processes [default: all cores]")
    parser.add_argument("--naive-sample", type=int, default=5000,
                        help="images drawn without any cache for the naive baseline")
    parser.add_argument("--style", choices=["2x", "1x"], default="2x",
                        help="2x: the default RenderStyle (720 px for 360 CSS px); "
                             "1x: the earlier 720 px at 1x, 22 px font")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    style = RenderStyle() if args.style == "2x" else RenderStyle(width=720, font_size=22, padding=10, scale=1)

    folder = Path(tempfile.mkdtemp(prefix="da-bench-build-"))
    url = f"sqlite:///{folder / 'bench.sqlite'}"
    upgrade(url)
    started = time.perf_counter()
    generate(url, args.questions, args.systems)
    print(f"generated {args.questions} questions x {args.systems} systems in {time.perf_counter() - started:.1f} s")

    engine = make_engine(url)
    sessions = session_factory(engine)
    marks: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        marks.setdefault("render_start", time.perf_counter())
        marks.setdefault("render_own_cpu_start", cpu_seconds(resource.RUSAGE_SELF))
        marks["render_end"] = time.perf_counter()
        marks["render_own_cpu_end"] = cpu_seconds(resource.RUSAGE_SELF)
        marks["images"] = total  # the distinct (text, role) images the build draws

    storage = LocalImageStorage(folder / "images")
    rss_before = max_rss_mib(resource.RUSAGE_SELF)
    own_before, children_before = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with sessions() as session:
        spec = BuildSpec(name="bench", test_set="bench", seed=1, crowd=CrowdChoice(render=style))
        campaign = build_campaign(session, spec,
                                  storage=storage, progress=progress, processes=args.processes)
        session.commit()
        build_seconds = time.perf_counter() - started
        # Rendering CPU: the rendering processes' (reaped by now), plus the build process's own while it
        # rendered (all of it with --processes 1, where the build process draws every image itself).
        render_cpu = (cpu_seconds(resource.RUSAGE_CHILDREN) - children_before
                      + marks["render_own_cpu_end"] - marks["render_own_cpu_start"])
        build_cpu = (cpu_seconds(resource.RUSAGE_SELF) - own_before
                     + cpu_seconds(resource.RUSAGE_CHILDREN) - children_before)
        hits = session.query(Hit).filter_by(campaign_id=campaign.id).count()
        items = session.scalar(select(func.count()).select_from(Slot).join(Hit)
                               .where(Hit.campaign_id == campaign.id, Slot.slot_type == SlotType.SYSTEM))
        slot_rows = session.execute(
            select(Slot.candidate_text, Slot.reference_text).join(Hit).where(Hit.campaign_id == campaign.id)
            .order_by(Hit.index, Slot.position)).all()
    images = int(marks["images"])
    render_seconds = marks["render_end"] - marks["render_start"]
    files = list((folder / "images").rglob("*.png"))
    average_bytes = sum(f.stat().st_size for f in files) / len(files)
    parent_rss = max_rss_mib(resource.RUSAGE_SELF)
    children_rss = max_rss_mib(resource.RUSAGE_CHILDREN)

    # Without deduplication: every slot's images rendered on their own, same renderer and processes.
    jobs = []
    for candidate, reference in slot_rows:
        jobs.append((candidate, Role.candidate, "slot"))
        if reference is not None:
            jobs.append((reference, Role.reference, "slot"))
    renderer = Renderer(FontChain.load(), style)
    children_before, own_before = cpu_seconds(resource.RUSAGE_CHILDREN), cpu_seconds(resource.RUSAGE_SELF)
    started = time.perf_counter()
    render_many(renderer, jobs, PerSlotStorage(folder / "images-per-slot"), processes=args.processes)
    per_slot_seconds = time.perf_counter() - started
    per_slot_cpu = (cpu_seconds(resource.RUSAGE_CHILDREN) - children_before
                    + cpu_seconds(resource.RUSAGE_SELF) - own_before)
    engine.dispose()

    # The naive baseline: every image drawn from scratch (no word cache), one process, on a sample.
    sample = jobs[:: max(1, len(jobs) // args.naive_sample)]
    naive = Renderer(FontChain.load(), style, word_cache=0)
    started = time.process_time()
    for text, role, _where in sample:
        naive.render(text, role)
    naive_cpu = (time.process_time() - started) / len(sample) * len(jobs)

    print(f"campaign: {hits} HITs, {len(slot_rows)} slots, {items} items")
    print(f"build (assemble, degrade, render, insert, verify): {build_seconds:.1f} s wall, "
          f"{build_cpu:.1f} s CPU (all processes)")
    print(f"load while measuring: {os.getloadavg()[0]:.1f} (1-minute average; 2 would fill both cores)")
    print(f"rendering with dedup: {images} distinct images in {render_seconds:.1f} s wall, {render_cpu:.1f} s CPU = "
          f"{images / render_seconds:.0f} images/s; average PNG {average_bytes:.0f} bytes")
    print(f"rendering every slot's images on their own (a file each): {len(jobs)} images in "
          f"{per_slot_seconds:.1f} s wall, {per_slot_cpu:.1f} s CPU = {len(jobs) / per_slot_seconds:.0f} images/s")
    print(f"dedup speed-up of rendering: {per_slot_seconds / render_seconds:.2f}x wall, "
          f"{per_slot_cpu / max(render_cpu, 1e-9):.2f}x CPU (all processes, while rendering); per-slot rendering "
          f"alone against the whole dedup build: {per_slot_seconds / build_seconds:.2f}x wall")
    print(f"naive per-slot rendering (no word cache, every {len(jobs) // len(sample)}th slot image, "
          f"{len(sample)} images, extrapolated to {len(jobs)}): {naive_cpu:.0f} s CPU = "
          f"{naive_cpu / max(render_cpu, 1e-9):.2f}x the dedup rendering CPU")
    rendering = ("no rendering processes (--processes 1: the build process draws)" if args.processes == 1
                 else f"largest rendering process {children_rss:.0f} MiB")
    print(f"peak memory: build process {parent_rss:.0f} MiB (before build {rss_before:.0f} MiB), {rendering}")
    if args.keep:
        print(f"kept {folder}")
    else:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
