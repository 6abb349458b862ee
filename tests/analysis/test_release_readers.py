"""Readers for the files researchers hold: WMT good-stnd (+ trk-mean-sd), the 2015 layout, MTurk batches.

All test files are small, written here; the WMT21 fixture checks the good-stnd round trip exactly.
"""
from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.mturk_batch import ColumnSpec, read_mturk_batch
from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from analysis.readers import (
    guess_format,
    read_ratings,
    read_ratings_with_stats,
    read_wmt,
)
from analysis.report import analyze
from analysis.scores import ScoreSettings
from analysis.table import SLOT_TYPES
from analysis.wmt_formats import STND_COLUMNS, read_mean_sd, read_wmt15, read_wmt_stnd
from da_core.errors import InputError
from da_platform.cli import main
from tests.data_paths import WMT21

# --- good-stnd with trk-mean-sd ---------------------------------------------------------------


def _stnd_from_fixture(tmp_path: Path, pair: str = "bn-hi", rows: int | None = None) -> Path:
    """A good-stnd table as WMT's standardize-scrs.pl writes it: the ad-latest rows of one language pair,
    score replaced by (score - mean) / sd with the printed mean and sd, printed at 15 digits."""
    src, trg = pair.split("-")
    stats = read_mean_sd(WMT21 / f"ad-{src}{trg}-trk-mean-sd.txt")
    lines = (WMT21 / "ad-latest.csv").read_text(encoding="utf-8").splitlines()
    out = ["\t".join(STND_COLUMNS)]
    for line in lines[1:]:
        c = line.split("\t")
        if c[2] == src and c[3].split()[0] == trg:
            fields = line.split()
            mean, sd = stats[fields[1]]
            fields[10] = f"{(int(fields[10]) - mean) / sd:.15g}"
            out.append("\t".join(fields))
    if rows is not None:
        out = out[:rows + 1]
    folder = tmp_path / "stnd"
    folder.mkdir(exist_ok=True)
    path = folder / f"ad-{src}{trg}-good-stnd.csv"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    shutil.copy(WMT21 / f"ad-{src}{trg}-trk-mean-sd.txt", folder)
    return path


def test_good_stnd_recovers_raw_scores_and_published_numbers_exactly(tmp_path):
    path = _stnd_from_fixture(tmp_path)
    assert guess_format(path) == "wmt-stnd"
    table, stats = read_ratings_with_stats(path)
    latest = read_wmt(WMT21 / "ad-latest.csv")
    bn_hi = latest.select(latest.group.codes == latest.group.labels.index("bn-hi"))
    assert sorted(table.score.tolist()) == sorted(bn_hi.score.tolist())
    result = analyze(table, qc=QCPolicy(QCMethod.none), scores=ScoreSettings.wmt(), worker_stats=stats)
    published = {}
    for line in (WMT21 / "ad-sys-scores-bn-hi.csv").read_text().splitlines()[1:]:
        raw, z, _, system, n_all = line.split()
        published[system] = (float(raw), float(z), int(n_all))
    ours = {s.system: (s.raw, s.z, s.n_ratings) for s in result.groups["bn-hi"].scores.systems}
    for system, (raw, z, n_all) in published.items():
        assert ours[system][0] == pytest.approx(raw, abs=1e-12)
        assert ours[system][1] == pytest.approx(z, abs=1e-13)
        assert ours[system][2] == n_all


def test_good_stnd_without_trk_files_analyses_the_given_z(tmp_path):
    path = _stnd_from_fixture(tmp_path)
    (path.parent / "ad-bnhi-trk-mean-sd.txt").unlink()
    table, stats = read_ratings_with_stats(path)
    assert stats is None and table.given_z is not None and len(table.given_z) == len(table)
    with pytest.raises(ValueError, match="z-scores only"):
        analyze(table)
    result = analyze(table, qc=QCPolicy(QCMethod.none), scores=ScoreSettings.wmt())
    items = result.groups["bn-hi"].scores.items
    ours = {(s, i): z for s, i, z in zip(items.system, items.item, items.z)}
    published = [line.split() for line in (WMT21 / "ad-seg-scores-bn-hi.csv").read_text().splitlines()[1:]]
    assert all(ours[(s, i)] == float(z) for s, i, _, z, _ in published)  # the published 15-digit item z
    systems = result.groups["bn-hi"].scores.systems
    assert all(math.isnan(s.raw) for s in systems)
    out = tmp_path / "out"
    run = CliRunner().invoke(main, ["analyze", "--ratings", str(path), "--out", str(out), "--no-plots",
                                    "--wmt-compat"])
    assert run.exit_code == 0, run.output
    assert "z-scores only" in run.output
    line = next(r for r in (out / "wmt" / "ad-sys-scores-bn-hi.csv").read_text().splitlines() if "GTCOM.0" in r)
    assert line.split()[0] == "NA" and float(line.split()[1]) == pytest.approx(0.202193985925346, abs=1e-14)
    refused = CliRunner().invoke(main, ["analyze", "--ratings", str(path), "--qc", "ttest"])
    assert refused.exit_code == 2 and "z-scores only" in refused.output


