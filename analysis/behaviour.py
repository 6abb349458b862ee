"""Per-worker evidence beyond the quality checks (issue 12): how each worker's ratings were given.

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
- ``automation_traces``: share of valid records whose page saw a browser that says it is automated
  (``navigator.webdriver`` set, or a headless browser's user agent). A person's browser shows neither; both
  are evaded cheaply (docs/quality-control.md), so they catch only careless automation. WebGL drawn in
  software is reported in the reason but flags nobody (people without graphics hardware show it too).
- ``overlap_agreement``: Spearman correlation of the worker's scores with each item's text overlap of
  candidate and reference, the highest over the measures of ``analysis.evidence.OVERLAP_MEASURES``
  (character LCS F1, ROUGE-L, token F1), against the crowd of the same group: a bot that scores by an
  overlap measure agrees with one of them almost perfectly (r > 0.99 on the sample data), people
  far less (median about 0.84 and 99.9th percentile 0.92 for simulated honest raters on the sample
  data, whose answers were made by editing references; lower on real answers).
"""
from __future__ import annotations

import math
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
from analysis.grouping import group_by
from analysis.table import RatingsTable

MIN_RATINGS = 10
"""Fewer ratings (or records) than this: the signal is not applicable."""
MAX_MISSING_SHARE = 0.10
MAX_FORGED_SHARE = 0.10
MAX_NO_INTERACTION_SHARE = 0.50
MIN_TIME_CV = 0.15
READING_WPM, READING_CPM = 228.0, 255.0  # IReST means: English words/min, Chinese characters/min
READING_FACTOR = 3.0
MAX_TOO_FAST_SHARE = 0.50
MAX_AUTOMATED_SHARE = 0.50
AUTOMATION_FLAGGING = ("webdriver", "headless_ua")
"""The traces that flag (``software_gl`` is reported only: people without graphics hardware show it too)."""
MIN_OVERLAP_R = 0.94
MIN_OVERLAP_MARGIN = 0.05
MIN_CROWD = 3

SIGNALS = ("missing_records", "no_interaction", "regular_timing", "reading_speed", "overlap_agreement",
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


def overlap_correlations(table: RatingsTable, workers: np.ndarray, n_workers: int) -> tuple[np.ndarray, list[str]]:
    """Per worker: the highest Spearman correlation of the scores with an overlap measure, and which
    measure (NaN and "": fewer than MIN_RATINGS items with a reference, or constant scores)."""
    evidence = table.evidence
    assert evidence is not None
    result, measures = np.full(n_workers, np.nan), [""] * n_workers
    with_overlap = np.flatnonzero(np.isfinite(evidence.overlap).all(axis=1))
    order = with_overlap[np.argsort(workers[with_overlap], kind="stable")]
    bounds = np.searchsorted(workers[order], np.arange(n_workers + 1))
    for w in range(n_workers):
        rows = order[bounds[w]:bounds[w + 1]]
        scores = table.score[rows]
        if len(rows) < MIN_RATINGS or np.ptp(scores) == 0:
            continue
        for m, name in enumerate(OVERLAP_MEASURES):
            overlap = evidence.overlap[rows, m]
            if np.ptp(overlap) > 0:
                r = float(stats.spearmanr(scores, overlap).statistic)
                if not r <= result[w]:  # (also replaces NaN)
                    result[w], measures[w] = r, name
    return result, measures


def overlap_agreement(r: float, crowd: np.ndarray, measure: str = "") -> Signal:
    """``crowd``: the correlations of every worker of the group that has one (this worker included)."""
    threshold = f"r >= {MIN_OVERLAP_R:g} and r >= crowd median + {MIN_OVERLAP_MARGIN:g}"
    if not math.isfinite(r):
        return _na("overlap_agreement", CONTENT, threshold,
                   f"fewer than {MIN_RATINGS} rated items with a reference, or constant scores")
    if len(crowd) < MIN_CROWD:
        return Signal("overlap_agreement", CONTENT, r, threshold, None,
                      f"r = {r:.3f}, but only {len(crowd)} worker(s) to compare with (< {MIN_CROWD})")
    median = float(np.median(crowd))
    above = float(np.mean(crowd < r))
    flagged = r >= MIN_OVERLAP_R and r - median >= MIN_OVERLAP_MARGIN
    return Signal("overlap_agreement", CONTENT, r, threshold, flagged,
                  f"scores follow the answers' text overlap ({measure or 'overlap'}) "
                  f"with r = {r:.3f} against a crowd median of "
                  f"{median:.3f} (above {above:.0%} of the crowd){': as a text-overlap bot would' if flagged else ''}")


def behaviour_signals(table: RatingsTable) -> dict[str, dict[str, tuple[Signal, ...]]]:
    """Every signal of every worker: group -> worker -> signals (in ``SIGNALS`` order).

    A table without evidence (e.g. read from files) gets no signals at all.
    """
    if table.evidence is None or len(table) == 0:
        return {}
    workers = group_by(table.group.codes, table.worker.codes)
    taken, needed = reading_times(table)
    correlations, measures = overlap_correlations(table, workers.index, workers.n)
    owner_group = table.group.codes[workers.first]
    result: dict[str, dict[str, tuple[Signal, ...]]] = {}
    for w in range(workers.n):
        rows = workers.rows(w)
        crowd = correlations[(owner_group == owner_group[w]) & np.isfinite(correlations)]
        signals = (missing_records(table.evidence, rows), no_interaction(table.evidence, rows),
                   regular_timing(table.evidence, rows), reading_speed(taken, needed, rows),
                   overlap_agreement(float(correlations[w]), crowd, measures[w]),
                   server_time(table.evidence, table.seconds, rows), automation_traces(table.evidence, rows))
        row = workers.first[w]
        group = table.group.labels[table.group.codes[row]]
        result.setdefault(group, {})[table.worker.labels[table.worker.codes[row]]] = signals
    return result
