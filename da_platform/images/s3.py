"""Answer images in an S3-compatible object store (AWS S3, MinIO, Ceph, ...), through boto3.

Objects are ``<prefix><key>.png`` in one bucket. Workers never see an object name: the worker pages
stream the bytes under the slot's opaque URL as with every other store. Credentials come from boto3's
usual chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, a profile, an instance role).

Picklable for the rendering processes: only the settings travel; each process makes its own client
(boto3 clients are thread-safe once made; making one is guarded by a lock).

A store that hangs or refuses connections must not hold the web server's threads (boto3's defaults
are 60 s connect and read timeouts, retried up to 4 times: minutes per image request). So the client
has short timeouts (``connect_timeout`` 2 s, ``read_timeout`` 3 s per socket read) and at most
``max_attempts`` 2 tries, and every call that fails that way raises
:class:`~hit_builder.storage.StoreUnavailable` (the pages answer 503 "try again"). After such a
failure the store is not tried again for ``cooldown`` seconds (5): calls fail at once, then one call
at a time probes it until it answers again.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from hit_builder.storage import StoreUnavailable, check_key, content_key

T = TypeVar("T")
_NOT_FOUND = {"404", "NoSuchKey", "NotFound"}
# Error codes of an overloaded or failing store (the request may succeed later), beside any HTTP 5xx.
_BUSY = {"SlowDown", "ServiceUnavailable", "RequestTimeout", "RequestTimeoutException", "InternalError",
         "Throttling", "ThrottlingException", "RequestLimitExceeded"}

CONNECT_TIMEOUT = 2.0
READ_TIMEOUT = 3.0
MAX_ATTEMPTS = 2  # tries in all (botocore: total_max_attempts), so one retry
COOLDOWN = 5.0


def _is_fault(error: BaseException) -> bool:
    """Whether ``error`` says the store is unreachable, too slow or failing (not: the object is missing)."""
    from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

    if isinstance(error, (ConnectionError, HTTPClientError)):
        return True
    if isinstance(error, ClientError):
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        return status >= 500 or error.response.get("Error", {}).get("Code") in _BUSY
    return False


class _Breaker:
    """After a fault, refuse calls for ``cooldown`` seconds, then let one call at a time try again."""

    def __init__(self, cooldown: float) -> None:
        self.cooldown = cooldown
        self._lock = threading.Lock()
        self._down_until: float | None = None  # None: the store answered last time
        self._probing = False

    def enter(self, name: str) -> None:
        with self._lock:
            if self._down_until is None:
                return
            if time.monotonic() < self._down_until or self._probing:
                raise StoreUnavailable(f"{name} did not answer a moment ago; not tried again yet")
            self._probing = True

    def answered(self) -> None:
        with self._lock:
            self._down_until, self._probing = None, False

    def failed(self) -> None:
        with self._lock:
            self._down_until, self._probing = time.monotonic() + self.cooldown, False


class S3ImageStorage:
    """Content-addressed PNG images as objects of one bucket."""

    def __init__(self, bucket: str, *, endpoint_url: str | None = None, prefix: str = "images/",
                 region: str | None = None, connect_timeout: float = CONNECT_TIMEOUT,
                 read_timeout: float = READ_TIMEOUT, max_attempts: int = MAX_ATTEMPTS,
                 cooldown: float = COOLDOWN) -> None:
        if not bucket:
            raise ValueError("S3ImageStorage needs a bucket name")
        self.bucket, self.endpoint_url, self.prefix, self.region = bucket, endpoint_url, prefix, region
        self.connect_timeout, self.read_timeout, self.max_attempts = connect_timeout, read_timeout, max_attempts
        self._client: Any = None
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._breaker = _Breaker(cooldown)

    def __repr__(self) -> str:
        where = f" at {self.endpoint_url}" if self.endpoint_url else ""
        return f"S3ImageStorage(s3://{self.bucket}/{self.prefix}{where})"

    def __getstate__(self) -> dict[str, Any]:
        return {"bucket": self.bucket, "endpoint_url": self.endpoint_url, "prefix": self.prefix,
                "region": self.region, "connect_timeout": self.connect_timeout, "read_timeout": self.read_timeout,
                "max_attempts": self.max_attempts, "cooldown": self._breaker.cooldown}

    def __setstate__(self, state: dict[str, Any]) -> None:
        S3ImageStorage.__init__(self, state.pop("bucket"), **state)

    def client(self) -> Any:
        """This process's boto3 S3 client."""
        if self._client is None or self._pid != os.getpid():
            with self._lock:
                if self._client is None or self._pid != os.getpid():
                    import boto3
                    from botocore.config import Config

                    config = Config(connect_timeout=self.connect_timeout, read_timeout=self.read_timeout,
                                    retries={"total_max_attempts": self.max_attempts, "mode": "standard"})
                    self._client = boto3.session.Session().client(
                        "s3", endpoint_url=self.endpoint_url, region_name=self.region, config=config)
                    self._pid = os.getpid()
        return self._client

    def _name(self, key: str) -> str:
        return f"{self.prefix}{check_key(key)}.png"

    def _call(self, work: Callable[[], T]) -> T:
        """``work()`` (one or more requests to the store), with :class:`StoreUnavailable` for a store that
        cannot be reached in time, and none tried while the store is known to be down."""
        self._breaker.enter(repr(self))
        try:
            result = work()
        except Exception as error:
            if _is_fault(error):
                self._breaker.failed()
                raise StoreUnavailable(f"{self!r} cannot be reached: {error}") from error
            self._breaker.answered()
            raise
        self._breaker.answered()
        return result

    def put(self, png: bytes) -> str:
        key = content_key(png)
        name = self._name(key)
        self._call(lambda: self.client().put_object(Bucket=self.bucket, Key=name, Body=png,
                                                    ContentType="image/png"))
        return key

    def put_many(self, pngs: list[bytes]) -> list[str]:
        return [self.put(png) for png in pngs]

    def read(self, key: str) -> bytes:
        from botocore.exceptions import ClientError

        name = self._name(key)
        try:
            return self._call(lambda: self.client().get_object(Bucket=self.bucket, Key=name)["Body"].read())
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                raise KeyError(f"no image stored under {key}") from None
            raise

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            name = self._name(key)
            self._call(lambda: self.client().head_object(Bucket=self.bucket, Key=name))
        except KeyError:
            return False
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                return False
            raise
        return True
