"""Which image store the platform uses, from the configuration ($DA_IMAGE_STORE and friends).

``folder`` (the default): files under ``$DA_IMAGE_FOLDER``, on the disk of the server that built the
campaign. ``database``: the ``image_blob`` table of the platform's database. ``s3``: a bucket of an
S3-compatible object store (``$DA_S3_BUCKET``, ``$DA_S3_ENDPOINT_URL``, ``$DA_S3_PREFIX``,
``$DA_S3_REGION``). With ``database`` or ``s3`` an app server keeps nothing on its own disk.
"""
from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from hit_builder.storage import ImageStorage, LocalImageStorage


class ImageStore(str, enum.Enum):
    folder = "folder"
    database = "database"
    s3 = "s3"


class ImageStoreError(ValueError):
    """The image store configuration is incomplete or names no known store."""


def store_kind(value: str | None) -> ImageStore:
    """The store named by ``value`` (``DA_IMAGE_STORE``); ``folder`` when unset."""
    try:
        return ImageStore((value or "folder").strip().lower())
    except ValueError:
        names = ", ".join(kind.value for kind in ImageStore)
        raise ImageStoreError(f"DA_IMAGE_STORE={value!r} is not an image store (choose one of: {names})") from None


def open_image_storage(config: Mapping[str, Any], *, engine: Engine | None = None) -> ImageStorage:
    """The storage described by ``config`` (keys ``IMAGE_STORE``, ``IMAGE_FOLDER``, ``DATABASE_URL``,
    ``S3_BUCKET``, ``S3_ENDPOINT_URL``, ``S3_PREFIX``, ``S3_REGION``, as in the web configuration).

    ``engine``: the caller's engine for the database store (the web app shares its pool); else one
    is made from ``DATABASE_URL``.
    """
    kind = store_kind(config.get("IMAGE_STORE"))
    if kind is ImageStore.folder:
        if not config.get("IMAGE_FOLDER"):
            raise ImageStoreError("DA_IMAGE_STORE=folder needs an image folder (DA_IMAGE_FOLDER)")
        return LocalImageStorage(Path(config["IMAGE_FOLDER"]))
    if kind is ImageStore.database:
        from da_platform.images.database import DatabaseImageStorage

        if engine is not None:
            return DatabaseImageStorage(engine=engine)
        if not config.get("DATABASE_URL"):
            raise ImageStoreError("DA_IMAGE_STORE=database needs a database (DA_DATABASE_URL)")
        return DatabaseImageStorage(config["DATABASE_URL"])
    from da_platform.images.s3 import S3ImageStorage

    if not config.get("S3_BUCKET"):
        raise ImageStoreError("DA_IMAGE_STORE=s3 needs a bucket name (DA_S3_BUCKET)")
    return S3ImageStorage(config["S3_BUCKET"], endpoint_url=config.get("S3_ENDPOINT_URL") or None,
                          prefix=config.get("S3_PREFIX") or "", region=config.get("S3_REGION") or None)


def settings_config(settings: Any, image_folder: Path | None = None) -> dict[str, Any]:
    """The ``open_image_storage`` keys from a :class:`da_platform.config.settings.Settings`."""
    folder = image_folder or settings.images
    return {"IMAGE_STORE": settings.image_store, "IMAGE_FOLDER": str(folder),
            "DATABASE_URL": settings.database_url, "S3_BUCKET": settings.s3_bucket,
            "S3_ENDPOINT_URL": settings.s3_endpoint_url, "S3_PREFIX": settings.s3_prefix,
            "S3_REGION": settings.s3_region}
