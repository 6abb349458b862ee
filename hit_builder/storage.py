"""Where rendered answer images live: a small interface, and a local folder implementing it.

Keys are content addresses (SHA-256 of the PNG bytes, in hex): identical images are stored once and a
key says nothing about the text, the system or the slot type.

SECURITY (for the worker pages): never put a storage key in anything a worker receives. A ``REPEAT``
slot shows exactly the images of its original, so its key equals the original's key and would give the
check away. Serve images under the slot's opaque public id (``/image/<slot public_id>/candidate``), look
the key up on the server, and stream ``storage.read(key)``.

Implementations: :class:`LocalImageStorage` (a folder, the default), ``da_platform.images.database``
(a table of the platform's database) and ``da_platform.images.s3`` (an S3-compatible object store);
``da_platform.images.store`` picks one from the configuration. For parallel rendering a storage must be
picklable (it is sent to the rendering processes), which write through ``put_many`` a chunk at a time.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Protocol, runtime_checkable

_KEY = re.compile(r"^[0-9a-f]{64}$")


@runtime_checkable
class ImageStorage(Protocol):
    """Content-addressed storage of PNG images."""

    def put(self, png: bytes) -> str:
        """Store the image (once, whatever the number of calls) and return its opaque key."""

    def put_many(self, pngs: list[bytes]) -> list[str]:
        """Store several images (one round trip or transaction where the storage allows); their keys."""

    def read(self, key: str) -> bytes:
        """The image stored under ``key`` (``KeyError`` when there is none; :class:`StoreUnavailable`
        when a remote store cannot be reached in time)."""

    def exists(self, key: str) -> bool:
        """Whether an image is stored under ``key``."""


class StoreUnavailable(RuntimeError):
    """The store could not be reached, or did not answer in time: nothing is known to be wrong with the
    key, and the same call may succeed a few seconds later (the web pages answer 503 "try again")."""


def content_key(png: bytes) -> str:
    """The key of an image: SHA-256 of its bytes in hex."""
    return hashlib.sha256(png).hexdigest()


def check_key(key: object) -> str:
    """``key`` if it is an image key, else ``KeyError`` (no path or object-name tricks from a URL)."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise KeyError(f"not an image key: {key!r}")
    return key


class LocalImageStorage:
    """Images as files ``<folder>/<key[:2]>/<key>.png``, written atomically (safe across processes)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def __repr__(self) -> str:
        return f"LocalImageStorage({str(self.folder)!r})"

    def path(self, key: str) -> Path:
        """File of ``key``; refuses anything that is not a key (no path tricks from a URL)."""
        check_key(key)
        return self.folder / key[:2] / f"{key}.png"

    def put(self, png: bytes) -> str:
        key = content_key(png)
        target = self.path(key)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(png)
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        return key

    def put_many(self, pngs: list[bytes]) -> list[str]:
        return [self.put(png) for png in pngs]

    def read(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            raise KeyError(f"no image stored under {key}") from None

    def exists(self, key: str) -> bool:
        try:
            return self.path(key).is_file()
        except KeyError:
            return False
