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
    font_paths: list[str] = field(default_factory=list)

    @classmethod
    def from_env(cls) -> "Settings":
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
        )
