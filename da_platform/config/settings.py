"""The platform's configuration: one frozen object, read once from the environment (12-factor style).

Each entry point builds it once with :meth:`Settings.from_environ` and passes it down: ``create_app``
(the web application; ``app.config`` is filled from it) and the CLI's main group (``CliContext``).
Nothing else reads the environment. Every variable read here is listed in docs/configuration.md
(``tests/config/test_settings.py`` holds the table and this module together). Secrets (the signing key,
the Prolific token) come only from the environment and are left out of ``repr``, so that they never
reach a log or an error message.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from da_platform.config.location import Location, locate
from da_platform.db.sqlite_commit import SqliteCommit
from da_platform.db.states import StrState


class SettingsError(ValueError):
    """A variable has a value the platform cannot use (the message names the variable)."""


class Environment(StrState):
    """``$DA_ENV``: production needs a secret key; development and testing make a throw-away one."""

    production = "production"
    development = "development"
    testing = "testing"


class ImageStore(StrState):
    """``$DA_IMAGE_STORE``: where answer images live (da_platform.images.store opens it)."""

    folder = "folder"
    database = "database"
    s3 = "s3"


DEFAULT_PUBLIC_URL = "http://127.0.0.1:5000"
DEFAULT_S3_PREFIX = "images/"
DEFAULT_RATELIMIT_STORAGE = "memory://"


@dataclass(frozen=True)
class Settings:
    """Everything the platform reads from the environment, with safe defaults for development."""

    location: Location  # $DA_DATABASE_URL, $DA_INSTANCE_PATH or da-platform.ini (da_platform.config.location)
    environment: Environment | None = None  # None: $DA_ENV unset (the web app: production; `serve`: development)
    # SQLite: group / full (a commit is on disk before the server answers) or normal (not durable).
    sqlite_commit: SqliteCommit = SqliteCommit.group
    secret_key: str | None = field(default=None, repr=False)
    public_url: str = DEFAULT_PUBLIC_URL
    # Where answer images live: folder (image_folder) | database | s3 (da_platform/images/store.py).
    image_store: ImageStore = ImageStore.folder
    image_folder: Path | None = None  # None: <instance>/images
    s3_bucket: str | None = None
    s3_endpoint_url: str | None = None
    s3_prefix: str = DEFAULT_S3_PREFIX
    s3_region: str | None = None
    font_paths: tuple[str, ...] = ()
    admin_ratelimit_storage_uri: str = DEFAULT_RATELIMIT_STORAGE
    trusted_proxies: int = 0  # reverse proxies in front of the web app (da_platform/web/proxies.py)
    mturk_endpoint_url: str | None = None
    prolific_api_url: str | None = None
    prolific_api_token: str | None = field(default=None, repr=False)

    @property
    def database_url(self) -> str:
        return self.location.database_url

    @property
    def instance_path(self) -> Path:
        return self.location.instance_path

    @property
    def images(self) -> Path:
        """The folder of the ``folder`` image store."""
        return self.image_folder or self.instance_path / "images"

    @classmethod
    def from_environ(cls, env: Mapping[str, str], start: Path | None = None) -> Settings:
        """The settings from ``env`` (``os.environ`` at the entry points; a dict in tests).

        ``start``: the folder to look for ``da-platform.ini`` from (default: the current folder).
        Raises :class:`SettingsError` naming the variable for a value the platform cannot use, and
        ``da_platform.config.location.LocationError`` for an unreadable project file.
        """
        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        images = get("DA_IMAGE_FOLDER")
        return cls(
            location=locate({name: value for name in ("DA_DATABASE_URL", "DA_INSTANCE_PATH")
                             if (value := get(name)) is not None}, start),
            environment=_environment(get("DA_ENV")),
            sqlite_commit=_sqlite_commit(get("DA_SQLITE_COMMIT")),
            secret_key=get("DA_SECRET_KEY"),
            public_url=_url("DA_PUBLIC_URL", get("DA_PUBLIC_URL") or DEFAULT_PUBLIC_URL).rstrip("/"),
            image_store=_image_store(get("DA_IMAGE_STORE")),
            image_folder=Path(images).resolve() if images else None,
            s3_bucket=get("DA_S3_BUCKET"),
            s3_endpoint_url=_optional_url("DA_S3_ENDPOINT_URL", get("DA_S3_ENDPOINT_URL")),
            s3_prefix=env.get("DA_S3_PREFIX", DEFAULT_S3_PREFIX),  # empty: no prefix (not "unset")
            s3_region=get("DA_S3_REGION"),
            font_paths=tuple(p for p in (get("DA_FONT") or "").split(os.pathsep) if p),
            admin_ratelimit_storage_uri=_storage_uri(get("DA_ADMIN_RATELIMIT_STORAGE_URI")),
            trusted_proxies=_proxies(get("DA_TRUSTED_PROXIES")),
            mturk_endpoint_url=_optional_url("DA_MTURK_ENDPOINT_URL", get("DA_MTURK_ENDPOINT_URL")),
            prolific_api_url=_optional_url("DA_PROLIFIC_API_URL", get("DA_PROLIFIC_API_URL")),
            prolific_api_token=get("PROLIFIC_API_TOKEN"),
        )


def _environment(value: str | None) -> Environment | None:
    if value is None:
        return None
    try:
        return Environment(value.lower())
    except ValueError:
        names = ", ".join(e.value for e in Environment)
        raise SettingsError(f"DA_ENV={value!r} is not an environment (choose one of: {names})") from None


def _sqlite_commit(value: str | None) -> SqliteCommit:
    if value is None:
        return SqliteCommit.group
    try:
        return SqliteCommit(value.lower())
    except ValueError:
        names = ", ".join(mode.value for mode in SqliteCommit)
        raise SettingsError(f"DA_SQLITE_COMMIT={value!r} is not a SQLite commit mode (choose one of: {names}; "
                            "group and full survive a power cut, normal does not)") from None


def _url(name: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingsError(f"{name}={value!r} is not an http(s) URL such as https://da.example.org")
    return value


def _optional_url(name: str, value: str | None) -> str | None:
    return None if value is None else _url(name, value)


def _image_store(value: str | None) -> ImageStore:
    try:
        return ImageStore((value or ImageStore.folder).strip().lower())
    except ValueError:
        names = ", ".join(kind.value for kind in ImageStore)
        raise SettingsError(f"DA_IMAGE_STORE={value!r} is not an image store (choose one of: {names})") from None


def _storage_uri(value: str | None) -> str:
    if value is None:
        return DEFAULT_RATELIMIT_STORAGE
    if "://" not in value:
        raise SettingsError(f"DA_ADMIN_RATELIMIT_STORAGE_URI={value!r} is not a storage URI such as "
                            "memory:// or redis://host:6379")
    return value


MAX_PROXIES = 10


def _proxies(value: str | None) -> int:
    if value is None:
        return 0
    if not value.isdigit() or int(value) > MAX_PROXIES:
        raise SettingsError(f"DA_TRUSTED_PROXIES={value!r} is not a number of reverse proxies from 0 to {MAX_PROXIES} "
                            "(1 for one nginx or Caddy in front of the app)")
    return int(value)
