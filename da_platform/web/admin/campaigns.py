"""Campaign pages: the list, one campaign (progress, ranking, p-values, planning), its exports."""
from __future__ import annotations

import io
import tempfile
from pathlib import Path

from flask import Response, g, render_template, request, send_file
from sqlalchemy import select

from da_platform.building.crowds import stored_crowd
from da_platform.campaigns.progress import campaign_progress
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Campaign
from da_platform.exports import files as exports
from da_platform.rating.merged import copies_by_system, merged_systems
from da_platform.web.admin import bp, prepared
from da_platform.web.admin.auth import login_required
from da_platform.web.admin.context import campaign_analysis, campaign_or_404, current_analysis, rating_counts
from da_platform.web.database import get_session


@bp.get("/")
@login_required
def campaigns():
    """Every campaign with its status and progress."""
    session = get_session()
    rows = [(c, campaign_progress(session, c)) for c in session.scalars(select(Campaign).order_by(Campaign.id))]
    return render_template("admin/campaigns.html", rows=rows)


def ranking_rows(group) -> list[dict]:
    """Rows of System | raw | z | N | n (with wins and rank range), flagged where a new cluster starts."""
    by_system = group.scores.by_system()
    cluster = group.ranking.cluster_index()
    rows, previous = [], None
    for i, name in enumerate(group.ranking.systems):
        s = by_system[name]
        rows.append({"rank": i + 1, "system": name, "raw": s.raw, "z": s.z, "N": s.n_ratings, "n": s.n_items,
                     "wins": group.ranking.wins[i], "rank_range": group.ranking.rank_ranges[i],
                     "cluster": cluster[name] + 1, "new_cluster": previous is not None and cluster[name] != previous})
        previous = cluster[name]
    return rows


@bp.get("/campaigns/<int:campaign_id>")
@login_required
def campaign(campaign_id: int):
    """Progress, the live ranking with clusters, the p-value heatmap, the waves and the planning panel."""
    from analysis.power import separation_progress
    from da_platform.results.waves import wave_status

    item = campaign_or_404(campaign_id)
    analysis = campaign_analysis(item)
    progress = campaign_progress(get_session(), item, rating_counts=rating_counts(item))
    rows = planning = planning_error = waves = None
    try:
        waves = wave_status(get_session(), item, analysis)  # a campaign in waves: its waves and decisions
    except ValueError as error:
        planning_error = str(error)
    if analysis.ranked:
        group = analysis.ranked_group
        rows = ranking_rows(group)
        try:
            planning = separation_progress(group.ranking, group.scores)
        except ValueError as error:  # a numerical failure of the planner: show it, keep the page
            planning_error = str(error)
    merged = merged_systems(get_session(), item)
    settings = CampaignSettings.of(item)
    return render_template("admin/campaign.html", campaign=item, progress=progress, analysis=analysis, rows=rows,
                           merged=merged, copies=copies_by_system(analysis.table) if merged else {},
                           rehearsal=settings.rehearsal, crowd=stored_crowd(settings),
                           language=settings.worker.describe_language(), planning=planning, waves=waves,
                           planning_error=planning_error, formats=exports.RANKING_FORMATS,
                           large_exports=prepared.is_large(g.analysis_state.latest))


@bp.get("/campaigns/<int:campaign_id>/pvalues.png")
@login_required
def pvalues_png(campaign_id: int):
    """The p-value heatmap (``analysis.plots.pvalue_heatmap``), rendered on each request."""
    from analysis.plots import pvalue_heatmap

    analysis = campaign_analysis(campaign_or_404(campaign_id))
    if not analysis.ranked:
        return Response("no ranking yet", status=404, mimetype="text/plain")
    with tempfile.TemporaryDirectory() as folder:
        png = pvalue_heatmap(analysis.ranked_group, Path(folder) / "pvalues.png").read_bytes()
    return Response(png, mimetype="image/png")


@bp.get("/campaigns/<int:campaign_id>/export/<kind>")
@login_required
def export(campaign_id: int, kind: str):
    """Download an export; an empty or (without ``partial=1``) unfinished campaign gets a message instead."""
    item = campaign_or_404(campaign_id)
    partial = request.args.get("partial") == "1"
    session = get_session()
    large = prepared.in_background(session, item, kind)
    if large is not None:  # prepared off the request path
        return prepared.download_or_status(item, kind, large)
    if kind not in ("ranking", "ratings", "wmt", "bundle"):
        return render_template("admin/message.html", title="Unknown export",
                               message=f"There is no export called {kind!r}."), 404
    analysis = current_analysis(item)
    try:
        if kind == "ranking":
            made = exports.ranking(session, item, request.args.get("format", "csv"), partial=partial,
                                   analysis=analysis)
        elif kind == "ratings":
            made = exports.ratings(session, item, partial=partial, with_texts=request.args.get("texts") == "1",
                                   analysis=analysis)
        elif kind == "wmt":
            made = exports.wmt(session, item, partial=partial, analysis=analysis)
        else:  # bundle
            made = exports.bundle(session, item, partial=partial, analysis=analysis)
    except exports.ExportError as error:
        return render_template("admin/message.html", title="Nothing exported", message=str(error),
                               campaign=item), 409
    return send_file(io.BytesIO(made.content), mimetype=made.media_type, as_attachment=True,
                     download_name=made.name)
