"""Exports of a campaign, shared by the dashboard and ``da-platform export``.

- ``ranking``: the human ranking (System | raw | z | N | n with clusters) as CSV, JSON or LaTeX;
- ``ratings``: every rating in the platform's long CSV (``analysis.readers.write_long_csv``), with what its
  analysis needs: each rating's evidence (behaviour record, reading units, text-overlap measures, each imported
  judge's score: ``analysis.evidence_columns``), the campaign's quality-control policy and the review decisions
  that exclude a worker's data, so that ``analyze --ratings`` of the file gives the campaign's verdicts and
  scores (:func:`ratings_csv`);
- ``wmt``: the WMT release files (``analysis.output.write_wmt_files``), zipped;
- ``bundle``: a reproducibility zip (settings, seed, HIT composition, degradation parameters, QC
  method and thresholds, excluded workers with reasons, software versions, results), self-contained:
  the test set (``test-set.jsonl``), the systems' answers (``answers.jsonl``) and the ratings with
  their texts (``ratings-with-texts.csv``) are in it; a campaign in waves adds ``waves.json``: its design, every
  wave's look and each pair's sequential decision (``da_platform.results.waves``), and the manifest says the
  ``design``.

A campaign without ratings cannot be exported (:class:`ExportError`, never an empty file). An
unfinished campaign is refused too unless ``partial=True``; a partial export then says so: the
bundle's manifest and the JSON carry ``"status": "unfinished: k of n HITs done"``, the LaTeX file a
comment, the CSV files a last column ``status`` with that text on every row (readers of the long
CSV ignore extra columns), and file names end in ``-partial``.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import platform
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from analysis import csv_safety
from da_platform import __version__
from da_platform.campaigns.progress import CampaignProgress, campaign_progress
from da_platform.config.campaign_settings import REDACTED, CampaignSettings
from da_platform.db.models import Campaign, Hit, Question, ReviewDecision, Slot, SlotType, System, Worker
from da_platform.rating.campaign_ratings import abandoned_note, unconfirmed_note
from da_platform.results.campaign_analysis import CampaignAnalysis

RANKING_FORMATS = {"csv": "text/csv", "json": "application/json", "latex": "application/x-tex"}
RANKING_SUFFIX = {"csv": "csv", "json": "json", "latex": "tex"}


class ExportError(ValueError):
    """The campaign cannot be exported as asked (the message says why)."""


@dataclass(frozen=True)
class ExportFile:
    """One exported file: a suggested name, its bytes and its media type."""

    name: str
    content: bytes
    media_type: str
    notes: tuple[str, ...] = ()  # for whoever asked (the command prints them), e.g. what was left out


@dataclass
class _Context:
    campaign: Campaign
    analysis: CampaignAnalysis
    progress: CampaignProgress
    partial: bool

    @property
    def notes(self) -> tuple[str, ...]:
        """What every export of the campaign says it leaves out
        (``da_platform.rating.campaign_ratings.abandoned_note``, ``unconfirmed_note``)."""
        left = sum(self.analysis.abandoned.values())
        waiting = sum(self.analysis.unconfirmed.values())
        return (((f"left out: {abandoned_note(left)} (their HITs were left unfinished)",) if left else ())
                + ((f"left out: {unconfirmed_note(waiting)}",) if waiting else ()))

    @property
    def stem(self) -> str:
        from analysis.output import safe_name

        return safe_name(self.campaign.name) + ("-partial" if self.partial else "")


def _context(session: Session, campaign: Campaign, *, partial: bool, need_ranking: bool,
             analysis: CampaignAnalysis | None) -> _Context:
    """Check that there is something to export; refuse an unfinished campaign unless ``partial``.
    ``analysis``: the campaign's current analysis if the caller has one (the dashboard's cached one), else
    it is computed now."""
    progress = campaign_progress(session, campaign)
    analysis = analysis or CampaignAnalysis(session, campaign)
    if analysis.load_error:
        raise ExportError(f"the ratings of campaign {campaign.name!r} cannot be read: {analysis.load_error}")
    if len(analysis.table) == 0:
        raise ExportError(f"campaign {campaign.name!r} has no ratings yet ({progress.describe()}): nothing to export")
    if not progress.complete and not partial:
        raise ExportError(f"campaign {campaign.name!r} is {progress.describe()}; export it anyway as a partial "
                          "export (--partial on the command line, 'partial export' on the dashboard)")
    if need_ranking and not analysis.ranked:
        reasons = "; ".join(analysis.result.warnings) if analysis.result is not None else "no ratings used"
        raise ExportError(f"campaign {campaign.name!r} has no ranking: {reasons}")
    return _Context(campaign, analysis, progress, partial=not progress.complete)


def _written(write: Callable[[Path], Any], name: str) -> bytes:
    """Bytes of a file written by one of the analysis writers (they write to paths)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        write(path)
        return path.read_bytes()


