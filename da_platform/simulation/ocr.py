"""Reading answer images back into text, as an attacker's bot would: Tesseract and RapidOCR.

Used by the adversarial simulated crowd (``da_platform.simulation.adversaries``) and by the OCR benchmark
(``benchmarks/ocr_resistance.py``). Both readers take the PNG bytes the worker page serves and
return one line of text: lines joined by a space, and no space left between two Chinese characters
(Tesseract puts spaces between them). :func:`character_error_rate` compares a reading with the text
that was drawn.

Tesseract needs the Debian packages ``tesseract-ocr`` and ``tesseract-ocr-chi-sim``
(``scripts/install-system-packages.sh``) and the ``pytesseract`` wrapper; RapidOCR needs the
``rapidocr-onnxruntime`` wheel, which carries its ONNX models (no download at run time).
"""
from __future__ import annotations

import io
import re
import threading
from typing import Any, Protocol

_CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_SPACE_BETWEEN_CJK = re.compile(f"(?<=[{_CJK}])\\s+(?=[{_CJK}])")


class OcrUnavailable(RuntimeError):
    """The OCR engine (program, language data or Python package) is not installed."""


class Reader(Protocol):
    name: str

    def read(self, png: bytes) -> str: ...


def normalise(text: str) -> str:
    """One line: whitespace runs become one space, none between two CJK characters or punctuation."""
    return _SPACE_BETWEEN_CJK.sub("", " ".join(text.split()))


class TesseractReader:
    """Tesseract 5 (``chi_sim+eng``: it reads both scripts of the sample data), page mode 6 (a block)."""

    name = "tesseract"

    def __init__(self, languages: str = "chi_sim+eng") -> None:
        try:
            import pytesseract
        except ImportError as error:
            raise OcrUnavailable(f"the pytesseract package is not installed ({error})") from None
        try:
            available = set(pytesseract.get_languages(config=""))
        except (pytesseract.TesseractNotFoundError, pytesseract.TesseractError, OSError) as error:
            raise OcrUnavailable(f"Tesseract is not usable here ({error}); install tesseract-ocr and "
                                 "tesseract-ocr-chi-sim") from None
        missing = [lang for lang in languages.split("+") if lang not in available]
        if missing:
            raise OcrUnavailable(f"Tesseract lacks the language data {', '.join(missing)} "
                                 "(Debian: tesseract-ocr-chi-sim / tesseract-ocr-eng)")
        self._tesseract = pytesseract
        self.languages = languages

    def read(self, png: bytes) -> str:
        from PIL import Image

        with Image.open(io.BytesIO(png)) as image:
            text = self._tesseract.image_to_string(image.convert("L"), lang=self.languages, config="--psm 6")
        return normalise(text)


class RapidOcrReader:
    """RapidOCR (PP-OCR detection and recognition models on ONNX Runtime), one engine shared by threads."""

    name = "rapidocr"
    _lock = threading.Lock()
    _engine: Any = None

    def __init__(self) -> None:
        with RapidOcrReader._lock:
            if RapidOcrReader._engine is None:
                try:
                    from rapidocr_onnxruntime import RapidOCR
                except ImportError as error:
                    raise OcrUnavailable(f"RapidOCR is not installed ({error}); pip install "
                                         "rapidocr-onnxruntime") from None
                RapidOcrReader._engine = RapidOCR()

    def read(self, png: bytes) -> str:
        with RapidOcrReader._lock:  # the engine is not documented as thread-safe
            result, _ = RapidOcrReader._engine(png)
        if not result:
            return ""
        # Lines top to bottom (the detector returns boxes; sort by the top-left corner's y).
        lines = sorted(result, key=lambda line: (line[0][0][1], line[0][0][0]))
        return normalise(" ".join(line[1] for line in lines))


READERS = {"tesseract": TesseractReader, "rapidocr": RapidOcrReader}


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions) between two strings."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def character_error_rate(truth: str, reading: str) -> float:
    """Edit distance between the normalised texts over the truth's length (can exceed 1)."""
    truth, reading = normalise(truth), normalise(reading)
    if not truth:
        raise ValueError("the true text is empty")
    return levenshtein(truth, reading) / len(truth)
