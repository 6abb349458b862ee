"""A ratings file's analysis through the options a campaign's analysis takes: the choices a command line gives
(strings, None for "the campaign's policy or the default") as :class:`AnalysisOptions`, and a file's table
analysed with them over the default quality-control policy."""
from __future__ import annotations

from collections.abc import Mapping

from analysis.qc_policy import WMT_QC
from analysis.report import AnalysisResult
from analysis.report import analyze as run_analysis
from analysis.scores import ScoreSettings
from analysis.states import QCMethod, QCScope
from analysis.table import RatingsTable
from da_platform.results.campaign_analysis import AnalysisOptions


def analysis_options(qc_method: str | None, qc_alpha: float | None, qc_scope: str | None, alpha: float,
                     z_digits: int | None, wmt_compat: bool, sd_zero: str | None) -> AnalysisOptions:
    """The command line's choices as ``AnalysisOptions`` (None = the campaign's policy or the default;
    with ``wmt_compat``, WMT's: ``analysis.qc_policy.WMT_QC``)."""
    if wmt_compat:
        scores = ScoreSettings.wmt(sd_zero or "raw-only")
        qc_method, qc_scope = qc_method or WMT_QC.method, qc_scope or WMT_QC.scope
    else:
        scores = ScoreSettings(z_digits=z_digits, sd_zero=sd_zero or "exclude")
    return AnalysisOptions(QCMethod(qc_method) if qc_method else None, qc_alpha,
                           QCScope(qc_scope) if qc_scope else None, alpha, scores)


def analyse_file(table: RatingsTable, options: AnalysisOptions,
                 worker_stats: Mapping[tuple[str, str], tuple[float, float]] | None) -> AnalysisResult:
    """A ratings file's analysis: ``options`` over the default quality-control policy."""
    qc = options.qc_policy()
    return run_analysis(table, qc_method=qc.method, alpha=options.alpha, qc_alpha=options.qc_alpha,
                        qc_scope=qc.scope, scores=options.scores, worker_stats=worker_stats)
