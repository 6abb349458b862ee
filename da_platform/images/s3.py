"""Answer images in an S3-compatible object store (AWS S3, MinIO, Ceph, ...), through boto3.

Objects are ``<prefix><key>.png`` in one bucket. Workers never see an object name: the worker pages
stream the bytes under the slot's opaque URL as with every other store. Credentials come from boto3's
usual chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, a profile, an instance role).

Picklable for the rendering processes: only the settings travel; each process makes its own client
(boto3 clients are thread-safe once made; making one is guarded by a lock).
"""
from __future__ import annotations

import os
import threading
from typing import Any

from hit_builder.storage import check_key, content_key

_NOT_FOUND = {"404", "NoSuchKey", "NotFound"}


class S3ImageStorage:
    """Content-addressed PNG images as objects of one bucket."""

    def __init__(self, bucket: str, *, endpoint_url: str | None = None, prefix: str = "images/",
                 region: str | None = None) -> None:
        if not bucket:
            raise ValueError("S3ImageStorage needs a bucket name")
        self.bucket, self.endpoint_url, self.prefix, self.region = bucket, endpoint_url, prefix, region
        self._client: Any = None
        self._pid: int | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        where = f" at {self.endpoint_url}" if self.endpoint_url else ""
        return f"S3ImageStorage(s3://{self.bucket}/{self.prefix}{where})"

    def __getstate__(self) -> dict[str, Any]:
        return {"bucket": self.bucket, "endpoint_url": self.endpoint_url, "prefix": self.prefix,
                "region": self.region}

    def __setstate__(self, state: dict[str, Any]) -> None:
        S3ImageStorage.__init__(self, state["bucket"], endpoint_url=state["endpoint_url"], prefix=state["prefix"],
                                region=state["region"])

    def client(self) -> Any:
        """This process's boto3 S3 client."""
        if self._client is None or self._pid != os.getpid():
            with self._lock:
                if self._client is None or self._pid != os.getpid():
                    import boto3

                    self._client = boto3.session.Session().client(
                        "s3", endpoint_url=self.endpoint_url, region_name=self.region)
                    self._pid = os.getpid()
        return self._client

    def _name(self, key: str) -> str:
        return f"{self.prefix}{check_key(key)}.png"

    def put(self, png: bytes) -> str:
        key = content_key(png)
        self.client().put_object(Bucket=self.bucket, Key=self._name(key), Body=png, ContentType="image/png")
        return key

    def put_many(self, pngs: list[bytes]) -> list[str]:
        return [self.put(png) for png in pngs]

    def read(self, key: str) -> bytes:
        from botocore.exceptions import ClientError

        name = self._name(key)
        try:
            return self.client().get_object(Bucket=self.bucket, Key=name)["Body"].read()
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                raise KeyError(f"no image stored under {key}") from None
            raise

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            name = self._name(key)
            self.client().head_object(Bucket=self.bucket, Key=name)
        except KeyError:
            return False
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                return False
            raise
        return True
