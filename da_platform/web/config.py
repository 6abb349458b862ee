"""The web application's configuration: the platform's ``Settings``, then the caller's overrides."""
from __future__ import annotations

import secrets
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

from da_platform.config.settings import Environment, ImageStore, Settings
from da_platform.providers.mturk.arrival import MTURK_ORIGINS
from da_platform.providers.prolific.arrival import COMPLETE_URL
from da_platform.web.limits import limit_config

# $DA_ENV: "production" (the default: a secret key is mandatory), "development" or "testing".
RELAXED_ENVIRONMENTS = (Environment.development, Environment.testing)


# Keys of the caller's configuration that are settings (the tests' image folder, the demo's store): they
# change the Settings the app is built from, which opens the image store (da_platform.images.store).
_SETTINGS_KEYS = {"IMAGE_STORE": ("image_store", ImageStore), "IMAGE_FOLDER": ("image_folder", Path),
                  "S3_BUCKET": ("s3_bucket", str), "S3_ENDPOINT_URL": ("s3_endpoint_url", str),
                  "S3_PREFIX": ("s3_prefix", str), "S3_REGION": ("s3_region", str)}


def app_settings(settings: Settings, overrides: dict[str, Any] | None = None) -> Settings:
    """``settings`` with the caller's overrides of the image store's keys applied."""
    changes = {field: kind(overrides[key]) for key, (field, kind) in _SETTINGS_KEYS.items()
               if overrides and overrides.get(key) is not None}
    return replace(settings, **changes) if changes else settings


def web_config(settings: Settings, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Flask configuration from ``settings``, with ``overrides`` (tests, ``da-platform serve``) on top.

    Refuses to go on without a secret key in production; elsewhere a random one is made per process
    (links then stop working when the server restarts).
    """
    config: dict[str, Any] = {
        "ENVIRONMENT": str(settings.environment or Environment.production),
        "SECRET_KEY": settings.secret_key,
        "DATABASE_URL": settings.database_url,
        # SQLite: group / full (a commit is on disk before the answer) or normal (da_platform/db/sqlite_commit.py).
        "SQLITE_COMMIT": settings.sqlite_commit,
        "PUBLIC_URL": settings.public_url,
        "IMAGE_FOLDER": str(settings.images),
        # Large exports are prepared here off the request path (da_platform/exports/prepared.py).
        "EXPORT_FOLDER": str(settings.instance_path / "exports"),
        # folder | database | s3 (da_platform/images/store.py), and the object store's bucket.
        "IMAGE_STORE": settings.image_store.value,
        "S3_BUCKET": settings.s3_bucket,
        "S3_ENDPOINT_URL": settings.s3_endpoint_url,
        "S3_PREFIX": settings.s3_prefix,
        "S3_REGION": settings.s3_region,
        # Where the dashboard's login throttle counts attempts (da_platform.web.admin).
        "ADMIN_RATELIMIT_STORAGE_URI": settings.admin_ratelimit_storage_uri,
        # Reverse proxies whose X-Forwarded-For / -Proto the app believes (da_platform.web.proxies).
        "TRUSTED_PROXIES": settings.trusted_proxies,
        # Origins that turkSubmitTo may name (tests add the fake MTurk's http://127.0.0.1:<port>).
        "MTURK_SUBMIT_ORIGINS": list(MTURK_ORIGINS),
        # Who may frame the worker pages: MTurk shows ExternalQuestions in an iframe.
        "FRAME_ANCESTORS": list(MTURK_ORIGINS),
        "PROLIFIC_COMPLETE_URL": COMPLETE_URL,
        "ASSIGNMENT_TOKEN_MAX_AGE": 7 * 24 * 3600,
        "SESSIONS": None,  # a sessionmaker to use instead of one made from DATABASE_URL
        **limit_config(),  # request-size limits (da_platform.web.limits)
    }
    config.update({key: value for key, value in (overrides or {}).items() if key not in _SETTINGS_KEYS})
    if config.get("TESTING"):
        config["ENVIRONMENT"] = "testing"
    if not config["SECRET_KEY"]:
        if config["ENVIRONMENT"] not in RELAXED_ENVIRONMENTS:
            raise RuntimeError(
                "DA_SECRET_KEY is not set: refusing to start in production without a secret key "
                "(it signs every worker link). Set DA_ENV=development for a throw-away key."
            )
        warnings.warn("DA_SECRET_KEY not set: using a random key for this process only", stacklevel=2)
        config["SECRET_KEY"] = secrets.token_hex(32)
    return config
