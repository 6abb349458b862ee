"""Large exports prepared off the request path, kept as files until new ratings or decisions arrive.

A dashboard export of a large campaign (the bundle, the ratings CSV, the WMT files) takes longer
than a request should. :class:`PreparedExports` builds it in a separate process (spawned, so it
does not compete with the requests for the interpreter lock) into a folder of the instance
(``EXPORT_FOLDER``), and tells the page how far it got (the bundle's steps) or that it is ready.

Each prepared file is keyed by an **export stamp** (:func:`read_export_stamp`): the analysis stamp
(``da_platform.results.analysis_cache.Stamp``: ratings, decisions, QC settings) plus what else the files
say: the HITs done / in progress / total and the campaign's status and settings. The process reads
the stamp and builds the file inside one read transaction (a snapshot: PostgreSQL REPEATABLE READ,
a real SQLite transaction in WAL mode), so a file holds exactly what its stamp says. A file is
served as current only while its stamp is the campaign's current one; an older ready file is offered
marked out of date. Files of a state are in ``<folder>/<campaign>/<variant>--<stamp>.json``
(state, step, times, error) and ``.data`` (the content); the state file is created exclusively, so
concurrent requests (threads, gunicorn workers of one machine) start one preparation per stamp.

``<campaign>`` (:func:`campaign_folder`) is the campaign's id *and* creation time: SQLite gives a
campaign made after a deletion the deleted one's id, and its page must never offer the deleted
campaign's files. Deleting a campaign deletes its folder (:func:`remove_campaign_files`). Only the
newest file of each kind is kept: a ready file removes the older ones, a refused or superseded one the
older refused or superseded ones.
"""
from __future__ import annotations

import enum
import hashlib
import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from da_platform.campaigns.lifecycle import campaign_folder
from da_platform.campaigns.progress import campaign_progress
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Campaign, utcnow
from da_platform.results.analysis_cache import Stamp, read_stamp

SILENT_AFTER = 30 * 60
"""A preparation whose state file has not changed for this many seconds is taken as dead (each step
of a 1,000,000-rating bundle writes it within a minute)."""

KINDS = ("bundle", "ratings", "wmt")
"""The exports that may be prepared off the request path (the ranking is always small)."""


class JobState(str, enum.Enum):
    """Where a preparation is."""

    PREPARING = "preparing"
    READY = "ready"
    FAILED = "failed"  # an error (ExportError: the reason the export is refused)
    SUPERSEDED = "superseded"  # the inputs changed before it started: prepared under a newer stamp


@dataclass(frozen=True)
class ExportRequest:
    """Which export: its kind and options (as in ``da_platform.exports``)."""

    kind: str
    partial: bool = False
    texts: bool = False  # ratings only: with the texts of each rating

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"no prepared export called {self.kind!r}; expected one of {', '.join(KINDS)}")

    @property
    def variant(self) -> str:
        return "-".join([self.kind, *(["texts"] if self.texts and self.kind == "ratings" else []),
                         *(["partial"] if self.partial else [])])

    @property
    def steps(self) -> tuple[str, ...]:
        from da_platform.exports.files import BUNDLE_STEPS

        return BUNDLE_STEPS if self.kind == "bundle" else ("analysis and file",)

    def build(self, session: Session, campaign: Campaign, progress: Callable[[str], None] | None = None):
        """The export (``da_platform.exports.files.ExportFile``), as the CLI makes it."""
        from da_platform.exports import files as exports

        if self.kind == "bundle":
            return exports.bundle(session, campaign, partial=self.partial, progress=progress)
        if progress is not None:
            progress(self.steps[0])
        if self.kind == "ratings":
            return exports.ratings(session, campaign, partial=self.partial, with_texts=self.texts)
        return exports.wmt(session, campaign, partial=self.partial)


def remove_campaign_files(folder: Path, names: tuple[str, ...]) -> list[str]:
    """Delete the prepared files in the campaign folders ``names`` (``Deleted.prepared``) under ``folder``;
    returns the folders that could not be removed, with why (a preparation still running may write
    a state file after this: it is never found under another campaign)."""
    problems = []
    for name in names:
        try:
            shutil.rmtree(Path(folder) / name)
        except FileNotFoundError:
            continue
        except OSError as error:
            problems.append(f"{Path(folder) / name}: {error.strerror or error}")
    return problems