def test_good_stnd_errors(tmp_path):
    path = _stnd_from_fixture(tmp_path, rows=5)
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace(lines[3].split("\t")[10], "0.123")  # not a z this worker can give
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="not an integer rating") as error:
        read_wmt_stnd(path)
    assert (error.value.file, error.value.line, error.value.field) == (str(path), 4, "score")
    lines[3] = lines[3].replace("\tevaluator", "\tnobody", 1)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"worker 'nobody\d' is not in") as error:
        read_wmt_stnd(path)
    assert (error.value.line, error.value.field) == (4, "WorkerId")
    (path.parent / "ad-bnhi-trk-mean-sd.txt").unlink()
    shutil.copy(WMT21 / "ad-hibn-trk-mean-sd.txt", path.parent)  # a file for another language pair only
    with pytest.raises(InputError, match="no ad-bnhi-trk-mean-sd.txt for language pair bn-hi") as error:
        read_wmt_stnd(path)
    assert error.value.line == 2
    bad_stats = tmp_path / "ad-bnhi-trk-mean-sd.txt"
    bad_stats.write_text('[1] "evaluator1"\n[1] 67.38\n[1] twelve\n')
    with pytest.raises(InputError) as error:
        read_mean_sd(bad_stats)
    assert (error.value.file, error.value.line, error.value.field) == (str(bad_stats), 3, "sd")
    bad_stats.write_text('[1] "evaluator1"\n[1] 67.38\n')
    with pytest.raises(InputError, match="blocks of 3 lines"):
        read_mean_sd(bad_stats)


# --- the 2015 layout ----------------------------------------------------------------------------

WMT15_HEADER = "HITId WorkerId src trg item sys_id rid type sid score time"


def _wmt15_file(tmp_path: Path, rows: list[str], header: bool = True) -> Path:
    path = tmp_path / "ad-latest.csv"
    path.write_text("\n".join(([WMT15_HEADER] if header else []) + rows) + "\n", encoding="utf-8")
    return path


def _wmt15_rows() -> list[str]:
    rows = []
    for k in range(6):
        rows.append(f"H1 W1 cs en ad sysA r{k} system {k} {60 + k} 12")
        rows.append(f"H1 W1 cs en ad sysB r{k} system {k} {40 + k} 9")
        rows.append(f"H1 W1 cs en ad sysA c{k} cal {k} {20 + k} 7")
    rows += ["H1 W1 cs en ad sysA r0 repeat 0 61 5", "H1 W1 cs en ad sysB r1 ref 1 90 4"]
    return rows


def test_wmt15_layout_with_lower_case_types(tmp_path):
    path = _wmt15_file(tmp_path, _wmt15_rows())
    assert guess_format(path) == "wmt15"
    table = read_ratings(path)
    counts = {t: int((table.slot_type == i).sum()) for i, t in enumerate(SLOT_TYPES)}
    assert counts == {"SYSTEM": 12, "REPEAT": 1, "BAD_REF": 6, "REF": 1, "MEANING": 0}
    assert (table.original >= 0).sum() == 8  # every check linked to its SYSTEM rating
    qc = analyze(table).groups["cs-en"].qc.workers[0]
    assert qc.n_pairs == 6 and qc.passed  # cal = the degraded check
    headerless = _wmt15_file(tmp_path, _wmt15_rows(), header=False)
    assert len(read_wmt15(headerless)) == len(table)


@pytest.mark.parametrize("row, line, field, message", [
    ("H1 W1 cs en ad sysA r9 bad 9 50 3", 3, "type", "unknown type 'bad'"),
    ("H1 W1 cs en ad sysA r9 system 9 50", 3, None, "expected 11 whitespace-separated fields"),
    ("H1 W1 cs en ad sysA r9 system 9 fifty 3", 3, "score", "not an integer"),
    ("H1 W1 cs en ad sysA r9 system 9 101 3", 3, "score", "outside 0-100"),
])
def test_wmt15_errors(tmp_path, row, line, field, message):
    path = _wmt15_file(tmp_path, ["H1 W1 cs en ad sysA r0 system 0 50 3", row])
    with pytest.raises(InputError, match=message) as error:
        read_wmt15(path)
    assert (error.value.file, error.value.line, error.value.field) == (str(path), line, field)


# --- MTurk batch results --------------------------------------------------------------------------

def _batch(tmp_path: Path, answers: list[str], extra_rows: list[list[str]] = ()) -> Path:
    path = tmp_path / "Batch_123_batch_results.csv"
    header = ["HITId", "HITTypeId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds",
              "Input.src", "Input.trg", "Input.item", "Input.hit", "Answer.Q1", "Answer.comments"]
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        for i, answer in enumerate(answers):
            writer.writerow([f"HIT{i}", "T", f"A{i}", f"W{i}", "Submitted", "600", "de", "en", "ad", str(i), answer,
                             "fine,\nthanks"])
        for row in extra_rows:
            writer.writerow(row)
    return path


