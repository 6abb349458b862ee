"""Per-worker evidence beyond the quality checks (docs/quality-control.md#behaviour-signals): how each worker's
ratings were given.

Each signal is computed per worker per group from the table's ``evidence`` (``analysis.evidence``),
with its value, its threshold and why; a signal without enough data is "not applicable" (``flagged``
None), never a flag. docs/quality-control.md ("Behaviour signals") explains each one, what it catches and what not.

- ``missing_records``: share of ratings that arrived without a valid behaviour record. The page's
  script sends one with every rating, so a rating without one was posted by something else.
- ``server_time``: share of well-formed records that claim more time on the item than the server saw
  between serving it and receiving the rating (beyond ``SERVER_TIME_TOLERANCE_MS``): forged by a
  program that sends a person's times without taking them. Such records count as no record for the
  other behaviour signals, and reading speed uses the server's time for them.
- ``no_interaction``: share of valid records without any trusted pointer, touch or key event on the
  slider: the value was set by a script (or by assistive technology; hence review, not rejection).
- ``regular_timing``: coefficient of variation of the time per item; people's times vary with the text
  and their attention (CV of about 0.4 and more), a script's do not.
- ``reading_speed``: share of ratings given faster than a person can read what was shown: words at
  3 × 228 words/min and CJK characters at 3 × 255 characters/min, the mean silent reading rates of the
  IReST study (Trauzettel-Klosinski & Dietz 2012, IOVS 53(9):5452) for English and Chinese; three times
  the mean is beyond skimming (about 600–700 words/min, Rayner et al. 2016, Psychol. Sci. Public
  Interest 17(1)). Time: the record's ``shown_ms``, else the server's time on item.
- ``beyond_automatic``: whether the worker's scores carry information beyond the automatic scores. Over the
  worker's ordinary answers and degraded (``BAD_REF``) copies that have every automatic score (the text-overlap
  measures of ``analysis.evidence.OVERLAP_MEASURES`` and the imported judges' scores), both the worker's
  scores and the crowd's value of each are regressed on those scores (each, its square, and for judges its
  cube: a judge's clipped 0-100 scale is not linear), and the Spearman correlation of the two residuals is
  tested one-sided (t with n - regressors - 1 degrees of freedom). A rater that scores by overlap or by a
  judge, plus any noise, adds nothing the crowd sees beyond them (its residual is its noise); a person's
  judgement tracks what they miss. This is peer prediction conditioned on machine labels (Zhang, Pang, Zhu
  and Liu, "Evaluating LLM-Contaminated Crowdsourcing Data Without Ground Truth", NeurIPS 2025) for 0-100
  scores: the crowd's value of an answer is the other workers' mean z-score of the same answer (and slot
  type) where at least three others rated it, else of the same system's answers of that type. MEANING
  copies are left out: a check-aware bot spots some by rule and would agree with the crowd there. It needs
  the crowd to see something beyond the automatic scores: in a group where fewer than half the workers
  show it, it cannot tell people from automatic raters and is not applicable.
- ``automation_traces``: share of valid records whose page saw a browser that says it is automated
  (``navigator.webdriver`` set, or a headless browser's user agent). A person's browser shows neither; both
  are evaded cheaply (docs/quality-control.md), so they catch only careless automation. WebGL drawn in
  software is reported in the reason but flags nobody (people without graphics hardware show it too).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.evidence import (
    AUTOMATION_TRACES,
    FORGED,
    OVERLAP_MEASURES,
    SERVER_TIME_TOLERANCE_MS,
    UNKNOWN,
    RatingEvidence,
)
from analysis.grouping import Grouping, group_by
from analysis.table import BAD_REF, SYSTEM, RatingsTable

MIN_RATINGS = 10
"""Fewer ratings (or records) than this: the signal is not applicable."""
MAX_MISSING_SHARE = 0.10
MAX_FORGED_SHARE = 0.10
MAX_NO_INTERACTION_SHARE = 0.50
MIN_TIME_CV = 0.15
READING_WPM, READING_CPM = 228.0, 255.0  # IReST means: English words/min, Chinese characters/min
READING_FACTOR = 3.0
MAX_TOO_FAST_SHARE = 0.50
MAX_AUTOMATIC_P = 0.02
"""``beyond_automatic`` flags a worker whose one-sided p (partial correlation > 0) is at least this: measured,
it flags 98-99 % of simulated overlap and judge raters and about 2 % of simulated people on the sample data
(docs/benchmarks.md, "Quality control at one HIT")."""
MAX_AUTOMATED_SHARE = 0.50
AUTOMATION_FLAGGING = ("webdriver", "headless_ua")
"""The traces that flag (``software_gl`` is reported only: people without graphics hardware show it too)."""
MIN_CROWD = 3
MIN_SHOWING_SHARE = 0.5
"""``beyond_automatic`` applies in a group only where at least this share of its workers show information
beyond the automatic scores (else people there cannot be told from automatic raters); where the checks' verdicts
are known, the share is of the workers who pass them (a HIT without attention, as a fifth of real workers' HITs
are, shows nothing of how people rate, and its worker is excluded by the checks anyway)."""

SIGNALS = ("missing_records", "no_interaction", "regular_timing", "reading_speed", "beyond_automatic",
           "server_time", "automation_traces")
BEHAVIOUR, CONTENT = "behaviour", "content"


@dataclass(frozen=True)
class Signal:
    """One piece of evidence about one worker: value, threshold, whether it flags, and why."""

    name: str
    kind: str  # behaviour (how the ratings were given) | content (what the scores follow)
    value: float  # NaN when not applicable
    threshold: str
    flagged: bool | None  # None: not applicable (too little data)
    reason: str


def _na(name: str, kind: str, threshold: str, why: str) -> Signal:
    return Signal(name, kind, math.nan, threshold, None, why)


def missing_records(evidence: RatingEvidence, rows: np.ndarray) -> Signal:
    threshold = f"> {MAX_MISSING_SHARE:g} of ratings"
    known = rows[(evidence.record[rows] != UNKNOWN) & (evidence.record[rows] != FORGED)]  # forged: server_time
    if len(known) < MIN_RATINGS:
        return _na("missing_records", BEHAVIOUR, threshold,
                   f"{len(known)} rating(s) with a known record status (< {MIN_RATINGS})")
    missing = int(np.count_nonzero(~evidence.valid[known]))
    share = missing / len(known)
    flagged = share > MAX_MISSING_SHARE
    return Signal("missing_records", BEHAVIOUR, share, threshold, flagged,
                  f"{missing} of {len(known)} ratings came without a valid behaviour record "
                  f"({'more' if flagged else 'not more'} than {MAX_MISSING_SHARE:.0%}): "
                  "the page sends one with every rating")


def server_time(evidence: RatingEvidence, seconds: np.ndarray, rows: np.ndarray) -> Signal:
    """Share of well-formed records whose ``shown_ms`` exceeds the server's time on the item (``seconds``)
    by more than the tolerance (``analysis.evidence.FORGED``)."""
    threshold = f"> {MAX_FORGED_SHARE:g} of records claim > server time + {SERVER_TIME_TOLERANCE_MS / 1000:g} s"
    checked = rows[evidence.well_formed[rows] & np.isfinite(seconds[rows])]
    if len(checked) < MIN_RATINGS:
        return _na("server_time", BEHAVIOUR, threshold,
                   f"{len(checked)} record(s) with a known server time (< {MIN_RATINGS})")
    forged = checked[evidence.record[checked] == FORGED]
    share = len(forged) / len(checked)
    flagged = share > MAX_FORGED_SHARE
    detail = (f" (median claim {np.median(evidence.shown_ms[forged]) / 1000:.1f} s, server "
              f"{np.median(seconds[forged]):.1f} s)" if len(forged) else "")
    return Signal("server_time", BEHAVIOUR, share, threshold, flagged,
                  f"{len(forged)} of {len(checked)} records claim the item was shown longer than the server saw "
                  f"from serving it to receiving the rating{detail}"
                  f"{': times a program made up, not took' if flagged else ''}")


def no_interaction(evidence: RatingEvidence, rows: np.ndarray) -> Signal:
    threshold = f"> {MAX_NO_INTERACTION_SHARE:g} of records"
    valid = rows[evidence.valid[rows]]
    if len(valid) < MIN_RATINGS:
        return _na("no_interaction", BEHAVIOUR, threshold, f"{len(valid)} valid record(s) (< {MIN_RATINGS})")
    quiet = int(np.count_nonzero(evidence.interactions[valid] == 0))
    share = quiet / len(valid)
    flagged = share > MAX_NO_INTERACTION_SHARE
    return Signal("no_interaction", BEHAVIOUR, share, threshold, flagged,
                  f"{quiet} of {len(valid)} ratings were set without any pointer, touch or key event on the slider")


def regular_timing(evidence: RatingEvidence, rows: np.ndarray) -> Signal:
    threshold = f"CV < {MIN_TIME_CV:g}"
    valid = rows[evidence.valid[rows]]
    if len(valid) < MIN_RATINGS:
        return _na("regular_timing", BEHAVIOUR, threshold, f"{len(valid)} valid record(s) (< {MIN_RATINGS})")
    times = evidence.shown_ms[valid]
    mean = float(np.mean(times))
    cv = float(np.std(times, ddof=1)) / mean if mean > 0 else 0.0
    flagged = cv < MIN_TIME_CV
    return Signal("regular_timing", BEHAVIOUR, cv, threshold, flagged,
                  f"time per item {mean / 1000:.1f} s on average with coefficient of variation {cv:.3f} "
                  f"({'mechanically regular' if flagged else 'varies as people do'}, threshold {MIN_TIME_CV:g})")


def automation_traces(evidence: RatingEvidence, rows: np.ndarray) -> Signal:
    """Share of valid records reporting traces whose browser said it is automated (``AUTOMATION_FLAGGING``)."""
    threshold = f"> {MAX_AUTOMATED_SHARE:g} of records: " + " or ".join(AUTOMATION_FLAGGING)
    reported = rows[evidence.valid[rows] & np.isfinite(evidence.traces[rows]).all(axis=1)]
    if len(reported) < MIN_RATINGS:
        return _na("automation_traces", BEHAVIOUR, threshold,
                   f"{len(reported)} valid record(s) reporting automation traces (< {MIN_RATINGS})")
    seen = evidence.traces[reported] == 1
    flagging = [AUTOMATION_TRACES.index(name) for name in AUTOMATION_FLAGGING]
    automated = int(np.count_nonzero(seen[:, flagging].any(axis=1)))
    share = automated / len(reported)
    flagged = share > MAX_AUTOMATED_SHARE
    counts = ", ".join(f"{name} {int(np.count_nonzero(seen[:, t]))}" for t, name in enumerate(AUTOMATION_TRACES))
    return Signal("automation_traces", BEHAVIOUR, share, threshold, flagged,
                  f"{automated} of {len(reported)} ratings came from a browser that says it is automated "
                  f"(records with each trace: {counts})"
                  f"{': a driven or headless browser' if flagged else ''}")


def reading_times(table: RatingsTable) -> tuple[np.ndarray, np.ndarray]:
    """Per rating: seconds taken (the record's shown time, else the server's) and seconds a fast
    reader needs for the text shown at ``READING_FACTOR`` × the IReST mean rates."""
    evidence = table.evidence
    assert evidence is not None
    taken = np.where(evidence.valid, evidence.shown_ms / 1000.0, table.seconds)
    needed = (evidence.words / (READING_FACTOR * READING_WPM)
              + evidence.characters / (READING_FACTOR * READING_CPM)) * 60
    return taken, needed


def reading_speed(taken: np.ndarray, needed: np.ndarray, rows: np.ndarray) -> Signal:
    threshold = (f"> {MAX_TOO_FAST_SHARE:g} of ratings faster than {READING_FACTOR * READING_WPM:.0f} words/min "
                 f"or {READING_FACTOR * READING_CPM:.0f} CJK characters/min")
    timed = rows[np.isfinite(taken[rows]) & (needed[rows] > 0)]
    if len(timed) < MIN_RATINGS:
        return _na("reading_speed", BEHAVIOUR, threshold, f"{len(timed)} timed rating(s) with text (< {MIN_RATINGS})")
    fast = int(np.count_nonzero(taken[timed] < needed[timed]))
    share = fast / len(timed)
    flagged = share > MAX_TOO_FAST_SHARE
    median_ratio = float(np.median(needed[timed] / np.maximum(taken[timed], 1e-3)))
    return Signal("reading_speed", BEHAVIOUR, share, threshold, flagged,
                  f"{fast} of {len(timed)} ratings given faster than a person can skim the answers "
                  f"(median: {median_ratio:.2f} × the fastest plausible reading rate)")


@dataclass(frozen=True)
class Beyond:
    """One worker's ``beyond_automatic`` test: one-sided p, partial correlation, answers used, regressors."""

    pvalue: float  # NaN: not computed (too few answers, constant scores)
    r: float
    n: int
    regressors: int  # automatic scores controlled for


