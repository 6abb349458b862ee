"""Exports of large campaigns, prepared off the request path (``da_platform.prepared_exports``).

A campaign with at least ``EXPORT_BACKGROUND_FROM`` ratings (default 50,000)
gets its bundle, ratings CSV and WMT files from a preparing process. Only a POST with the form's CSRF
token starts one (the campaign page's export buttons, the status page's "Prepare" and "Try again"),
so a link followed from another site never does: a GET of the export link answers with the file if the
one for the current ratings and decisions is ready, else sends the researcher to the status page. That
page says how far the preparation got (it reloads itself with a meta refresh, no script) and offers
the download when ready; a ready file of older inputs is offered only marked out of date.
"""
from __future__ import annotations

from typing import Any

from flask import current_app, redirect, render_template, request, send_file, url_for
from sqlalchemy.orm import Session

from da_platform.analysis_cache import BACKGROUND_FROM, Stamp, read_stamp
from da_platform.models import Campaign
from da_platform.prepared_exports import (
    KINDS,
    ExportRequest,
    JobState,
    PreparedExports,
    app_exports,
)
from da_platform.web.admin import bp
from da_platform.web.admin.auth import login_required
from da_platform.web.admin.context import campaign_or_404
from da_platform.web.database import get_session

REFRESH_SECONDS = 3


def prepared_exports() -> PreparedExports:
    return app_exports(current_app)


def in_background(session: Session, campaign: Campaign, kind: str) -> Stamp | None:
    """The campaign's analysis stamp if its ``kind`` export is prepared off the request path, else None."""
    if kind not in KINDS:
        return None
    stamp = read_stamp(session, campaign)
    return stamp if is_large(stamp) else None


def _request(kind: str) -> ExportRequest:
    return ExportRequest(kind, partial=request.args.get("partial") == "1", texts=request.args.get("texts") == "1")


def _args(wanted: ExportRequest) -> dict[str, Any]:
    return {**({"partial": "1"} if wanted.partial else {}), **({"texts": "1"} if wanted.texts else {})}


def _refused(campaign: Campaign, error: str):
    return render_template("admin/message.html", title="Nothing exported",
                           message=error.removeprefix("ExportError: "), campaign=campaign), 409


def is_large(stamp: Stamp) -> bool:
    """Whether a campaign whose analysis stamp is ``stamp`` has its large exports prepared off the request path."""
    threshold = int(current_app.config.get("EXPORT_BACKGROUND_FROM", BACKGROUND_FROM))
    return stamp.ratings >= threshold


def _status_url(campaign: Campaign, wanted: ExportRequest) -> str:
    return url_for("admin.prepared_export", campaign_id=campaign.id, kind=wanted.kind, **_args(wanted))


def download_or_status(campaign: Campaign, kind: str, stamp: Stamp):
    """(A GET of the export link of a large campaign.) The file if ready for the current inputs, the
    refusal if the export is refused, else the status page. Starts nothing."""
    wanted = _request(kind)
    status = prepared_exports().status(get_session(), campaign, wanted, analysis_stamp=stamp)
    job = status.current
    if job is not None and job.state is JobState.READY:
        path = prepared_exports().data_path(campaign, wanted, status.stamp)
        return send_file(path, mimetype=job.media_type, as_attachment=True, download_name=job.name)
    if job is not None and job.state is JobState.FAILED and job.error.startswith("ExportError"):
        return _refused(campaign, job.error)
    return redirect(_status_url(campaign, wanted), 303)


def _kind_or_404(kind: str):
    if kind not in KINDS:
        return render_template("admin/message.html", title="Unknown export",
                               message=f"There is no export called {kind!r}."), 404
    return None


@bp.get("/campaigns/<int:campaign_id>/prepared/<kind>")
@login_required
def prepared_export(campaign_id: int, kind: str):
    """How far the preparation of a large export got; the download link when it is ready; a button
    that starts it when none is under way for the current inputs."""
    item = campaign_or_404(campaign_id)
    unknown = _kind_or_404(kind)
    if unknown:
        return unknown
    wanted = _request(kind)
    status = prepared_exports().status(get_session(), item, wanted)
    job = status.current
    if job is not None and job.state is JobState.SUPERSEDED:
        job = None  # the inputs changed before it began: as good as not started
    if job is not None and job.state is JobState.FAILED and job.error.startswith("ExportError"):
        return _refused(item, job.error)
    waiting = job is None and status.running is not None
    preparing = waiting or (job is not None and job.state is JobState.PREPARING)
    args = _args(wanted)
    return render_template("admin/prepared_export.html", campaign=item, wanted=wanted, job=job or status.running,
                           waiting=waiting, older=status.older, preparing=preparing,
                           idle=job is None and not waiting, refresh=REFRESH_SECONDS,
                           download=url_for("admin.export", campaign_id=item.id, kind=kind, **args),
                           start=url_for("admin.prepare_export", campaign_id=item.id, kind=kind, **args),
                           older_download=None if status.older is None else url_for(
                               "admin.prepared_older", campaign_id=item.id, kind=kind, stamp=status.older.stamp,
                               **args))


@bp.post("/campaigns/<int:campaign_id>/prepared/<kind>")
@login_required
def prepare_export(campaign_id: int, kind: str):
    """Start preparing a large export for the current inputs (or again, after an unexpected failure);
    then the file if it is ready, the refusal, or the status page."""
    item = campaign_or_404(campaign_id)
    unknown = _kind_or_404(kind)
    if unknown:
        return unknown
    wanted = _request(kind)
    status = prepared_exports().ensure(get_session(), item, wanted, retry=True)
    job = status.current
    if job is not None and job.state is JobState.READY:
        return redirect(url_for("admin.export", campaign_id=item.id, kind=kind, **_args(wanted)), 303)
    if job is not None and job.state is JobState.FAILED and job.error.startswith("ExportError"):
        return _refused(item, job.error)
    return redirect(_status_url(item, wanted), 303)


@bp.get("/campaigns/<int:campaign_id>/prepared/<kind>/<stamp>")
@login_required
def prepared_older(campaign_id: int, kind: str, stamp: str):
    """A ready file of older inputs (the page offers it marked out of date)."""
    item = campaign_or_404(campaign_id)
    if kind not in KINDS or not stamp.isalnum():
        return render_template("admin/message.html", title="Unknown export",
                               message=f"There is no export called {kind!r}."), 404
    wanted = _request(kind)
    job = prepared_exports().job(item, wanted, stamp)
    if job is None or job.state is not JobState.READY:
        return render_template("admin/message.html", title="No such file",
                               message="That prepared file has been replaced by a newer one.", campaign=item), 404
    name = job.name.rsplit(".", 1)
    return send_file(prepared_exports().data_path(item, wanted, stamp), mimetype=job.media_type,
                     as_attachment=True,
                     download_name=f"{name[0]}-out-of-date.{name[1]}" if len(name) == 2 else job.name)