def read_export_stamp(session: Session, campaign: Campaign, stamp: Stamp | None = None) -> str:
    """A digest of everything an export of ``campaign`` depends on (equal digests: equal files);
    ``stamp``: its analysis stamp if just read."""
    stamp = stamp or read_stamp(session, campaign)
    progress = campaign_progress(session, campaign, rating_counts={})
    parts = [asdict(stamp), progress.hits_total, progress.hits_done, progress.hits_in_progress,
             campaign.status.value, CampaignSettings.of(campaign).to_json()]
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]


@dataclass
class Job:
    """The state file of one preparation (what the page shows)."""

    state: JobState
    stamp: str
    started_at: str
    step: str = ""
    step_index: int = 0
    steps: int = 1
    finished_at: str = ""
    error: str = ""
    name: str = ""  # the file name to download as
    media_type: str = ""
    size: int = 0
    ratings: int = 0
    pid: int = 0
    host: str = ""

    @property
    def started(self) -> datetime:
        return datetime.fromisoformat(self.started_at)

    @property
    def finished(self) -> datetime | None:
        return datetime.fromisoformat(self.finished_at) if self.finished_at else None


@dataclass
class Status:
    """What the page says about one export: the job for the current stamp (None: not started), the
    newest ready file of an older stamp (offered marked out of date), and a preparation for older
    inputs still running (one at a time per export and campaign, so ratings arriving all the time
    do not start a process per page view)."""

    current: Job | None
    older: Job | None
    stamp: str
    running: Job | None = None  # a preparation for older inputs, still running: the next starts after it