def automatic_scores(evidence: RatingEvidence) -> tuple[np.ndarray, str]:
    """Per rating, every automatic score (overlap measures, then judges), and how to name them."""
    judges = evidence.judge.shape[1]
    named = f"{len(OVERLAP_MEASURES)} text-overlap measures" + (f" and {judges} judge(s)" if judges else "")
    return np.concatenate([evidence.overlap, evidence.judge], axis=1), named


COMPARED = (SYSTEM, BAD_REF)
"""The slots ``beyond_automatic`` compares: ordinary answers and their degraded copies (a rater scoring by
overlap or a judge scores both by it; ``MEANING`` copies are left out: a check-aware bot spots some by rule
and would look like the crowd there)."""
ROUNDING_SD = 1.0
"""A worker whose scores are a linear function of the automatic scores up to less than this standard deviation
(rounding to whole points alone leaves 0.29) adds nothing beyond them: p = 1."""
MIN_ITEM_PEERS = 3
"""``beyond_automatic`` compares a worker with the other workers' ratings of the same answer only where at
least this many rated it (one or two others may be automatic raters themselves), else with their ratings of
the same system's answers."""


def peer_values(table: RatingsTable, workers: Grouping) -> np.ndarray:
    """Per ordinary rating: the other workers' mean z-score of the same answer (group, system, question) where
    at least ``MIN_ITEM_PEERS`` others rated it, else of the same system's answers in the group; NaN where
    nobody else did."""
    scores = table.score.astype(np.float64)
    n = workers.counts()
    mean = workers.means(scores)
    squares = np.bincount(workers.index, weights=(scores - mean[workers.index]) ** 2, minlength=workers.n)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(squares / (n - 1))
        z = (scores - mean[workers.index]) / sd[workers.index]
    ordinary = np.isin(table.slot_type, COMPARED) & np.isfinite(z)
    result = np.full(len(table), np.nan)
    levels = ((table.group.codes, table.system.codes, table.item.codes, table.slot_type), MIN_ITEM_PEERS), \
             ((table.group.codes, table.system.codes, table.slot_type), 1)
    for keys, least in levels:
        cells = group_by(*keys)
        own = group_by(workers.index, cells.index)
        weights = np.where(ordinary, z, 0.0)
        cell_sum = np.bincount(cells.index, weights=weights, minlength=cells.n)
        cell_n = np.bincount(cells.index, weights=ordinary.astype(np.float64), minlength=cells.n)
        own_sum = np.bincount(own.index, weights=weights, minlength=own.n)
        own_n = np.bincount(own.index, weights=ordinary.astype(np.float64), minlength=own.n)
        others = cell_n[cells.index] - own_n[own.index]
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (cell_sum[cells.index] - own_sum[own.index]) / others
        fill = ordinary & np.isnan(result) & (others >= least)
        result[fill] = value[fill]
    return result


