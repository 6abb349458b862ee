"""The worker pages' language and instructions: catalogues, lang/dir, escaped Markdown, pay and time,
long-answer warnings, and the build options of the CLI."""
from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from click.testing import CliRunner
from sqlalchemy import func, select

from da_core.errors import BuildError
from da_platform.building.build import BuildSpec, build_campaign
from da_platform.cli import main
from da_platform.db.models import Campaign, CampaignStatus
from da_platform.providers.pool.arrival import mint_invites
from da_platform.rating.language import SHIPPED, TEMPLATE, CatalogueError, load_catalogue, message_ids
from da_platform.simulation.showcase import make_showcase
from hit_builder.worker_settings import WorkerPageOptions
from tests.web_factories import make_web_env

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_chinese_catalogue_is_complete_and_keeps_placeholders() -> None:
    messages = load_catalogue(SHIPPED["zh-Hans"])  # raises on a missing message or placeholder
    assert set(messages) == set(message_ids())
    for msgid, msgstr in messages.items():
        assert sorted(re.findall(r"%\(\w+\)s", msgid)) == sorted(re.findall(r"%\(\w+\)s", msgstr))
        # left in: placeholders, a product name, the link parameters the providers name (MTurk, Prolific)
        words = re.sub(r"%\(\w+\)s|JavaScript|turkSubmitTo|assignmentId|workerId|hitId|PROLIFIC_PID|STUDY_ID|"
                       r"SESSION_ID", "", msgstr)
        assert not re.search(r"[A-Za-z]{3,}", words), msgstr  # no English left in a translation


def test_the_catalogue_template_lists_every_message_of_the_pages() -> None:
    spec = importlib.util.spec_from_file_location("extract_messages", ROOT / "scripts" / "extract_messages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    extracted = {message.id for message in module.template() if message.id}
    assert extracted == set(message_ids()), "run python scripts/extract_messages.py"


def _literal_messages(path: Path) -> set[str]:
    """First arguments and ``title=`` of the worker-facing errors raised in a module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
                "WorkerPageError", "RatingRefused", "ArrivalRefused"):
            arguments = list(node.args[:1]) + [k.value for k in node.keywords if k.arg in ("title", "message")]
            found |= {a.value for a in arguments if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        if isinstance(node, ast.keyword) and node.arg == "note" and isinstance(node.value, ast.Constant):
            found.add(node.value.value)
    return found


def test_every_worker_facing_error_is_in_the_catalogue() -> None:
    modules = [ROOT / "da_platform" / "web" / "worker.py", ROOT / "da_platform" / "rating" / "flow.py",
               *sorted((ROOT / "da_platform" / "sources").glob("*.py"))]
    messages = set().union(*(_literal_messages(m) for m in modules))
    from da_platform.building.build import ADEQUACY_STATEMENT, FLUENCY_STATEMENT
    from da_platform.rating.flow import TIMED_OUT

    messages |= {TIMED_OUT, ADEQUACY_STATEMENT, FLUENCY_STATEMENT}
    assert len(messages) >= 15
    assert messages - set(message_ids()) == set()


def researcher_po(path: Path, translate, skip: str | None = None) -> Path:
    """A researcher's catalogue made from the template, each message translated by ``translate``."""
    with open(TEMPLATE, "rb") as handle:
        template = read_po(handle)
    catalog = Catalog(locale="ar")
    for message in template:
        if message.id and message.id != skip:
            catalog.add(message.id, translate(message.id))
    with open(path, "wb") as handle:
        write_po(handle, catalog)
    return path


def arabic(msgid: str) -> str:
    placeholders = " ".join(re.findall(r"%\(\w+\)s", msgid))
    return f"عربي <b>{placeholders}</b>" + (" %%" if "%%" in msgid else "")


def test_a_researcher_catalogue_is_checked(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match=r"ar\.po: 1 message\(s\) .* no translation.*'Next'"):
        load_catalogue(researcher_po(tmp_path / "ar.po", arabic, skip="Next"))
    with pytest.raises(CatalogueError,
                       match=r"bad\.po, line \d+: the translation of 'Pay: %\(pay\)s\.' uses %\(amount\)s"):
        load_catalogue(researcher_po(tmp_path / "bad.po",
                                     lambda m: "%(amount)s" if m == "Pay: %(pay)s." else arabic(m)))
    (tmp_path / "broken.po").write_bytes(b"msgid \"x\nmsgstr")
    with pytest.raises(CatalogueError, match="broken.po"):
        load_catalogue(tmp_path / "broken.po")


@pytest.fixture
def env(database_url: str, tmp_path: Path):
    return make_web_env(database_url, tmp_path)


def built(env, *, name: str, **options) -> int:
    with env.sessions() as session:
        test_set = make_showcase(session, name=name, lang="zh-Hans" if options.get("lang") == "zh-Hans" else "en")
        campaign = build_campaign(session, BuildSpec(name=name, test_set=test_set, worker=WorkerPageOptions(**options)),
                                  storage=env.storage, processes=1)
        campaign.status = CampaignStatus.running
        session.commit()
        return campaign.id


def instructions_html(env, campaign_id: int) -> str:
    link = mint_invites(env.app.extensions["da_platform"].tokens, "http://localhost", campaign_id, 1, 1)[0]
    client = env.app.test_client()
    response = client.get(link.removeprefix("http://localhost"), follow_redirects=True)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_a_right_to_left_campaign_with_its_own_catalogue(env, tmp_path: Path) -> None:
    messages = load_catalogue(researcher_po(tmp_path / "ar.po", arabic))
    example = {"question": "ما هي عاصمة أستراليا؟", "reference": "كانبرا", "good": "عاصمة أستراليا كانبرا",
               "bad": "سيدني"}
    campaign = built(env, name="arabic", lang="ar", messages=messages, example=example, pay="2 USD")
    html = instructions_html(env, campaign)
    assert '<html lang="ar" dir="rtl">' in html
    assert "عربي &lt;b&gt;" in html and "<b>" not in html  # translations are text, never markup
    assert "عربي &lt;b&gt;2 USD&lt;/b&gt;" in html  # the placeholder filled
    assert "Instructions" not in html


def test_a_language_without_a_catalogue_is_refused(env) -> None:
    with pytest.raises(BuildError, match="for 'fr' give a catalogue"):
        built(env, name="french", lang="fr")
    with pytest.raises(BuildError, match="not a language tag"):
        built(env, name="bad", lang="en_US!")
    with env.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Campaign)) == 0


