"""Re-analysing a campaign's export agrees with the campaign: the ratings file (and the bundle's) carries the
evidence its signals read, the quality-control policy and the review decisions, and ``analyze --ratings`` of it
writes the campaign's verdicts, system scores and z to the last digit (both databases). A file without them
says which signals it cannot compute, by name."""
from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select

from analysis.behaviour_signals import SIGNALS
from analysis.evidence import overlaps
from analysis.readers import EXCLUDED_COLUMN, QC_COLUMNS, read_ratings_file
from da_core.errors import InputError
from da_platform.building.build import BuildSpec, build_campaign
from da_platform.building.crowds import choose
from da_platform.building.judges import import_judge_scores
from da_platform.db.engine import transaction
from da_platform.db.models import Answer, Campaign, CampaignStatus, Question, System
from da_platform.simulation.crowd import SlotOracle
from da_platform.simulation.page_crowd import CrowdSettings, Steps, crowd_plan, rate_through_pages
from da_platform.simulation.sample import import_sample
from da_platform.simulation.sample_data import load_truth
from hit_builder.storage import LocalImageStorage

REPORTS = ("analysis.json", "qc-workers.csv", "system-scores.csv", "item-scores.csv")


def _judge_file(session, test_set, path: Path) -> Path:
    """A judge's per-answer scores: 100 x the ROUGE-L of each answer against the question's reference (an
    automatic score, as a researcher's LLM judge would give)."""
    rows = session.execute(select(System.name, Question.external_id, Answer.text, Question.id)
                           .join(Answer, Answer.system_id == System.id)
                           .join(Question, Question.id == Answer.question_id)
                           .where(System.test_set_id == test_set.id)).all()
    references = {q.id: q.references[0].text for q in test_set.questions}
    scores = [{"system": s, "id": q, "score": round(100 * overlaps(text, references[qid])[1], 3)}
              for s, q, text, qid in rows]
    path.write_text("".join(json.dumps(score) + "\n" for score in scores), encoding="utf-8")
    return path


@pytest.fixture
def rated(database_url, sessions, tmp_path, run):
    """A campaign built for a lab's own pool (the weighted test), with a judge's scores imported, rated through the
    real worker pages by simulated people, an overlap bot and a random clicker; one person's data excluded by a
    decision. Returns the campaign's name."""
    images = tmp_path / "images"
    with transaction(sessions) as session:
        # 80 questions: 10 HITs, so that people (a fifth of whose HITs carry no signal, as real workers') are most
        # of the group, and beyond_automatic can tell the overlap bot from them (with 48, one lapse took that away)
        test_set = import_sample(session, questions=80)
        import_judge_scores(session, test_set, str(_judge_file(session, test_set, tmp_path / "judge.jsonl")),
                            judge="rouge judge")
        campaign = build_campaign(session, BuildSpec(name="own pool", test_set=test_set.name, seed=2,
                                                     crowd=choose("pool")),
                                  storage=LocalImageStorage(images), processes=1)
        campaign.status = CampaignStatus.running
        campaign_id, hits = campaign.id, len(campaign.hits)
        oracle = SlotOracle.from_database(session, campaign_id, load_truth()["quality"])
    crowd = CrowdSettings(seed=4, hits_per_worker=1, threads=2, fetch_images=False)
    plan = crowd_plan("w", {"overlap": 1, "random": 1}, None, hits, crowd)
    outcomes = rate_through_pages(crowd, Steps(), database_url, images, campaign_id, hits * 100, plan, oracle)
    assert sum(o.hits for o in outcomes) == hits
    decided = run("decide", "own pool", "pool:w-honest-01", "approve_exclude", "--reason", "asked to withdraw", "--yes")
    assert decided.exit_code == 0, decided.output
    with sessions() as session:
        assert session.get(Campaign, campaign_id).settings["qc"]["method"] == "weighted"
    return "own pool"