def beyond_tests(table: RatingsTable, workers: Grouping) -> list[Beyond]:
    """Per worker: the partial (Spearman) correlation of their scores with ``peer_values`` given the
    ``automatic_scores`` (module docstring), over their ``COMPARED`` slots with every automatic score and a
    peer value."""
    evidence = table.evidence
    assert evidence is not None
    automatic, _ = automatic_scores(evidence)
    automatic[:, len(OVERLAP_MEASURES):] = _standard_scale(automatic[:, len(OVERLAP_MEASURES):])
    peers = peer_values(table, workers)
    usable = np.isin(table.slot_type, COMPARED) & np.isfinite(peers) & np.isfinite(automatic).all(axis=1)
    results = []
    for w in range(workers.n):
        rows = workers.rows(w)
        rows = rows[usable[rows]]
        design = np.column_stack([np.ones(len(rows)), automatic[rows], automatic[rows] ** 2,
                                  automatic[rows][:, len(OVERLAP_MEASURES):] ** 3])
        df = len(rows) - np.linalg.matrix_rank(design) - 1 if len(rows) else 0
        if len(rows) < MIN_RATINGS or df < 3:
            results.append(Beyond(math.nan, math.nan, len(rows), automatic.shape[1]))
            continue
        own = _residual(design, table.score[rows].astype(np.float64))
        crowd = _residual(design, peers[rows])
        if not (np.std(crowd) > 1e-9):
            results.append(Beyond(math.nan, math.nan, len(rows), automatic.shape[1]))
            continue
        if np.std(own) < ROUNDING_SD:  # the automatic scores, up to rounding to whole points
            results.append(Beyond(1.0, 0.0, len(rows), automatic.shape[1]))
            continue
        r = float(np.clip(stats.spearmanr(own, crowd).statistic, -1 + 1e-12, 1 - 1e-12))
        t = r * math.sqrt(df / (1 - r * r))
        results.append(Beyond(float(stats.t.sf(t, df)), r, len(rows), automatic.shape[1]))
    return results


