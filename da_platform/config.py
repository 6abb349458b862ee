"""Configuration from the environment (12-factor style): nothing secret lives in the code."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def default_instance_path() -> Path:
    """Folder for the embedded database and rendered images (the rule of ``da_platform.location``)."""
    from da_platform.location import locate

    return locate().instance_path


def database_url(instance_path: Path | None = None) -> str:
    """$DA_DATABASE_URL, a SQLite file in ``instance_path`` if given, else the rule of
    ``da_platform.location``."""
    from da_platform.location import locate

    url = os.environ.get("DA_DATABASE_URL")
    if url:
        return url
    if instance_path is not None:
        return f"sqlite:///{instance_path / 'da-platform.sqlite'}"
    return locate().database_url


@dataclass
class Settings:
    """Everything the platform reads from the environment, with safe defaults for development."""

    instance_path: Path = field(default_factory=default_instance_path)
    database_url: str = ""
    secret_key: str | None = None
    public_url: str = "http://127.0.0.1:5000"
    image_folder: Path | None = None
    # Where answer images live: folder (image_folder, the default) | database | s3 (da_platform/image_store.py).
    image_store: str = "folder"
    s3_bucket: str | None = None
    s3_endpoint_url: str | None = None
    s3_prefix: str = "images/"
    s3_region: str | None = None
    font_paths: list[str] = field(default_factory=list)

    @classmethod
    def from_env(cls) -> Settings:
        from da_platform.location import locate

        location = locate()
        instance = location.instance_path
        fonts = os.environ.get("DA_FONT", "")
        images = os.environ.get("DA_IMAGE_FOLDER")
        return cls(
            instance_path=instance,
            database_url=location.database_url,
            secret_key=os.environ.get("DA_SECRET_KEY"),
            public_url=os.environ.get("DA_PUBLIC_URL", "http://127.0.0.1:5000").rstrip("/"),
            image_folder=Path(images).resolve() if images else instance / "images",
            font_paths=[p for p in fonts.split(os.pathsep) if p],
            image_store=os.environ.get("DA_IMAGE_STORE", "folder").strip().lower() or "folder",
            s3_bucket=os.environ.get("DA_S3_BUCKET") or None,
            s3_endpoint_url=os.environ.get("DA_S3_ENDPOINT_URL") or None,
            s3_prefix=os.environ.get("DA_S3_PREFIX", "images/"),
            s3_region=os.environ.get("DA_S3_REGION") or None,
        )
