"""Benchmark: how well OCR engines read the answer images, plain vs OCR-resistant (``--render hardened``).

Takes the first ``--texts`` English and Chinese answers of the bundled sample (references and system
answers, alternating), renders each as a candidate image with the plain style and with the hardened
style, reads every image with Tesseract (``chi_sim+eng``) and RapidOCR, and reports the character error
rate (edit distance / length of the true text, whitespace-normalised; ``da_platform.simulation.ocr``) per
language, style and engine: mean and median over the texts, and the share of texts read with a CER
under 10 %; and what an overlap bot gets from the reading: the overlap of the reading with the true
text by that engine's bot's own measure (``da_platform.simulation.adversaries``: ROUGE-L for Tesseract, bag-of-
tokens F1 for RapidOCR; 1 = read perfectly for its purpose, word order included for ROUGE-L only).

    python benchmarks/ocr_resistance.py [--texts 20] [--hardened '{"max_rotation": 16}']
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from typing import Any

from da_platform.simulation.adversaries import OVERLAPS
from da_platform.simulation.ocr import RapidOcrReader, Reader, TesseractReader, character_error_rate
from da_platform.simulation.sample_data import load_truth, sample_data_dir
from hit_builder.fonts import FontChain
from hit_builder.ocr_resistant import HardenedStyle, render_style
from hit_builder.render import Renderer, Role

HAN = re.compile(r"[\u4e00-\u9fff]")


def sample_texts(per_language: int) -> dict[str, list[str]]:
    """English and Chinese texts of the sample: references and system answers, alternating."""
    folder = sample_data_dir()
    questions = [json.loads(line) for line in (folder / "test_set.jsonl").read_text(encoding="utf-8").splitlines()]
    systems = [info["file"] for info in load_truth()["systems"].values() if info["file"]]
    answers: dict[str, list[str]] = {}
    for file in systems:
        for line in (folder / file).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            answers.setdefault(row["id"], []).append(row["answer"])
    texts: dict[str, list[str]] = {"English": [], "Chinese": []}
    for number, question in enumerate(questions):
        language = "Chinese" if HAN.search(question["question"]) else "English"
        pool = [question["references"][0]] + answers.get(question["id"], [])
        texts[language].append(pool[number % len(pool)])
    return {language: found[:per_language] for language, found in texts.items()}


def hardened_style(fields: str) -> HardenedStyle:
    """A :class:`HardenedStyle` with the fields given as JSON changed (lists for pairs)."""
    changed: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(fields).items()}
    return HardenedStyle(**changed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=20, help="texts per language")
    parser.add_argument("--hardened", help="HardenedStyle fields to change, as JSON (lists for pairs)")
    parser.add_argument("--styles", default="plain,hardened", help="which images to read")
    args = parser.parse_args()
    chain = FontChain.load(None)
    styles = {name: render_style(name) for name in args.styles.split(",")}
    if args.hardened and "hardened" in styles:
        styles["hardened"] = hardened_style(args.hardened)
    renderers = {name: Renderer(chain, style) for name, style in styles.items()}
    readers: list[Reader] = [TesseractReader(), RapidOcrReader()]
    print(f"{'language':<8} {'images':<9} {'engine':<10} {'mean CER':>8} {'median':>7} {'CER<10%':>8} "
          f"{'overlap':>8} {'s/image':>8}")
    for language, texts in sample_texts(args.texts).items():
        for style, renderer in renderers.items():
            images = [renderer.render(text, Role.candidate) for text in texts]
            for reader in readers:
                started = time.perf_counter()
                readings = [reader.read(png) for png in images]
                seconds = (time.perf_counter() - started) / len(texts)
                errors = [character_error_rate(text, reading) for text, reading in zip(texts, readings)]
                overlap = statistics.mean(OVERLAPS[reader.name](reading, text)
                                          for text, reading in zip(texts, readings))
                good = sum(e < 0.10 for e in errors) / len(errors)
                print(f"{language:<8} {style:<9} {reader.name:<10} {statistics.mean(errors):>8.3f} "
                      f"{statistics.median(errors):>7.3f} {good:>8.0%} {overlap:>8.3f} {seconds:>8.2f}")


if __name__ == "__main__":
    main()