def _answer(drop: int = 30) -> str:
    entries = []
    for k in range(10):
        entries.append(f"sys_one_{k}_SYSTEM_{3 * k}__{60 + k}")
        entries.append(f"sysB_{k}_SYSTEM_{3 * k + 1}__{40 + k}")
        entries.append(f"sys_one_{k}_BAD_REF_{3 * k + 2}__{60 - drop - k if drop else 61 + k}")
    return "|".join(entries)


def test_mturk_batch_results_through_the_default_spec(tmp_path):
    path = _batch(tmp_path, [_answer(), _answer(drop=0)])
    assert guess_format(path) == "mturk"
    table = read_mturk_batch(path, ColumnSpec(entries=30))
    assert len(table) == 60 and set(table.system.labels) == {"sys_one", "sysB"}  # underscores in names kept
    assert table.groups() == ("de-en",)
    result = analyze(table)
    statuses = {w.worker: w.status for w in result.groups["de-en"].qc.workers}
    assert statuses == {"W0": "passed", "W1": "failed"}


def test_mturk_spec_from_json_and_its_errors(tmp_path):
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps({"answer": "Answer.ratings", "entries": None, "group": ["Input.src"]}))
    spec = ColumnSpec.from_json(spec_path)
    assert spec.answer == "Answer.ratings" and spec.entries is None and spec.group == ("Input.src",)
    spec_path.write_text(json.dumps({"anwser": "x"}))
    with pytest.raises(InputError, match="unknown key") as error:
        ColumnSpec.from_json(spec_path)
    assert error.value.field == "anwser"
    spec_path.write_text("{")
    with pytest.raises(InputError, match="not valid JSON"):
        ColumnSpec.from_json(spec_path)


@pytest.mark.parametrize("answer, line, message", [
    (_answer().replace("SYSTEM_0__60", "SYSTEM_0__", 1), 2, "rating 1 .*no score"),
    (_answer().replace("sysB_0_SYSTEM_1__40", "sysB_0_GOLD_1__40"), 2, "unknown type 'GOLD'"),
    ("|".join(_answer().split("|")[:29]), 2, "29 ratings where the HIT has 30"),
    (_answer().replace("sysB_0_SYSTEM_1__40", "sysB_0_SYSTEM_1__4o"), 2, "not an integer"),
])
def test_mturk_errors_name_file_line_field(tmp_path, answer, line, message):
    path = _batch(tmp_path, [answer])
    with pytest.raises(InputError, match=message) as error:
        read_mturk_batch(path, ColumnSpec(entries=30))
    assert (error.value.file, error.value.line, error.value.field) == (str(path), line, "Answer.Q1")


def test_mturk_missing_columns_and_unsubmitted_rows(tmp_path):
    path = tmp_path / "batch.csv"
    path.write_text("HITId,WorkerId,AssignmentId\nH,W,A\n")
    with pytest.raises(InputError, match="missing column") as error:
        read_mturk_batch(path)
    assert (error.value.line, error.value.field) == (1, "Answer.Q1")
    # the second data row starts on line 4: the first holds a two-line comment
    path = _batch(tmp_path, [_answer()], [["HIT9", "T", "A9", "", "Submitted", "1", "de", "en", "ad", "9", "", ""]])
    with pytest.raises(InputError, match="empty") as error:
        read_mturk_batch(path, ColumnSpec(entries=30))
    assert (error.value.line, error.value.field) == (4, "WorkerId")


def test_cli_reads_the_new_formats(tmp_path):
    path = _wmt15_file(tmp_path, _wmt15_rows())
    result = CliRunner().invoke(main, ["analyze", "--ratings", str(path), "--out", str(tmp_path / "out"),
                                       "--no-plots", "--qc", "ttest", "--qc-alpha", "0.01"])
    assert result.exit_code == 0, result.output
    assert "QC (ttest, p <= alpha with alpha 0.01, scope group)" in result.output
    bad = _batch(tmp_path, ["x_y"])
    result = CliRunner().invoke(main, ["analyze", "--ratings", str(bad), "--format", "mturk"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{bad}:2: field 'Answer.Q1': 1 ratings where the HIT has 100" in result.output


def test_wmt15_columns_are_found_by_name(tmp_path):
    path = tmp_path / "reordered.csv"
    path.write_text("HITId WorkerId Input.src Input.trg hit sys_id type sid score time extra\n"
                    + "".join(f"H1 W1 cs en 3 sysA system {k} {50 + k} 4 x\n" for k in range(3)), encoding="utf-8")
    table = read_wmt15(path)
    assert table.score.tolist() == [50, 51, 52] and table.groups() == ("cs-en",)
    path.write_text("HITId WorkerId src trg sys_id type score time\nH1 W1 cs en s system 5 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="the header must name") as error:
        read_wmt15(path)
    assert (error.value.line, error.value.field) == (1, "sid")
