"""How a commit to the embedded SQLite database reaches the disk (``$DA_SQLITE_COMMIT``), and group commit.

SQLite runs in WAL mode. Its ``synchronous=FULL`` fsyncs the write-ahead log inside every commit, while
the commit holds the database's one write lock: commits are then one fsync apart (1 / the disk's fsync
time: about 100–250 per second on the disks measured), whatever the number of server threads.
``synchronous=NORMAL`` fsyncs only at checkpoints: fast, but a crash of the machine can take the last
commits back. The modes (:class:`SqliteCommit`):

- ``group`` (the default): ``NORMAL``, and every commit waits, after it has released the write lock and
  before the server answers, for an ``fdatasync`` of the log that began after the commit had been
  written. One such sync, made by whichever waiting thread of the process comes first, covers every
  commit written before it began (:class:`WalSync`), so the syncs of several commits overlap instead of
  queueing behind the lock. An acknowledged commit is on disk, as with ``FULL``.
- ``full``: SQLite's own ``synchronous=FULL`` (one fsync per commit, under the lock). Durable.
- ``normal``: ``synchronous=NORMAL`` and no wait. **Not durable against a crash of the machine.**

Why a sync of the log file suffices (sqlite.org, "PRAGMA synchronous" and "Write-Ahead Logging"): a commit
in ``NORMAL`` mode has written its frames to the log file before it returns; ``fdatasync`` makes every
byte written to that file before the call durable. SQLite itself syncs the log before each checkpoint and
the database file after it, and the log's header when the log is reused, so frames that a checkpoint
moved on are durable in the database file before the log is overwritten. A new log file's directory
entry is synced once (a new file's name is not made durable by syncing the file). The log cannot vanish
under a connection that has just committed: it is removed only when the last connection closes, after a
complete checkpoint.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from da_core.enums import StrState


class SqliteCommit(StrState):
    """``$DA_SQLITE_COMMIT``: ``group`` (default, durable), ``full`` (durable) or ``normal`` (not durable)."""

    group = "group"
    full = "full"
    normal = "normal"

    @property
    def pragma(self) -> str:
        """The ``PRAGMA synchronous`` value of this mode."""
        return "FULL" if self is SqliteCommit.full else "NORMAL"


class WalSync:
    """One process's syncs of one write-ahead log: one ``fdatasync`` at a time, each covering every
    commit that asked for durability before it began."""

    _by_path: ClassVar[dict[str, WalSync]] = {}
    _by_path_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, wal_path: str) -> None:
        self.path = wal_path
        self._cond = threading.Condition()
        self._asked = 0  # commits that asked, numbered in the order they asked
        self._covered = 0  # every commit numbered up to this one is on disk
        self._syncing = False
        self._inode: int | None = None  # of the log file whose directory entry was synced
        self.syncs = 0  # fdatasync calls made (for tests and benchmarks)

    @classmethod
    def of(cls, wal_path: str) -> WalSync:
        """The one instance for this log file in this process."""
        with cls._by_path_lock:
            if wal_path not in cls._by_path:
                cls._by_path[wal_path] = cls(wal_path)
            return cls._by_path[wal_path]

    @classmethod
    def _forget_all(cls) -> None:
        """In a forked child: start afresh (a sync in flight in the parent never finishes here)."""
        cls._by_path, cls._by_path_lock = {}, threading.Lock()

    def wait_durable(self) -> None:
        """Return once a sync of the log that began after this call has finished (call it after the commit).

        Raises ``sqlite3.OperationalError`` when the log cannot be synced (the commit stands, but it is not
        known to be on disk: the caller must not acknowledge it).
        """
        with self._cond:
            self._asked += 1
            mine = self._asked
            while self._covered < mine:
                if self._syncing:
                    self._cond.wait()
                    continue
                self._syncing, covers = True, self._asked  # every commit that asked so far was written
                self._cond.release()
                try:
                    self._sync()
                finally:  # (on failure the others try again; this commit's caller gets the error)
                    self._cond.acquire()
                    self._syncing = False
                    self._cond.notify_all()
                self._covered = max(self._covered, covers)

    def _sync(self) -> None:
        try:
            handle = os.open(self.path, os.O_RDONLY)
        except OSError as error:
            raise sqlite3.OperationalError(f"cannot open the write-ahead log {self.path} to sync it: "
                                           f"{error.strerror}") from None
        try:
            getattr(os, "fdatasync", os.fsync)(handle)  # (macOS has only fsync, as SQLite uses there)
            inode = os.fstat(handle).st_ino
            self.syncs += 1
        except OSError as error:
            raise sqlite3.OperationalError(f"cannot sync the write-ahead log {self.path}: {error.strerror}") from None
        finally:
            os.close(handle)
        if inode != self._inode and os.name == "posix":  # a new log file: make its name durable too
            folder = os.open(os.path.dirname(self.path) or ".", os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
            self._inode = inode


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(after_in_child=WalSync._forget_all)


class GroupCommitConnection(sqlite3.Connection):
    """A sqlite3 connection (``factory=``) whose commits return only once durable (:class:`WalSync`):
    ``commit()``, and statements that commit on their own in autocommit mode."""

    def __init__(self, database: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(database, *args, **kwargs)
        self.wal = WalSync.of(os.path.abspath(os.fspath(database)) + "-wal")
        self._changes = self.total_changes
        self.waits = True  # False: a statement that commits on its own returns at once (:func:`no_wait`)

    def commit(self) -> None:
        wrote = self.in_transaction  # (nothing to make durable without a transaction)
        super().commit()
        if wrote:
            self.wal.wait_durable()
        self._changes = self.total_changes

    def rollback(self) -> None:
        super().rollback()
        self._changes = self.total_changes

    def cursor(self, factory: Any = None) -> sqlite3.Cursor:  # type: ignore[override]
        return super().cursor(factory or GroupCommitCursor)

    def after_statement(self) -> None:
        """A statement that changed rows outside a transaction committed them itself: wait for the sync."""
        if not self.in_transaction and self.total_changes != self._changes:
            if self.waits:
                self.wal.wait_durable()
            self._changes = self.total_changes


class GroupCommitCursor(sqlite3.Cursor):
    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        result = super().execute(sql, parameters)
        self._after()
        return result

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        result = super().executemany(sql, parameters)
        self._after()
        return result

    def _after(self) -> None:
        connection = self.connection
        if isinstance(connection, GroupCommitConnection):
            connection.after_statement()


@contextmanager
def no_wait(dbapi_connection: Any) -> Iterator[None]:
    """Statements that commit on their own, inside, return without waiting for the log's sync (group mode;
    nothing changes in the others).

    Only for a write nobody is told is saved, whose loss in a crash of the machine costs nothing on its own:
    the commits acknowledged after it on the same database wait for a sync that covers it too (a sync of the
    log makes every byte written to it before durable; a checkpoint syncs the log first).
    """
    if not isinstance(dbapi_connection, GroupCommitConnection):
        yield
        return
    dbapi_connection.waits = False
    try:
        yield
    finally:
        dbapi_connection.waits = True


def connect_args(mode: SqliteCommit, url: str) -> dict[str, Any]:
    """``sqlite3.connect`` arguments of an engine for ``url`` committing in ``mode`` (a file database
    in ``group`` mode gets :class:`GroupCommitConnection`)."""
    memory = url in ("sqlite://", "sqlite:///:memory:") or "mode=memory" in url
    return {"factory": GroupCommitConnection} if mode is SqliteCommit.group and not memory else {}