def test_instructions_markdown_is_escaped_and_time_pay_contact_are_shown(env) -> None:
    campaign = built(env, name="md", contact="Ann <ann@example.org>", minutes=25,
                     instructions="# Hello\n\n<script>alert(1)</script> **bold** [x](javascript:alert(1)) "
                                  "![img](http://evil.example/x.png)")
    html = instructions_html(env, campaign)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "<strong>bold</strong>" in html and "<h1>Hello</h1>" in html
    assert "javascript:" not in html.split('id="campaign-instructions"')[1].split("</div>")[0].replace(
        "[x](javascript:alert(1))", "")
    assert '<img src="http://evil' not in html  # no image from elsewhere (at most a link)
    assert "Ann &lt;ann@example.org&gt;" in html and "about 25 minutes" in html
    assert 'id="checks-sentence"' in html and "Some items are checks" in html
    assert 'id="example-good"' in html and 'id="example-bad"' in html


def test_pay_and_time_come_from_the_provider_settings_when_not_given(env) -> None:
    campaign = built(env, name="prolific")
    with env.sessions() as session:
        row = session.get(Campaign, campaign)
        row.settings = {**row.settings, "prolific": {"reward": "3.50", "currency": "GBP", "estimated_minutes": 18}}
        session.commit()
    html = instructions_html(env, campaign)
    assert "Pay: 3.50 GBP." in html and "about 18 minutes" in html


def test_long_answers_are_reported_with_count_and_longest_ids(env) -> None:
    warnings: list[str] = []
    with env.sessions() as session:
        test_set = make_showcase(session, name="long", long=True)
        answers = {f"{a.system.name}/{a.question.external_id}": a.text
                   for s in test_set.systems for a in s.answers}
        campaign = build_campaign(session, BuildSpec(name="long", test_set=test_set), storage=env.storage, processes=1,
                                  warn=warnings.append)
        record = campaign.settings["long_answers"]
    over = {i for i, text in answers.items() if len(text.split()) > 100}  # 30 s at 200 words a minute
    assert 0 < len(over) < len(answers)
    assert record["count"] == len(over) and record["answers"] == len(answers)
    assert {entry["id"] for entry in record["longest"]} <= over
    longest = max(answers, key=lambda i: (len(answers[i].split()), ))
    [warning] = [w for w in warnings if "take more than 30 s" in w]
    assert f"{len(over)} of {len(answers)} answers" in warning and longest.split("/")[1] in warning