def ranking(session: Session, campaign: Campaign, fmt: str = "csv", *, partial: bool = False,
            analysis: CampaignAnalysis | None = None) -> ExportFile:
    """The human ranking of the campaign in ``fmt`` (csv, json or latex)."""
    from analysis.output import latex_table, result_as_dict, write_system_csv

    if fmt not in RANKING_FORMATS:
        raise ExportError(f"unknown ranking format {fmt!r}; expected one of {', '.join(RANKING_FORMATS)}")
    ctx = _context(session, campaign, partial=partial, need_ranking=True, analysis=analysis)
    result = ctx.analysis.ranked_result
    if fmt == "csv":
        content = _marked(ctx, _written(lambda p: write_system_csv(result, p), "ranking.csv"))
    elif fmt == "json":
        data = {"campaign": campaign.name, "status": ctx.progress.describe(),
                "excluded_workers": ctx.analysis.excluded, **result_as_dict(result)}
        content = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    else:
        note = "" if not ctx.partial else f"% {ctx.progress.describe()}: provisional ranking\n"
        content = (note + latex_table(ctx.analysis.ranked_group)).encode()
    return ExportFile(f"{ctx.stem}-ranking.{RANKING_SUFFIX[fmt]}", content, RANKING_FORMATS[fmt], ctx.notes)


def ratings(session: Session, campaign: Campaign, *, partial: bool = False, with_texts: bool = False,
            analysis: CampaignAnalysis | None = None) -> ExportFile:
    """Every rating of the campaign (excluded workers too) as the platform's long CSV with what its analysis
    needs (:func:`ratings_csv`); ``with_texts`` adds the question, reference, candidate and check type of each
    row (``da_platform.exports.texts``)."""
    from da_platform.exports.texts import with_texts as add_texts

    ctx = _context(session, campaign, partial=partial, need_ranking=False, analysis=analysis)
    content, notes = ratings_csv(session, campaign, ctx.analysis)
    if with_texts:
        content = add_texts(session, campaign, content)
    content = _marked(ctx, content)
    return ExportFile(f"{ctx.stem}-ratings{'-with-texts' if with_texts else ''}.csv", content, "text/csv",
                      ctx.notes + notes)


def ratings_csv(session: Session, campaign: Campaign, analysis: CampaignAnalysis) -> tuple[bytes, tuple[str, ...]]:
    """The campaign's ratings as the long CSV its analysis can be repeated from (``analyze --ratings``): every
    rating with its evidence, the quality-control policy the analysis applies and the data decisions; and a
    note when no judge's scores were imported (the file then has no ``judge:`` column, and the content signal
    controls for text overlap alone, as the campaign's analysis does)."""
    from analysis.readers import write_long_csv

    table = analysis.table
    count = table.evidence.judge.shape[1] if table.evidence is not None else 0
    judges = _judge_names(session, campaign, count)
    content = _written(lambda p: write_long_csv(table, p, judges=judges, qc=analysis.qc, excluded=analysis.excluded),
                       "ratings.csv")
    note = () if count else ("no judge's scores were imported for these answers: the file has no judge: column "
                             "(the content signal controls for text overlap alone)",)
    return content, note


def _judge_names(session: Session, campaign: Campaign, count: int) -> tuple[str, ...] | None:
    """The judges of the evidence's judge columns (``da_platform.rating.campaign_ratings.judge_columns``: those
    with a score for an answer the counted ratings show, by name), or None to number them if they are not
    ``count`` (a rating of that answer left out since)."""
    from da_platform.db.models import Answer, Assignment, JudgeScore, Rating
    from da_platform.rating.campaign_ratings import counted_assignment

    if count == 0:
        return ()
    names = sorted(set(session.scalars(
        select(JudgeScore.judge).join(Answer, Answer.id == JudgeScore.answer_id)
        .join(Slot, (Slot.system_id == Answer.system_id) & (Slot.question_id == Answer.question_id))
        .join(Hit, Hit.id == Slot.hit_id).join(Rating, Rating.slot_id == Slot.id)
        .join(Assignment, Assignment.id == Rating.assignment_id)
        .where(Hit.campaign_id == campaign.id, counted_assignment()).distinct())))
    return tuple(names) if len(names) == count else None


