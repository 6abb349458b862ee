"""Answer images in the platform's own database (table ``image_blob``, SQLite or PostgreSQL).

With images in the database an app server keeps nothing on its disk: any number of servers that share
the database serve the same campaign. Each write is its own short transaction on a connection of the
storage's engine (never the caller's session), so rendering processes can write while the build's
session reads; a build that fails afterwards leaves only unreferenced images, as the folder store does.

Picklable for the rendering processes: only the database URL travels; each process (including a
forked one) makes its own engine on first use.
"""
from __future__ import annotations

import os
from typing import Any

from sqlalchemy import Engine, select

from da_platform.db.models import ImageBlob
from hit_builder.storage import check_key, content_key


class DatabaseImageStorage:
    """Content-addressed PNG images as rows ``image_blob(key, data)``."""

    def __init__(self, url: str | None = None, *, engine: Engine | None = None) -> None:
        if url is None:
            if engine is None:
                raise ValueError("DatabaseImageStorage needs a database URL or an engine")
            url = engine.url.render_as_string(hide_password=False)
        self.url = url
        self._engine = engine
        self._pid = os.getpid()

    def __repr__(self) -> str:
        from sqlalchemy.engine import make_url

        return f"DatabaseImageStorage({make_url(self.url).render_as_string(hide_password=True)!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"url": self.url, "_engine": None, "_pid": None}

    def engine(self) -> Engine:
        """This process's engine (a forked process must not reuse its parent's connections)."""
        if self._engine is None or self._pid != os.getpid():
            from da_platform.db.engine import make_engine

            self._engine, self._pid = make_engine(self.url), os.getpid()
        return self._engine

    def _insert(self, dialect: str):
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as postgresql_insert

            return postgresql_insert(ImageBlob).on_conflict_do_nothing(index_elements=["key"])
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(ImageBlob).on_conflict_do_nothing(index_elements=["key"])

    def put(self, png: bytes) -> str:
        return self.put_many([png])[0]

    def put_many(self, pngs: list[bytes]) -> list[str]:
        keys = [content_key(png) for png in pngs]
        rows = list({key: {"key": key, "data": png} for key, png in zip(keys, pngs)}.values())
        if rows:
            with self.engine().begin() as connection:
                connection.execute(self._insert(connection.dialect.name), rows)
        return keys

    def read(self, key: str) -> bytes:
        check_key(key)
        with self.engine().connect() as connection:
            data = connection.scalar(select(ImageBlob.data).where(ImageBlob.key == key))
        if data is None:
            raise KeyError(f"no image stored under {key}")
        return bytes(data)

    def exists(self, key: str) -> bool:
        try:
            check_key(key)
        except KeyError:
            return False
        with self.engine().connect() as connection:
            return connection.scalar(select(ImageBlob.key).where(ImageBlob.key == key)) is not None
