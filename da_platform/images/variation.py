"""Per-slot image bytes: an imperceptible, deterministic pixel variation applied when an image is served.

A REPEAT slot shows the very images of its original (stored once, deduplicated by content), so a
bot that hashes what it downloads could pair them and answer the repeat with the same score. At
serve time :func:`vary` flips the lowest bit of a few pixels chosen by an HMAC of the secret key,
the slot's public id and the image's role: the same slot always gets the same bytes (a reload looks
the same), two slots get different bytes, and nobody without the secret key can tell which pixels
were touched. A change of 1 in 255 on a handful of pixels cannot be seen.

Not a defence against a bot that compares pixels with a tolerance (or perceptual hashes): that
pairs the images all the same (see docs/security.md).
"""
from __future__ import annotations

import hashlib
import hmac
import io

from PIL import Image

PIXELS = 12  # pixels changed per image


def positions(key: bytes, width: int, height: int, channels: int, count: int = PIXELS) -> list[tuple[int, int, int]]:
    """``count`` (x, y, channel) triples drawn from an HMAC-SHA256 stream keyed by ``key``."""
    chosen: list[tuple[int, int, int]] = []
    counter = 0
    while len(chosen) < count:
        block = hmac.new(key, counter.to_bytes(4, "big"), hashlib.sha256).digest()
        counter += 1
        for i in range(0, len(block) - 7, 8):
            number = int.from_bytes(block[i:i + 8], "big")
            x, number = number % width, number // width
            y, number = number % height, number // height
            chosen.append((x, y, number % channels))
            if len(chosen) == count:
                break
    return chosen


def vary(png: bytes, slot_public_id: str, role: str, secret_key: str | bytes) -> bytes:
    """``png`` with a few pixels changed by one level, the same for the same slot and role every time.

    Images that cannot be decoded are returned unchanged (the stored bytes are the platform's own).
    """
    secret = secret_key.encode() if isinstance(secret_key, str) else secret_key
    key = hmac.new(secret, f"image-variation\x00{slot_public_id}\x00{role}".encode(), hashlib.sha256).digest()
    try:
        image: Image.Image = Image.open(io.BytesIO(png))
        image.load()
    except Exception:  # noqa: BLE001 - not an image Pillow reads: serve it as stored
        return png
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    channels = len(image.getbands())
    for x, y, channel in positions(key, image.width, image.height, channels):
        value = image.getpixel((x, y))
        if isinstance(value, int):  # one band
            image.putpixel((x, y), value ^ 1)
        elif isinstance(value, tuple):
            changed = list(value)
            changed[channel] = int(changed[channel]) ^ 1
            image.putpixel((x, y), tuple(changed))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
