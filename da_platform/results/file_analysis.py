"""A ratings file's analysis through the options a campaign's analysis takes: the choices a command line gives
(strings, None for "the campaign's or the file's policy, else the default") as :class:`AnalysisOptions`, a file's
ratings analysed with them, and what the analysis takes from the file or cannot compute without."""
from __future__ import annotations

from pathlib import Path

from analysis.behaviour_signals import SIGNALS
from analysis.qc_policy import WMT_QC, QCOverrides, resolve_policy
from analysis.qc_states import QCMethod, QCScope
from analysis.readers import RatingsFile
from analysis.report import AnalysisResult
from analysis.report import analyze as run_analysis
from analysis.scores import ScoreSettings
from da_platform.results.campaign_analysis import AnalysisOptions


def analysis_options(qc_method: str | None, qc_alpha: float | None, qc_scope: str | None, alpha: float,
                     z_digits: int | None, wmt_compat: bool, sd_zero: str | None) -> AnalysisOptions:
    """The command line's choices as ``AnalysisOptions``: the quality-control options as overrides of the
    stored policy (None: the campaign's or the file's; with ``wmt_compat``, WMT's test and scope,
    ``analysis.qc_policy.WMT_QC``), ``alpha`` the ranking's level only."""
    method, scope = QCMethod(qc_method) if qc_method else None, QCScope(qc_scope) if qc_scope else None
    if wmt_compat:
        scores = ScoreSettings.wmt(sd_zero or "raw-only")
        method, scope = method or WMT_QC.method, scope or WMT_QC.scope
    else:
        scores = ScoreSettings(z_digits=z_digits, sd_zero=sd_zero or "exclude")
    return AnalysisOptions(QCOverrides(method, qc_alpha, scope), alpha, scores)


def analyse_file(ratings: RatingsFile, options: AnalysisOptions) -> AnalysisResult:
    """A ratings file's analysis as a campaign's: the policy the file carries (else the default) with what
    ``options`` ask, resolved by ``analysis.qc_policy.resolve_policy``; the workers the file says a review decision
    excluded left out."""
    return run_analysis(ratings.table, qc=resolve_policy(ratings.qc, options.qc), alpha=options.alpha,
                        scores=options.scores, worker_stats=ratings.worker_stats, excluded=ratings.excluded)


def file_notes(path: Path, ratings: RatingsFile, options: AnalysisOptions) -> list[str]:
    """What the analysis of a ratings file takes from it, and what it cannot compute without (by name)."""
    notes = []
    policy = resolve_policy(ratings.qc, options.qc)
    if ratings.qc is not None:
        asked = "" if policy == ratings.qc else f"; this run: {policy.method} test, alpha {policy.alpha:g}, " \
                                                  f"scope {policy.scope}"
        notes.append(f"{path}: quality control by the policy the file carries ({ratings.qc.method} test, alpha "
                     f"{ratings.qc.alpha:g}, scope {ratings.qc.scope}){asked}")
    if ratings.excluded:
        notes.append(f"{path}: {len(ratings.excluded)} worker(s) excluded by a review decision, as the file says")
    if ratings.table.evidence is None and ratings.table.given_z is None and not policy.off:
        notes.append(f"{path} carries no behaviour records, reading units or automatic scores: the signals "
                     f"{', '.join(SIGNALS)} cannot be computed, so the verdicts rest on the {policy.method} test "
                     "alone (a campaign's 'export ratings' carries them)")
    elif ratings.table.evidence is not None and ratings.table.evidence.judge.shape[1] == 0 and not policy.off:
        notes.append(f"{path} carries no judge's scores: beyond_automatic controls for text overlap alone")
    return notes