def _standard_scale(scores: np.ndarray) -> np.ndarray:
    """Each column moved and scaled into [-1, 1] (its median to 0, its farthest finite value to ±1), NaN and
    infinities kept. The regression on a column, its square and its cube spans the same space after any
    such change, so its residuals are the same; but the powers stay finite and well conditioned whatever the
    judge's scale (scores of ±1e308 overflowed in the cube and stopped the SVD)."""
    result = np.array(scores, dtype=np.float64)
    for column in result.T:
        finite = np.isfinite(column)
        for centre in (False, True):
            if centre and finite.any():
                column[finite] -= np.median(column[finite])
            largest = float(np.max(np.abs(column[finite]), initial=0.0))
            if largest > 0:
                column[finite] /= largest
    return result


def _residual(design: np.ndarray, y: np.ndarray) -> np.ndarray:
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    return y - design @ beta


def beyond_automatic(test: Beyond, crowd_showing: float | None, named: str,
                     crowd: str = "the group's workers") -> Signal:
    """``crowd_showing``: the share of ``crowd`` (workers of the group with a test) whose p is below the threshold
    (None: fewer than ``MIN_CROWD`` of them)."""
    threshold = f"one-sided p >= {MAX_AUTOMATIC_P:g} (partial correlation with the crowd given {named})"
    if math.isnan(test.pvalue):
        return _na("beyond_automatic", CONTENT, threshold,
                   f"{test.n} ordinary answer(s) with every automatic score and another worker's rating of the "
                   f"same system: too few, or scores that do not vary")
    found = (f"partial correlation with the crowd r = {test.r:.3f} over {test.n} answers given {named}, "
             f"one-sided p = {test.pvalue:.3g}")
    if crowd_showing is None:
        return Signal("beyond_automatic", CONTENT, test.pvalue, threshold, None,
                      f"{found}; too few workers in the group to compare (< {MIN_CROWD})")
    if crowd_showing < MIN_SHOWING_SHARE:
        return Signal("beyond_automatic", CONTENT, test.pvalue, threshold, None,
                      f"{found}; only {crowd_showing:.0%} of {crowd} show information beyond the "
                      "automatic scores, so people cannot be told from automatic raters here")
    flagged = test.pvalue >= MAX_AUTOMATIC_P
    return Signal("beyond_automatic", CONTENT, test.pvalue, threshold, flagged,
                  f"{found}: " + ("the scores add nothing the crowd sees beyond the automatic scores, as a rater "
                                  "that scores by them (plus noise) would" if flagged else
                                  "the scores carry the crowd's judgement beyond the automatic scores"))


