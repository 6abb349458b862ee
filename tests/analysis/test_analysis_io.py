"""Readers, writers, report files and the ``analyze`` command."""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from analysis.output import latex_table, markdown_table, write_report, write_wmt_files
from analysis.readers import (
    LONG_CSV_COLUMNS,
    read_jsonl,
    read_long_csv,
    read_ratings,
    read_wmt,
    write_jsonl,
    write_long_csv,
)
from analysis.report import analyze
from analysis.table import RatingsTable
from da_core.errors import InputError
from da_platform.simulation.profiles import honest_and_bad_crowd, simulate_campaign


@pytest.fixture(scope="module")
def sim():
    return simulate_campaign({"A": 75, "B_x": 55, "C&D": 35}, honest_and_bad_crowd(8, 2, seed=1),
                             n_questions=40, seed=2)


def same_table(a: RatingsTable, b: RatingsTable) -> None:
    assert list(a.records())[:5] == list(b.records())[:5]
    ra, rb = list(a.records()), list(b.records())
    assert len(ra) == len(rb)
    for x, y in zip(ra, rb):
        assert x[:-1] == y[:-1]
        assert (math.isnan(x.seconds) and math.isnan(y.seconds)) or x.seconds == y.seconds


def test_long_csv_and_jsonl_round_trip(sim, tmp_path):
    same_table(sim.table, read_long_csv(write_long_csv(sim.table, tmp_path / "r.csv")))
    same_table(sim.table, read_jsonl(write_jsonl(sim.table, tmp_path / "r.jsonl")))
    assert read_ratings(tmp_path / "r.csv").describe() == sim.table.describe()
    assert (tmp_path / "r.csv").read_text().splitlines()[0] == ",".join(LONG_CSV_COLUMNS)


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


HEADER = ",".join(LONG_CSV_COLUMNS) + "\n"


@pytest.mark.parametrize("body, line, field, message", [
    ("g,w,h,S,q,SYSTEM,1,,101,1.0\n", 2, "score", "outside 0-100"),
    ("g,w,h,S,q,SYSTEM,1,,50,1.0\ng,w,h,S,q,SYSTEM,2,,5x,1.0\n", 3, "score", "not an integer"),
    ("g,w,h,S,q,SYSTEM,1,,50,1.0\ng,w,h,S,q,BADREF,2,1,5,1.0\n", 3, "slot_type", "unknown slot type"),
    ("g,w,h,S,q,SYSTEM,1,,50,1.0\ng,w,h,S,q,BAD_REF,2,9,5,1.0\n", 3, "original_slot", "did not rate"),
    ("g,w,h,S,q,SYSTEM,1,,50,1.0\ng,w,h,S,q,REPEAT,2,1,5,1.0\ng,w,h,S,q,BAD_REF,3,2,5,1.0\n", 4,
     "original_slot", "REPEAT slot, not SYSTEM"),
    ("g,w,h,S,q,SYSTEM,1,,50,1.0\ng,w,h,S,q,SYSTEM,1,,40,1.0\n", 3, "slot", "rated twice"),
    ("g,w,h,S,q,SYSTEM,1,,50,slow\n", 2, "seconds", "not a number"),
    ("g,w,h,S,q,SYSTEM,1,,50\n", 2, None, "expected 10 fields"),
])
def test_long_csv_errors_name_file_line_field(tmp_path, body, line, field, message):
    path = write(tmp_path / "bad.csv", HEADER + body)
    with pytest.raises(InputError, match=message) as error:
        read_long_csv(path)
    assert (error.value.file, error.value.line, error.value.field) == (str(path), line, field)


def test_missing_column_and_bad_jsonl(tmp_path):
    with pytest.raises(InputError, match="missing column") as error:
        read_long_csv(write(tmp_path / "a.csv", "group,worker\n"))
    assert error.value.line == 1
    good = ('{"group":"g","worker":"w","hit":"h","system":"S","item":"q",'
            '"slot_type":"SYSTEM","slot":"1","original_slot":"","score":50}\n')
    table = read_jsonl(write(tmp_path / "ok.jsonl", good))
    assert math.isnan(table.seconds[0])
    with pytest.raises(InputError) as error:
        read_jsonl(write(tmp_path / "b.jsonl", good + "\n" + good.replace('"score":50', '"score":"high"')))
    assert (error.value.line, error.value.field) == (3, "score")
    with pytest.raises(InputError) as error:
        read_jsonl(write(tmp_path / "c.jsonl", good + "{not json\n"))
    assert error.value.line == 2


WMT_HEADER = "HITId\tWorkerId\tInput.src\tInput.trg\tInput.item\thit\tsys_id\trid\ttype\tsid\tscore\ttime\n"


