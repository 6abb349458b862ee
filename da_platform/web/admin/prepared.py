"""Exports of large campaigns, prepared off the request path (``da_platform.exports.prepared``).

A campaign with at least ``EXPORT_BACKGROUND_FROM`` ratings (default: ``ANALYSIS_BACKGROUND_FROM``)
gets its bundle, ratings CSV and WMT files from a preparing process: the export link answers with
the file when the one for the current ratings and decisions is ready, else sends the researcher to a
page that says how far the preparation got (it reloads itself with a meta refresh, no script) and
offers the download when ready. A ready file of older inputs is offered only marked out of date.
"""
from __future__ import annotations

from typing import Any

from flask import current_app, redirect, render_template, request, send_file, url_for
from sqlalchemy.orm import Session

from da_platform.db.models import Campaign
from da_platform.exports.prepared import KINDS, ExportRequest, JobState, PreparedExports, app_exports
from da_platform.results.analysis_cache import BACKGROUND_FROM, Stamp, read_stamp
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
    threshold = int(current_app.config.get("EXPORT_BACKGROUND_FROM",
                                           current_app.config.get("ANALYSIS_BACKGROUND_FROM", BACKGROUND_FROM)))
    stamp = read_stamp(session, campaign)
    return stamp if stamp.ratings >= threshold else None


def _request(kind: str) -> ExportRequest:
    return ExportRequest(kind, partial=request.args.get("partial") == "1", texts=request.args.get("texts") == "1")


def _args(wanted: ExportRequest) -> dict[str, Any]:
    return {**({"partial": "1"} if wanted.partial else {}), **({"texts": "1"} if wanted.texts else {})}


def _refused(campaign: Campaign, error: str):
    return render_template("admin/message.html", title="Nothing exported",
                           message=error.removeprefix("ExportError: "), campaign=campaign), 409


def download_or_status(campaign: Campaign, kind: str, stamp: Stamp):
    """(The export link of a large campaign.) The file if ready for the current inputs, the refusal
    if the export is refused, else the status page (which starts the preparation)."""
    wanted = _request(kind)
    status = prepared_exports().ensure(get_session(), campaign, wanted, analysis_stamp=stamp)
    job = status.current
    if job is not None and job.state is JobState.READY:
        path = prepared_exports().data_path(campaign.id, wanted, status.stamp)
        return send_file(path, mimetype=job.media_type, as_attachment=True, download_name=job.name)
    if job is not None and job.state is JobState.FAILED and job.error.startswith("ExportError"):
        return _refused(campaign, job.error)
    return redirect(url_for("admin.prepared_export", campaign_id=campaign.id, kind=kind, **_args(wanted)), 303)


@bp.get("/campaigns/<int:campaign_id>/prepared/<kind>")
@login_required
def prepared_export(campaign_id: int, kind: str):
    """How far the preparation of a large export got; the download link when it is ready."""
    item = campaign_or_404(campaign_id)
    if kind not in KINDS:
        return render_template("admin/message.html", title="Unknown export",
                               message=f"There is no export called {kind!r}."), 404
    wanted = _request(kind)
    status = prepared_exports().ensure(get_session(), item, wanted, retry=request.args.get("retry") == "1")
    job = status.current
    if job is not None and job.state is JobState.FAILED and job.error.startswith("ExportError"):
        return _refused(item, job.error)
    preparing = job is None or job.state in (JobState.PREPARING, JobState.SUPERSEDED)
    args = _args(wanted)
    return render_template("admin/prepared_export.html", campaign=item, wanted=wanted, job=job or status.running,
                           waiting=job is None and status.running is not None, older=status.older,
                           preparing=preparing, refresh=REFRESH_SECONDS,
                           download=url_for("admin.export", campaign_id=item.id, kind=kind, **args),
                           retry=url_for("admin.prepared_export", campaign_id=item.id, kind=kind, retry="1", **args),
                           older_download=None if status.older is None else url_for(
                               "admin.prepared_older", campaign_id=item.id, kind=kind, stamp=status.older.stamp,
                               **args))


@bp.get("/campaigns/<int:campaign_id>/prepared/<kind>/<stamp>")
@login_required
def prepared_older(campaign_id: int, kind: str, stamp: str):
    """A ready file of older inputs (the page offers it marked out of date)."""
    item = campaign_or_404(campaign_id)
    if kind not in KINDS or not stamp.isalnum():
        return render_template("admin/message.html", title="Unknown export",
                               message=f"There is no export called {kind!r}."), 404
    wanted = _request(kind)
    job = prepared_exports().job(item.id, wanted, stamp)
    if job is None or job.state is not JobState.READY:
        return render_template("admin/message.html", title="No such file",
                               message="That prepared file has been replaced by a newer one.", campaign=item), 404
    name = job.name.rsplit(".", 1)
    return send_file(prepared_exports().data_path(item.id, wanted, stamp), mimetype=job.media_type,
                     as_attachment=True,
                     download_name=f"{name[0]}-out-of-date.{name[1]}" if len(name) == 2 else job.name)