def _marked(ctx: _Context, content: bytes) -> bytes:
    """A partial export's CSV with a last column ``status`` ("unfinished: k of n HITs done") on every row."""
    if not ctx.partial:
        return content
    status = ctx.progress.describe()
    rows = list(csv.reader(io.StringIO(content.decode("utf-8"))))
    out = io.StringIO()
    writer = csv_safety.writer(out)
    writer.writerow([*rows[0], "status"])
    writer.writerows([*row, status] for row in rows[1:])
    return out.getvalue().encode("utf-8")


def _zip(files: dict[str, bytes]) -> bytes:
    """A deterministic zip (sorted names, fixed timestamps)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return out.getvalue()


def _folder_files(write: Callable[[Path], Any]) -> dict[str, bytes]:
    """Every file a writer puts into a folder, by relative path."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write(folder)
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def wmt(session: Session, campaign: Campaign, *, partial: bool = False,
        analysis: CampaignAnalysis | None = None) -> ExportFile:
    """The WMT release files of the campaign's analysis (``ad-sys-scores-*.csv`` …), zipped."""
    from analysis.output import write_wmt_files

    ctx = _context(session, campaign, partial=partial, need_ranking=True, analysis=analysis)
    files = _folder_files(lambda folder: write_wmt_files(ctx.analysis.ranked_result, folder))
    return ExportFile(f"{ctx.stem}-wmt.zip", _zip(files), "application/zip", ctx.notes)


def _csv(header: tuple[str, ...], rows) -> bytes:
    out = io.StringIO()
    writer = csv_safety.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def hit_composition(session: Session, campaign: Campaign) -> bytes:
    """One row per slot: HIT, position, set, slot type, system, question, and a check's original."""
    original = aliased(Slot)
    rows = session.execute(
        select(Hit.index, Hit.public_id, Slot.position, Slot.set_index, Slot.slot_type, System.name,
               Question.external_id, original.position)
        .join(Slot, Slot.hit_id == Hit.id).join(System, System.id == Slot.system_id)
        .join(Question, Question.id == Slot.question_id)
        .outerjoin(original, original.id == Slot.original_slot_id)
        .where(Hit.campaign_id == campaign.id).order_by(Hit.index, Slot.position)
    ).all()
    return _csv(("hit", "hit_id", "position", "set", "slot_type", "system", "question", "original_position"),
                [(h, hid, pos, st, t.value, sysname, q, "" if o is None else o)
                 for h, hid, pos, st, t, sysname, q, o in rows])


def degradations(session: Session, campaign: Campaign) -> bytes:
    """One JSON line per BAD_REF (and MEANING) slot: where it is, what it changes and how it was made."""
    rows = session.execute(
        select(Hit.index, Slot.position, System.name, Question.external_id, Slot.degradation)
        .join(Slot, Slot.hit_id == Hit.id).join(System, System.id == Slot.system_id)
        .join(Question, Question.id == Slot.question_id)
        .where(Hit.campaign_id == campaign.id, Slot.slot_type.in_((SlotType.BAD_REF, SlotType.MEANING)))
        .order_by(Hit.index, Slot.position)
    ).all()
    lines = [json.dumps({"hit": h, "position": p, "system": s, "question": q, "degradation": d},
                        ensure_ascii=False, sort_keys=True) for h, p, s, q, d in rows]
    return ("\n".join(lines) + "\n").encode() if lines else b""


def decisions_csv(session: Session, campaign: Campaign) -> bytes:
    """Every review decision of the campaign with its reason and state."""
    rows = session.execute(
        select(ReviewDecision, Worker.source, Worker.external_id)
        .outerjoin(Worker, Worker.id == ReviewDecision.worker_id)
        .where(ReviewDecision.campaign_id == campaign.id).order_by(ReviewDecision.id)
    ).all()
    return _csv(("id", "worker", "assignment_id", "action", "use_data", "amount", "status", "reason", "outcome",
                 "created_at"),
                [(d.id, f"{source}:{external}" if source else "", d.assignment_id or "", d.action, d.use_data,
                  d.amount or "", d.status, d.reason, d.outcome or "", d.created_at.isoformat())
                 for d, source, external in rows])


def _versions() -> dict[str, str]:
    import matplotlib
    import numpy
    import scipy

    return {"da-platform": __version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "matplotlib": matplotlib.__version__}


