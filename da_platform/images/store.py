"""The image store the platform uses, opened from the settings (``$DA_IMAGE_STORE`` and friends).

``folder`` (the default): files under ``$DA_IMAGE_FOLDER``, on the disk of the server that built the
campaign. ``database``: the ``image_blob`` table of the platform's database. ``s3``: a bucket of an
S3-compatible object store (``$DA_S3_BUCKET``, ``$DA_S3_ENDPOINT_URL``, ``$DA_S3_PREFIX``,
``$DA_S3_REGION``). With ``database`` or ``s3`` an app server keeps nothing on its own disk.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from da_platform.config.settings import ImageStore
from hit_builder.storage import ImageStorage, LocalImageStorage

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from da_platform.config.settings import Settings


class ImageStoreError(ValueError):
    """The image store's settings are incomplete (the message names the variable)."""


def open_image_storage(settings: Settings, *, folder: Path | None = None,
                       engine: Engine | None = None) -> ImageStorage:
    """The storage ``settings`` name. ``folder``: the folder store's folder instead of ``settings.images``;
    ``engine``: the caller's engine for the database store (the web app shares its pool), else one is
    made from the database URL."""
    if settings.image_store is ImageStore.folder:
        return LocalImageStorage(folder or settings.images)
    if settings.image_store is ImageStore.database:
        from da_platform.images.database import DatabaseImageStorage

        if engine is not None:
            return DatabaseImageStorage(engine=engine)
        return DatabaseImageStorage(settings.database_url)
    from da_platform.images.s3 import S3ImageStorage

    if not settings.s3_bucket:
        raise ImageStoreError("DA_IMAGE_STORE=s3 needs a bucket name (DA_S3_BUCKET)")
    return S3ImageStorage(settings.s3_bucket, endpoint_url=settings.s3_endpoint_url, prefix=settings.s3_prefix,
                          region=settings.s3_region)