class PreparedExports:
    """Prepared export files of the campaigns of one database, in ``folder``."""

    def __init__(self, sessions: sessionmaker[Session], folder: Path) -> None:
        self.sessions = sessions
        self.folder = Path(folder)
        self._threads: dict[tuple[int, str, str], threading.Thread] = {}
        self._lock = threading.Lock()

    def _base(self, campaign: Campaign, request: ExportRequest, stamp: str) -> Path:
        return self.folder / campaign_folder(campaign) / f"{request.variant}--{stamp}"

    def data_path(self, campaign: Campaign, request: ExportRequest, stamp: str) -> Path:
        return self._base(campaign, request, stamp).with_suffix(".data")

    def job(self, campaign: Campaign, request: ExportRequest, stamp: str) -> Job | None:
        """The state of the preparation for ``stamp`` (None: none started)."""
        return _read_job(self._base(campaign, request, stamp).with_suffix(".json"), stamp)

    def status(self, session: Session, campaign: Campaign, request: ExportRequest,
               analysis_stamp: Stamp | None = None) -> Status:
        """The export's state now (without starting anything)."""
        stamp = read_export_stamp(session, campaign, analysis_stamp)
        return Status(self.job(campaign, request, stamp), self._newest_ready(campaign, request, stamp), stamp,
                      self._running(campaign, request, stamp))

    def ensure(self, session: Session, campaign: Campaign, request: ExportRequest, *,
               retry: bool = False, analysis_stamp: Stamp | None = None) -> Status:
        """The export's state, a preparation started if there is none for the current stamp (or,
        with ``retry``, if the last one failed with an unexpected error)."""
        status = self.status(session, campaign, request, analysis_stamp)
        job = status.current
        restart = job is None or job.state is JobState.SUPERSEDED or (
            retry and job.state is JobState.FAILED and not job.error.startswith("ExportError"))
        if restart:
            if status.running is not None:
                return status
            base = self._base(campaign, request, status.stamp)
            if job is not None:
                base.with_suffix(".json").unlink(missing_ok=True)
            if self._claim(base, request, status.stamp):
                self._start(campaign.id, base, request, status.stamp)
            status.current = self.job(campaign, request, status.stamp)
        return status

    def wait(self, campaign_id: int, timeout: float | None = None) -> None:
        """Wait for this process' preparations of the campaign (for tests and benchmarks)."""
        with self._lock:
            threads = [t for key, t in self._threads.items() if key[0] == campaign_id]
        for thread in threads:
            thread.join(timeout)

    def _claim(self, base: Path, request: ExportRequest, stamp: str) -> bool:
        """Create the state file exclusively; False if another request was first."""
        base.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(base.with_suffix(".json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return False
        job = Job(JobState.PREPARING, stamp, utcnow().isoformat(), steps=len(request.steps),
                  host=socket.gethostname())
        with os.fdopen(fd, "w") as out:
            out.write(_dumps(job))
        return True

    def _start(self, campaign_id: int, base: Path, request: ExportRequest, stamp: str) -> None:
        thread = threading.Thread(target=self._run, args=(campaign_id, base, request, stamp), daemon=True,
                                  name=f"export-{campaign_id}-{request.variant}")
        with self._lock:
            self._threads[(campaign_id, request.variant, stamp)] = thread
        thread.start()

    def _run(self, campaign_id: int, base: Path, request: ExportRequest, stamp: str) -> None:
        """(In a thread that only waits.) Prepare in a fresh process; record a crash as a failure."""
        from multiprocessing import get_context

        try:
            url = self.sessions.kw["bind"].url.render_as_string(hide_password=False)
            process = get_context("spawn").Process(target=prepare, args=(url, str(base), campaign_id, request, stamp),
                                                   name=f"export-{campaign_id}")
            process.start()
            process.join()
            job = _read_job(base.with_suffix(".json"), stamp)
            if process.exitcode != 0 and job is not None and job.state is JobState.PREPARING:
                _fail(base, job, f"the preparing process ended with exit code {process.exitcode}")
        except Exception as error:  # noqa: BLE001 - shown on the page; "try again" restarts it
            job = _read_job(base.with_suffix(".json"), stamp)
            if job is not None:
                _fail(base, job, f"{type(error).__name__}: {error}")
        finally:
            with self._lock:
                self._threads.pop((campaign_id, request.variant, stamp), None)

    def _others(self, campaign: Campaign, request: ExportRequest, stamp: str, state: JobState) -> list[Job]:
        """The jobs of the same export under other stamps in ``state``."""
        jobs = []
        for path in (self.folder / campaign_folder(campaign)).glob(f"{request.variant}--*.json"):
            other = path.stem.split("--", 1)[1]
            if other != stamp:
                job = self.job(campaign, request, other)
                if job is not None and job.state is state:
                    jobs.append(job)
        return jobs

    def _newest_ready(self, campaign: Campaign, request: ExportRequest, stamp: str) -> Job | None:
        """The most recently finished ready file of another stamp."""
        return max(self._others(campaign, request, stamp, JobState.READY), key=lambda j: j.finished_at, default=None)

    def _running(self, campaign: Campaign, request: ExportRequest, stamp: str) -> Job | None:
        """A preparation of the same export for other inputs that is still running."""
        return next(iter(self._others(campaign, request, stamp, JobState.PREPARING)), None)


def _read_job(path: Path, stamp: str) -> Job | None:
    """The job of a state file; a preparation whose process is gone (or silent) is FAILED."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except json.JSONDecodeError:  # being created: the claim is written right after
        return Job(JobState.PREPARING, stamp, utcnow().isoformat())
    job = Job(**{**data, "state": JobState(data["state"])})
    if job.state is JobState.PREPARING:
        if job.host == socket.gethostname() and job.pid and not _alive(job.pid):
            job.state, job.error = JobState.FAILED, "the preparing process ended without finishing"
        elif time.time() - path.stat().st_mtime > SILENT_AFTER:
            job.state = JobState.FAILED
            job.error = f"no news from the preparing process for {SILENT_AFTER // 60} minutes"
    return job


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _dumps(job: Job) -> str:
    return json.dumps({**asdict(job), "state": job.state.value}, sort_keys=True)


def _write(base: Path, job: Job) -> None:
    """Replace the state file atomically (readers see the old or the new state, never half)."""
    part = base.with_suffix(f".json.{os.getpid()}.part")
    part.write_text(_dumps(job))
    os.replace(part, base.with_suffix(".json"))


def _fail(base: Path, job: Job, error: str) -> None:
    job.state, job.error, job.finished_at = JobState.FAILED, error, utcnow().isoformat()
    _write(base, job)


def _snapshot_engine(url: str):
    """An engine whose sessions read one snapshot: REPEATABLE READ on PostgreSQL; on SQLite a real
    transaction from the first statement (SQLAlchemy's documented recipe for pysqlite)."""
    from sqlalchemy import event

    from da_platform.db.engine import make_engine

    if url.startswith("sqlite"):
        engine = make_engine(url)

        @event.listens_for(engine, "connect")
        def _no_implicit_transactions(dbapi_connection, _record) -> None:
            dbapi_connection.isolation_level = None

        @event.listens_for(engine, "begin")
        def _begin(connection) -> None:
            connection.exec_driver_sql("BEGIN")

        return engine
    return make_engine(url, isolation_level="REPEATABLE READ")


def prepare(url: str, base_name: str, campaign_id: int, request: ExportRequest, stamp: str) -> None:
    """(In the preparing process.) Build the export of the campaign into ``<base>.data`` and record
    its state in ``<base>.json``: READY, FAILED (with the error) or SUPERSEDED (the campaign's inputs
    changed after the request: the researcher asks again for the new stamp). Then remove the files it
    replaces (:func:`_remove_older`). A campaign deleted meanwhile (its folder gone) ends it quietly."""
    base = Path(base_name)
    job = Job(JobState.PREPARING, stamp, utcnow().isoformat(), steps=len(request.steps), pid=os.getpid(),
              host=socket.gethostname())
    try:
        _write(base, job)
        _prepare(url, base, campaign_id, request, job)
        _remove_older(base, ready=job.state is JobState.READY)
    except FileNotFoundError:
        if base.parent.is_dir():
            raise


def _prepare(url: str, base: Path, campaign_id: int, request: ExportRequest, job: Job) -> None:
    from da_platform.db.engine import session_factory
    from da_platform.exports.files import ExportError

    engine = _snapshot_engine(url)
    try:
        with session_factory(engine)() as session:
            campaign = session.get(Campaign, campaign_id)
            if campaign is None:
                _fail(base, job, "ExportError: the campaign no longer exists")
                return
            if read_export_stamp(session, campaign) != job.stamp:
                job.state, job.finished_at = JobState.SUPERSEDED, utcnow().isoformat()
                _write(base, job)
                return
            ratings = read_stamp(session, campaign).ratings

            def step(name: str) -> None:
                job.step, job.step_index = name, request.steps.index(name)
                _write(base, job)

            try:
                made = request.build(session, campaign, step)
            except ExportError as error:
                _fail(base, job, f"ExportError: {error}")
                return
        part = base.with_suffix(".data.part")
        part.write_bytes(made.content)
        os.replace(part, base.with_suffix(".data"))
        job.state, job.finished_at, job.step, job.step_index = JobState.READY, utcnow().isoformat(), "", job.steps
        job.name, job.media_type, job.size, job.ratings = made.name, made.media_type, len(made.content), ratings
        _write(base, job)
    except Exception as error:  # noqa: BLE001 - recorded for the page (unless the folder is gone: see prepare)
        _fail(base, job, f"{type(error).__name__}: {error}")
    finally:
        engine.dispose()


def _remove_older(base: Path, *, ready: bool) -> None:
    """Remove the finished files of the same export under other stamps than ``base``'s: all of them
    after a ready file (it replaces them), else the failed and superseded ones (the newest refusal
    replaces them; a ready file stays, offered as out of date). Running preparations are left alone."""
    variant = base.name.split("--", 1)[0]
    for path in base.parent.glob(f"{variant}--*.json"):
        if path.with_suffix("") == base.with_suffix("") or path.name.count(".") > 1:
            continue
        try:
            job = _read_job(path, path.stem.split("--", 1)[1])
        except (OSError, ValueError, TypeError):
            continue
        if job is not None and job.state is not JobState.PREPARING and (ready or job.state is not JobState.READY):
            path.with_suffix(".data").unlink(missing_ok=True)
            path.unlink(missing_ok=True)


def app_exports(app) -> PreparedExports:
    """The Flask app's prepared exports (folder ``EXPORT_FOLDER``)."""
    prepared = app.extensions.get("da_prepared_exports")
    if prepared is None:
        prepared = app.extensions.setdefault("da_prepared_exports", PreparedExports(
            app.config["SESSIONS"], Path(app.config["EXPORT_FOLDER"])))
    return prepared