BUNDLE_STEPS = ("analysis", "HIT composition", "ratings", "test set and answers", "ratings with texts", "results",
                "zip")
"""The steps :func:`bundle` reports to its ``progress`` callback, in order (before starting each)."""


def bundle(session: Session, campaign: Campaign, *, partial: bool = False, analysis: CampaignAnalysis | None = None,
           progress: Callable[[str], None] | None = None) -> ExportFile:
    """The reproducibility bundle (see the module docstring) as a zip with a ``manifest.json``;
    ``progress(step)`` is called before each of :data:`BUNDLE_STEPS`."""
    from analysis.output import write_report

    step = progress or (lambda _name: None)
    step(BUNDLE_STEPS[0])
    ctx = _context(session, campaign, partial=partial, need_ranking=False, analysis=analysis)
    step(BUNDLE_STEPS[1])
    analysis = ctx.analysis
    settings = CampaignSettings.of(campaign)
    excluded_rows = [(e.worker, e.excluded_by, e.reason) for e in analysis.exclusions]  # the analysis' own list
    qc_settings = analysis.result.settings.to_dict() if analysis.result is not None else {
        "qc": analysis.qc.to_dict()}
    files: dict[str, bytes] = {
        "campaign.json": _json({
            "name": campaign.name, "test_set": campaign.test_set.name, "criterion": campaign.criterion,
            "statement": campaign.statement, "show_reference": campaign.show_reference, "seed": campaign.seed,
            "passes": campaign.passes, "max_hits_per_worker": campaign.max_hits_per_worker,
            "systems": [s.name for s in campaign.systems], "status": campaign.status.value}),
        "settings.json": _json(settings.public_json()),
        "hits.csv": hit_composition(session, campaign),
        "degradation.jsonl": degradations(session, campaign) or b"\n",
        "quality-control.json": _json({"analysis": qc_settings, "qc_policy": analysis.qc.to_dict(),
                                       "review_policy": settings.stored_review and settings.stored_review.to_dict()}),
        "excluded-workers.csv": _csv(("worker", "excluded_by", "reason"), excluded_rows),
        "decisions.csv": decisions_csv(session, campaign),
    }
    step(BUNDLE_STEPS[2])
    files["ratings.csv"], ratings_notes = ratings_csv(session, campaign, analysis)
    from da_platform.exports.texts import test_set_files, with_texts

    step(BUNDLE_STEPS[3])
    files.update(test_set_files(session, campaign))  # self-contained: what was rated, and by whom
    step(BUNDLE_STEPS[4])
    files["ratings-with-texts.csv"] = with_texts(session, campaign, files["ratings.csv"])
    step(BUNDLE_STEPS[5])
    if (result := analysis.result) is not None:
        results = _folder_files(lambda folder: write_report(result, folder, plots=False))
        files.update({f"results/{name}": content for name, content in results.items()})
    from da_platform.results.waves import wave_status

    waves = wave_status(session, campaign, analysis)  # a campaign in waves: its design and sequential decisions
    if waves is not None:
        files["waves.json"] = _json(waves.to_json())
    copies = int(analysis.table.copies().sum())  # merged identical answers (docs/campaign-lifecycle.md)
    manifest = {
        "campaign": campaign.name,
        "status": ctx.progress.describe(),
        "complete": ctx.progress.complete,
        "hits": {"total": ctx.progress.hits_total, "done": ctx.progress.hits_done,
                 "in_progress": ctx.progress.hits_in_progress, "open": ctx.progress.hits_open},
        "ratings": len(analysis.table) - copies,  # given by the workers (analysed: in ratings.csv and results/)
        "rating_copies": copies,  # rows of ratings.csv copying a rating for another system with the same answer
        "ratings_abandoned": sum(analysis.abandoned.values()),  # stored, left out of ratings.csv and results/
        "ratings_unconfirmed": sum(analysis.unconfirmed.values()),  # awaiting the provider's confirmation: left out
        "notes": list(ctx.notes + ratings_notes),
        "ranked": analysis.ranked,
        "design": "fixed" if waves is None else "waves",
        "warnings": list(analysis.result.warnings) if analysis.result is not None else [],
        "software": _versions(),
        "redacted_settings": list(REDACTED),
        "files": {name: hashlib.sha256(content).hexdigest() for name, content in sorted(files.items())},
    }
    files["manifest.json"] = _json(manifest)
    step(BUNDLE_STEPS[6])
    return ExportFile(f"{ctx.stem}-bundle.zip", _zip(files), "application/zip", ctx.notes)


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True, default=str) + "\n").encode()