def behaviour_signals(table: RatingsTable, checked: Mapping[str, Mapping[str, bool]] | None = None
                      ) -> dict[str, dict[str, tuple[Signal, ...]]]:
    """Every signal of every worker: group -> worker -> signals (in ``SIGNALS`` order). ``checked``: group ->
    worker -> whether the worker passed the checks; where given, ``beyond_automatic``'s crowd (whether people can
    be told from automatic raters: ``MIN_SHOWING_SHARE``) is the workers who passed.

    A table without evidence (e.g. read from files) gets no signals at all.
    """
    if table.evidence is None or len(table) == 0:
        return {}
    workers = group_by(table.group.codes, table.worker.codes)
    taken, needed = reading_times(table)
    beyond = beyond_tests(table, workers)
    _, named = automatic_scores(table.evidence)
    owner_group = table.group.codes[workers.first]
    pvalues = np.array([b.pvalue for b in beyond])
    labels = [(table.group.labels[owner_group[w]], table.worker.labels[table.worker.codes[workers.first[w]]])
              for w in range(workers.n)]  # (group, worker) of each
    counted = np.array([checked is None or bool(checked.get(g, {}).get(worker, False)) for g, worker in labels],
                       dtype=bool)
    crowd = "the group's workers" if checked is None else "the group's workers who pass the checks"
    result: dict[str, dict[str, tuple[Signal, ...]]] = {}
    for w in range(workers.n):
        rows = workers.rows(w)
        peers = pvalues[(owner_group == owner_group[w]) & np.isfinite(pvalues) & counted]
        showing = float(np.mean(peers < MAX_AUTOMATIC_P)) if len(peers) >= MIN_CROWD else None
        signals = (missing_records(table.evidence, rows), no_interaction(table.evidence, rows),
                   regular_timing(table.evidence, rows), reading_speed(taken, needed, rows),
                   beyond_automatic(beyond[w], showing, named, crowd),
                   server_time(table.evidence, table.seconds, rows), automation_traces(table.evidence, rows))
        group, worker = labels[w]
        result.setdefault(group, {})[worker] = signals
    return result