def test_wmt_reader_links_checks_and_reports_bad_rows(tmp_path):
    body = ("H1\tw1\tde\ten ad 3\t\"sysA\" 7 SYSTEM\ts1\t80\t12\n"
            "H1\tw1\tde\ten ad 3\t\"sysA\" 7 BAD_REF\ts1\t20\t10\n"
            "H1\tw1\tde\ten ad 3\t\"sysA\" 7 REPEAT\ts1\t78\tNA\n")
    table = read_wmt(write(tmp_path / "ad.csv", WMT_HEADER + body))
    assert table.groups() == ("de-en",)
    assert table.system.labels == ("sysA",)
    assert table.original.tolist() == [-1, 0, 0]
    assert math.isnan(table.seconds[2]) and table.seconds[0] == 12
    with pytest.raises(InputError) as error:
        read_wmt(write(tmp_path / "bad.csv", WMT_HEADER + body
                       + "H1\tw1\tde\ten ad 3\t\"sysA\" 7 SYSTEM\ts2\tgood\t1\n"))
    assert (error.value.line, error.value.field) == (5, "score")
    with pytest.raises(InputError, match="12 whitespace-separated fields") as error:
        read_wmt(write(tmp_path / "short.csv", WMT_HEADER + "H1 w1 de en\n"))
    assert error.value.line == 2


def test_report_files_parse_back(sim, tmp_path):
    result = analyze(sim.table)
    written = write_report(result, tmp_path / "out", plots=True)
    names = {p.name for p in written}
    assert {"analysis.json", "system-scores.csv", "item-scores.csv", "qc-workers.csv", "ranking-sim.md",
            "ranking-sim.tex", "pvalues-sim.png", "ranking-sim.png", "clusters.csv"} <= names
    group = result.groups["sim"]
    data = json.loads((tmp_path / "out" / "analysis.json").read_text())
    assert data["settings"]["qc"]["method"] == "wilcoxon"
    assert data["groups"]["sim"]["ranking"]["systems"] == list(group.ranking.systems)
    assert data["groups"]["sim"]["ranking"]["pvalues"][0][0] is None
    assert np.allclose(np.array(data["groups"]["sim"]["ranking"]["pvalues"], dtype=float), group.ranking.pvalues,
                       equal_nan=True, rtol=0, atol=0)
    rows = list(csv.DictReader(open(tmp_path / "out" / "system-scores.csv")))
    by = group.scores.by_system()
    for row in rows:
        s = by[row["system"]]
        expected = (s.raw, s.z, s.n_ratings, s.n_items)
        assert (float(row["raw"]), float(row["z"]), int(row["N"]), int(row["n"])) == expected
    qc_rows = list(csv.DictReader(open(tmp_path / "out" / "qc-workers.csv")))
    assert {r["worker"] for r in qc_rows} == {w.worker for w in group.qc.workers}
    assert (tmp_path / "out" / "pvalues-sim.png").read_bytes()[:4] == b"\x89PNG"


def test_tables_have_cluster_lines_and_escape_names(sim):
    group = analyze(sim.table).groups["sim"]
    md = markdown_table(group)
    assert md.splitlines()[0] == "| System | raw | z | N | n |"
    assert "B\\_x" in md
    assert md.count("–––") == 5 * (len(group.ranking.clusters) - 1)
    tex = latex_table(group, caption="A & B")
    assert r"C\&D" in tex and r"B\_x" in tex
    assert tex.count(r"\midrule") == len(group.ranking.clusters)


def test_wmt_files_read_back(sim, tmp_path):
    result = analyze(sim.table)
    write_wmt_files(result, tmp_path)
    lines = (tmp_path / "ad-sys-scores-sim.csv").read_text().splitlines()
    assert lines[0].split() == ["RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL"]
    by = result.groups["sim"].scores.by_system()
    for line in lines[1:]:
        raw, z, n, system, n_all = line.split()
        s = by[system.replace("_", "&") if system == "C_D" else system]
        assert float(raw) == pytest.approx(s.raw, rel=1e-14) and float(z) == pytest.approx(s.z, rel=1e-13)
        assert (int(n), int(n_all)) == (s.n_items, s.n_ratings)
    clusters = (tmp_path / "clusters.csv").read_text().splitlines()
    assert clusters[0].split()[2] == "WINS" and len(clusters) == 4


# --- CLI ----------------------------------------------------------------------------------------

def test_cli_on_a_ratings_file(sim, tmp_path):
    from da_platform.cli import main

    path = write_long_csv(sim.table, tmp_path / "ratings.csv")
    out = tmp_path / "report"
    runner = CliRunner()
    result = runner.invoke(main, ["analyze", "--ratings", str(path), "--out", str(out), "--no-plots"],
                           env={"DA_INSTANCE_PATH": str(tmp_path / "inst")})
    assert result.exit_code == 0, result.output
    assert "System" in result.output and "QC (wilcoxon" in result.output
    assert "wrote" in result.output and str(out) in result.output
    assert (out / "analysis.json").exists() and (out / "wmt" / "clusters.csv").exists()


def test_cli_errors_are_messages_not_tracebacks(tmp_path):
    from da_platform.cli import main

    bad = write(tmp_path / "bad.csv", HEADER + "g,w,h,S,q,SYSTEM,1,,500,1\n")
    runner = CliRunner()
    result = runner.invoke(main, ["analyze", "--ratings", str(bad)], env={"DA_INSTANCE_PATH": str(tmp_path)})
    assert result.exit_code != 0 and "bad.csv:2: field 'score'" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(main, ["analyze"], env={"DA_INSTANCE_PATH": str(tmp_path)})
    assert result.exit_code != 0 and "exactly one of" in result.output
