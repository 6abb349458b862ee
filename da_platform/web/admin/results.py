"""Dashboard: rankings per subset of the questions and the inter-rater agreement of a campaign."""
from __future__ import annotations

import weakref

from flask import render_template, request

from analysis.agreement import LIBRARY, Agreement, agreement
from da_platform.results.subsets import BUILT_IN, question_values, subset_rankings
from da_platform.web.admin import bp
from da_platform.web.admin.auth import login_required
from da_platform.web.admin.context import campaign_analysis, campaign_or_404
from da_platform.web.database import get_session

_AGREEMENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per (cached) analysis: computed once


@bp.app_template_global()
def campaign_agreement(analysis) -> Agreement | None:
    """Krippendorff's α among the workers whose ratings are scored (None without a ranking); kept
    with the analysis, which the analysis cache reuses until a rating or decision arrives."""
    if analysis.group is None:
        return None
    if analysis not in _AGREEMENTS:
        group = analysis.group  # the workers whose ratings are scored: the combined verdict's "kept"
        kept = (frozenset(w for w, v in group.verdicts.items() if v.kept) if group.verdicts
                else group.qc.passed_workers) - frozenset(analysis.excluded)
        _AGREEMENTS[analysis] = agreement(analysis.table, kept)
    return _AGREEMENTS[analysis]


@bp.get("/campaigns/<int:campaign_id>/subsets")
@login_required
def subsets(campaign_id: int):
    """The ranking within each subset of the questions (``?by=answer_type|yes_no_label|script``)."""
    campaign = campaign_or_404(campaign_id)
    by = request.args.get("by", "answer_type")
    if by not in BUILT_IN:
        by = "answer_type"
    analysis = campaign_analysis(campaign)
    rankings = None
    if analysis.ranked:
        rankings = subset_rankings(analysis.ranked_group, question_values(get_session(), campaign, by),
                                   alpha=analysis.ranked_result.settings.alpha)
    return render_template("admin/subsets.html", campaign=campaign, by=by, choices=BUILT_IN, rankings=rankings,
                           library=LIBRARY)