def _report(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in REPORTS}


def test_the_export_reanalyses_as_the_campaign(rated, run, tmp_path):
    """Failed before: the file carried no policy, evidence or decisions, so its analysis ran the published test
    without signals and kept the withdrawn worker (other verdicts, other scores)."""
    campaign = run("analyze", "--campaign", rated, "--out", str(tmp_path / "campaign"), "--no-plots")
    assert campaign.exit_code == 0, campaign.output
    exported = run("export", "ratings", rated, "-o", str(tmp_path / "ratings.csv"))
    assert exported.exit_code == 0, exported.output
    from_file = run("analyze", "--ratings", str(tmp_path / "ratings.csv"), "--out", str(tmp_path / "file"),
                    "--no-plots")
    assert from_file.exit_code == 0, from_file.output
    assert "quality control by the policy the file carries (weighted test, alpha 0.05, scope group)" in from_file.output
    expected = _report(tmp_path / "campaign")
    assert _report(tmp_path / "file") == expected  # verdicts, system scores and z, byte for byte

    rows = list(csv.DictReader(io.StringIO(expected["qc-workers.csv"].decode())))
    verdicts = {row["worker"]: row["verdict"] for row in rows}
    assert verdicts["pool:w-random-01"] == "excluded" and verdicts["pool:w-overlap-01"] == "flagged"
    assert "kept" in verdicts.values()
    document = json.loads(expected["analysis.json"])
    assert ("pool:w-honest-01", "decision") in {(e["worker"], e["excluded_by"]) for e in document["exclusions"]}

    with open(tmp_path / "ratings.csv", encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle))
    assert "judge:rouge judge" in header and set(QC_COLUMNS) <= set(header) and EXCLUDED_COLUMN in header

    bundle = run("export", "bundle", rated, "-o", str(tmp_path / "bundle.zip"))
    assert bundle.exit_code == 0, bundle.output
    with zipfile.ZipFile(tmp_path / "bundle.zip") as archive:
        (tmp_path / "bundle-ratings.csv").write_bytes(archive.read("ratings.csv"))
    again = run("analyze", "--ratings", str(tmp_path / "bundle-ratings.csv"), "--out", str(tmp_path / "bundle"),
                "--no-plots")
    assert again.exit_code == 0, again.output
    assert _report(tmp_path / "bundle") == expected


def test_a_file_without_evidence_says_what_it_cannot_compute_and_a_broken_cell_where(rated, run, tmp_path):
    exported = run("export", "ratings", rated, "-o", str(tmp_path / "ratings.csv"))
    assert exported.exit_code == 0, exported.output
    with open(tmp_path / "ratings.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    keep = [i for i, name in enumerate(rows[0]) if i < 10 or name in QC_COLUMNS]  # the plain long CSV + policy
    with open(tmp_path / "bare.csv", "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([row[i] for i in keep] for row in rows)
    bare = run("analyze", "--ratings", str(tmp_path / "bare.csv"), "--out", str(tmp_path / "bare"), "--no-plots")
    assert bare.exit_code == 0, bare.output
    assert (f"carries no behaviour records, reading units or automatic scores: the signals {', '.join(SIGNALS)} "
            "cannot be computed, so the verdicts rest on the weighted test alone") in bare.output

    rows[5][rows[0].index("overlap_rouge_l")] = "high"
    with open(tmp_path / "broken.csv", "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    with pytest.raises(InputError, match=r"broken\.csv:6: field 'overlap_rouge_l': 'high' is not a number"):
        read_ratings_file(tmp_path / "broken.csv")
    refused = run("analyze", "--ratings", str(tmp_path / "broken.csv"), "--out", str(tmp_path / "x"), "--no-plots")
    assert refused.exit_code == 1 and "broken.csv:6: field 'overlap_rouge_l'" in refused.output
    assert "Traceback" not in refused.output and not (tmp_path / "x").exists()