@pytest.mark.slow
def test_build_command_sets_the_language_and_prints_the_warning(database_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}
    assert runner.invoke(main, ["import", "sample", "--name", "s"], env=env, catch_exceptions=False).exit_code == 0
    result = runner.invoke(main, ["build", "--test-set", "s", "--name", "fr", "--lang", "fr"], env=env)
    assert result.exit_code == 1 and "give a catalogue" in result.output and "nothing was built" in result.output
    result = runner.invoke(main, ["build", "--test-set", "s", "--name", "zh", "--crowd", "pool", "--lang", "zh-Hans",
                                  "--practice", "--show-context", "--minutes", "15", "--contact", "x@example.org"],
                           env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    from da_platform.db.engine import make_engine, session_factory

    with session_factory(make_engine(database_url))() as session:
        worker = session.scalar(select(Campaign).where(Campaign.name == "zh")).settings["worker"]
    assert (worker["lang"], worker["show_context"], worker["minutes"], worker["contact"]) == (
        "zh-Hans", True, 15, "x@example.org")
    # the sample gives a context to 100 of its 300 questions
    assert ("warning: --show-context: 200 of 300 questions have no context passage (q0001, q0002, q0003, "
            "q0005, q0006, ...); their items show none") in result.output
    assert len(worker["practice"]) == 2 and worker["example"]["question"] == "澳大利亚的首都是哪里？"
    help_text = runner.invoke(main, ["build", "--help"]).output
    assert "--lang" in help_text and "--practice" in help_text and "--show-context" in help_text


def test_import_warns_about_answers_too_long_to_read(database_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}
    questions = tmp_path / "qs.jsonl"
    questions.write_text("".join(f'{{"id": "q{i}", "question": "Q{i}?", "references": ["R{i}"]}}\n' for i in range(3)),
                         encoding="utf-8")
    long_en, long_zh = " ".join(["word"] * 150), "长" * 260  # 45 s and 39 s at 200 words / 400 characters a minute
    answers = tmp_path / "sys.tsv"
    answers.write_text(f"id\tanswer\nq0\tshort\nq1\t{long_en}\nq2\t{long_zh}\n", encoding="utf-8")
    assert runner.invoke(main, ["import", "test-set", str(questions)], env=env).exit_code == 0
    result = runner.invoke(main, ["import", "answers", "--test-set", "qs", str(answers)], env=env,
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "warning: 2 of 3 answers take more than 30 s to read" in result.output
    assert "the longest: sys/q1 (45 s), sys/q2 (39 s)" in result.output


def test_chinese_error_pages_and_script_errors_are_in_chinese(env) -> None:
    campaign = built(env, name="zh-errors", lang="zh-Hans")
    link = mint_invites(env.app.extensions["da_platform"].tokens, "http://localhost", campaign, 1, 1)[0]
    client = env.app.test_client()
    instructions = client.get(link.removeprefix("http://localhost"), follow_redirects=True)
    base = instructions.request.path.rstrip("/")
    page = client.post(f"{base}/slot", data={"slot": "not-a-slot", "score": "5"})
    html = page.get_data(as_text=True)
    assert page.status_code == 409 and '<html lang="zh-Hans" dir="ltr">' in html
    assert "未保存" in html and "该条目不属于您的任务。" in html and "继续当前条目" in html
    answer = client.post(f"{base}/rating", data={"slot": "not-a-slot", "score": "500"})
    assert answer.status_code == 400 and answer.get_json()["error"] == "评分必须是0到100之间的整数。"


def test_a_fluency_campaign_gets_a_fluency_example_and_a_custom_one_none(env) -> None:
    warnings: list[str] = []
    with env.sessions() as session:
        test_set = make_showcase(session, name="fl")
        fluency = build_campaign(session,
                                 BuildSpec(name="fl", test_set=test_set, criterion="fluency",
                                           worker=WorkerPageOptions(practice=True)), storage=env.storage, processes=1)
        custom = build_campaign(session,
                                BuildSpec(name="cu", test_set=test_set, criterion="custom",
                                          statement="The answer is polite.", show_reference=False),
                                storage=env.storage, processes=1, warn=warnings.append)
        example = fluency.settings["worker"]["example"]
        assert example["bad"] == "Capital the Australia of is city Canberra the."  # jumbled, not wrong
        assert set(example["images"]) == {"good", "bad"}  # no Answer A in a fluency campaign
        assert [p["reference_image"] for p in fluency.settings["worker"]["practice"]] == [None, None]
        assert "example" not in custom.settings["worker"]
    assert any("no example item for language 'en' and the custom criterion" in w for w in warnings)


def test_campaign_preview_prints_the_statement_the_worker_reads(env, database_url, tmp_path) -> None:
    built(env, name="zh-preview", lang="zh-Hans")
    built(env, name="en-preview")
    cli = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}
    chinese = CliRunner().invoke(main, ["campaign", "preview", "zh-preview"], env=cli)
    assert chinese.exit_code == 0, chinese.output
    assert "(worker pages in zh-Hans)" in chinese.output
    assert "statement:  答案B与答案A一样恰当地回答了问题。\n" in chinese.output
    assert "(in English: Answer B answers the question as adequately as Answer A.)" in chinese.output
    english = CliRunner().invoke(main, ["campaign", "preview", "en-preview"], env=cli)
    assert "statement:  Answer B answers the question as adequately as Answer A.\n" in english.output
    assert "in English" not in english.output
