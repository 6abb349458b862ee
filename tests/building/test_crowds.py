"""Crowd presets (``build --crowd``): what each gives, what an explicit option overrides, what is stored and
shown, and the launch commands' warning."""
from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from analysis.qc_policy import QCPolicy
from analysis.qc_states import QCMethod
from da_platform.building.crowds import (
    DEFAULT_CROWD,
    PRESETS,
    Crowd,
    CrowdChoice,
    choose,
    launch_warning,
    stored_crowd,
)
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.db.models import Campaign
from hit_builder.render import RenderStyle
from tests.factories import cli_database

stored = CampaignSettings.from_json  # settings as a campaign stores them (JSON)


def test_each_crowd_gets_its_layout_render_and_test() -> None:
    # The decisions of docs/quality-control.md, "The defaults, and why", written out.
    assert DEFAULT_CROWD is Crowd.paid
    assert PRESETS[Crowd.paid].parts() == {"layout": "classic", "render": "hardened", "qc": "weighted"}
    assert PRESETS[Crowd.pool].parts() == {"layout": "classic", "render": "plain", "qc": "weighted"}
    assert PRESETS[Crowd.reproduce].parts() == {"layout": "classic", "render": "plain", "qc": "wilcoxon"}


def test_an_explicit_option_overrides_its_part_and_is_recorded() -> None:
    plain = choose("paid", render="plain")
    assert plain.parts() == {"layout": "classic", "render": "plain", "qc": "weighted"}
    assert plain.render == RenderStyle() and plain.qc == QCPolicy(QCMethod.weighted)  # what the build draws and stores
    assert plain.overrides == {"render": "plain"}
    assert plain.record().to_json() == {"preset": "paid", "overrides": {"render": "plain"}}
    assert plain.describe() == "paid (layout classic, render plain (set by hand), weighted test)"
    # an option equal to the preset's part overrides nothing
    same = choose(Crowd.reproduce, layout="classic", qc="wilcoxon")
    assert same.overrides == {} and same.describe() == "reproduce (layout classic, render plain, wilcoxon test)"
    assert choose().preset.crowd is Crowd.paid and choose().overrides == {}
    with pytest.raises(ValueError, match="unknown crowd 'anyone'; expected one of paid, pool, reproduce"):
        choose("anyone")


def test_a_choice_without_a_preset_records_no_crowd_and_no_policy_unless_given() -> None:
    """A library caller's own choice (the demo, the tests): nothing about a crowd is stored."""
    bare = CrowdChoice("hardened")
    assert bare.record() is None and bare.qc is None and bare.overrides == {}
    assert bare.describe() == "no crowd preset (layout hardened, render plain, wilcoxon test)"
    assert CrowdChoice(qc=QCPolicy(QCMethod.ttest)).parts()["qc"] == "ttest"


def test_stored_settings_describe_the_crowd() -> None:
    settings = stored({"layout": "hardened", "render": {"ocr_resistant": True}, "qc": {"method": "pooled"},
                       "crowd": {"preset": "paid", "overrides": {"layout": "hardened"}}})
    assert stored_crowd(settings) == "paid (layout hardened (set by hand), render hardened, pooled test)"
    assert stored_crowd(stored({"layout": "classic", "render": {}})) is None  # built before presets
    assert stored_crowd(stored(None)) is None


def test_launching_on_a_paid_crowd_warns_unless_built_as_the_paid_preset_says() -> None:
    paid = {"layout": "classic", "render": {"ocr_resistant": True}, "qc": {"method": "weighted"},
            "crowd": {"preset": "paid", "overrides": {}}}
    assert launch_warning(stored(paid), "MTurk") is None
    # a campaign the earlier paid preset built keeps its pooled test, and is not warned about
    assert launch_warning(stored(dict(paid, qc={"method": "pooled"})), "MTurk") is None
    reproduce = {"layout": "classic", "render": {}, "qc": {"method": "wilcoxon"},
                 "crowd": {"preset": "reproduce", "overrides": {}}}
    warning = launch_warning(stored(reproduce), "MTurk")
    assert warning is not None
    assert "built for the 'reproduce' crowd, with render plain instead of hardened, qc wilcoxon instead of " \
           "weighted" in warning and "on MTurk" in warning and "--crowd paid" in warning
    old = launch_warning(stored({"layout": "classic", "render": {}}), "Prolific")  # before presets: the published test
    assert old is not None and "built without a crowd preset, with render plain instead of hardened, qc wilcoxon" in old
    overridden = dict(paid, render={}, crowd={"preset": "paid", "overrides": {"render": "plain"}})
    assert "built for the 'paid' crowd, with render plain instead of hardened" in (
        launch_warning(stored(overridden), "MTurk") or "")


def test_build_records_the_crowd_and_an_override(tmp_path, monkeypatch) -> None:
    from da_platform.cli import main
    from da_platform.db.engine import make_engine, session_factory

    url = cli_database(tmp_path, monkeypatch, questions=30)
    runner = CliRunner()
    built = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "r", "--systems", "alpha,beta,gamma",
                                 "--crowd", "reproduce"])
    assert built.exit_code == 0, built.output
    assert "built for crowd reproduce (layout classic, render plain, wilcoxon test)" in built.output
    over = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "p", "--systems", "alpha,beta,gamma",
                                "--crowd", "pool", "--qc", "wilcoxon"])
    assert over.exit_code == 0, over.output
    assert "built for crowd pool (layout classic, render plain, wilcoxon test (set by hand))" in over.output
    engine = make_engine(url)
    with session_factory(engine)() as session:
        stored = {c.name: c.settings for c in session.scalars(select(Campaign))}
    engine.dispose()
    assert stored["r"]["crowd"] == {"preset": "reproduce", "overrides": {}}
    assert stored["r"]["qc"]["method"] == "wilcoxon" and not stored["r"]["render"].get("ocr_resistant")
    assert stored["p"]["crowd"] == {"preset": "pool", "overrides": {"qc": "wilcoxon"}}
    shown = runner.invoke(main, ["inspect", "p"])
    assert "built for crowd: pool (layout classic, render plain, wilcoxon test (set by hand))" in shown.output
    bad = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "x", "--crowd", "anyone"])
    assert bad.exit_code == 2 and "'anyone' is not one of 'paid', 'pool', 'reproduce'" in bad.output


@pytest.mark.slow
def test_build_without_options_builds_for_a_paid_crowd(run, sessions) -> None:
    """Both databases: the default build stores the paid preset, its OCR-resistant images and the weighted test."""
    from tests.factories import make_test_set

    with sessions() as session:
        make_test_set(session, name="small", questions=24)
        session.commit()
    built = run("build", "--test-set", "small", "--name", "default", "--systems", "alpha,beta,gamma",
                "--processes", "1")
    assert built.exit_code == 0, built.output
    assert "built for crowd paid (layout classic, render hardened, weighted test)" in built.output
    with sessions() as session:
        settings = session.scalar(select(Campaign)).settings
    assert settings["crowd"] == {"preset": "paid", "overrides": {}}
    assert settings["layout"] == "classic" and settings["qc"]["method"] == "weighted"
    assert settings["render"]["ocr_resistant"] is True
    assert "built for crowd: paid (layout classic, render hardened, weighted test)" in run("inspect", "default").output


@pytest.fixture
def mturk(database_url, tmp_path):
    from tests.mturk_world import mturk_world

    yield from mturk_world(database_url, tmp_path)


def test_mturk_launch_warns_on_a_campaign_not_built_for_a_paid_crowd(mturk) -> None:
    """Both databases: the warning is printed by the real command, and not once the campaign is built as the
    paid preset says."""
    from tests.fakes.crowd import quality_campaign

    campaign_id = quality_campaign(mturk.env, hits=1, name="old")  # stored settings name no crowd preset
    dry = mturk.cli("mturk", "launch", "old", "--reward", "2.00", "--dry-run").output
    assert "dry run: nothing was sent" in dry
    assert "warning: this campaign was built without a crowd preset, with render plain instead of hardened, " \
           "qc wilcoxon instead of weighted" in dry
    with mturk.env.sessions.begin() as session:
        campaign = session.get(Campaign, campaign_id)
        campaign.settings = {**campaign.settings, "layout": "classic", "render": {"ocr_resistant": True},
                             "qc": QCPolicy(QCMethod.pooled).to_dict(),
                             "crowd": {"preset": "paid", "overrides": {}}}
    quiet = mturk.cli("mturk", "launch", "old", "--reward", "2.00", "--dry-run").output
    assert "dry run: nothing was sent" in quiet and "warning" not in quiet


def test_the_campaign_page_shows_the_crowd(database_url, tmp_path) -> None:
    """Both databases: the dashboard's campaign page says which crowd the campaign was built for."""
    import html

    from da_platform.config.accounts import create_user
    from da_platform.db.engine import upgrade
    from tests.admin_client import PASSWORD, login
    from tests.fakes.crowd import quality_campaign
    from tests.web_factories import make_web_env

    upgrade(database_url)
    env = make_web_env(database_url, tmp_path)
    with env.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    old = quality_campaign(env, hits=1, name="old")
    paid = quality_campaign(env, hits=1, name="paid")
    with env.sessions.begin() as session:
        campaign = session.get(Campaign, paid)
        campaign.settings = {**campaign.settings, "layout": "classic", "render": {"ocr_resistant": True},
                             "qc": QCPolicy(QCMethod.pooled).to_dict(),
                             "crowd": {"preset": "paid", "overrides": {"layout": "classic"}}}
    client = env.app.test_client()
    login(client)
    shown = html.unescape(client.get(f"/admin/campaigns/{paid}").text)
    assert '<span id="crowd">paid (layout classic (set by hand), render hardened, pooled test)</span>' in shown
    assert "built for crowd <span id=\"crowd\">not recorded</span>" in client.get(f"/admin/campaigns/{old}").text


def test_the_paid_default_refuses_a_shaped_script_before_drawing_and_names_the_way_out(tmp_path, monkeypatch) -> None:
    """Arabic, Hebrew and Indic text cannot be drawn as OCR-resistant images: a default build refuses it at its
    checks, naming the answer and --render plain, and builds nothing; --render plain builds it."""
    from da_platform.cli import main
    from da_platform.db.engine import make_engine, session_factory
    from da_platform.db.models import Answer, Question, System

    url = cli_database(tmp_path, monkeypatch, questions=30)
    engine = make_engine(url)
    with session_factory(engine)() as session:
        answer = session.scalar(select(Answer).join(System).join(Question)
                                .where(System.name == "beta", Question.external_id == "q0007"))
        answer.text = "عاصمة أستراليا كانبرا"
        for external_id, text in (("q0007", "كانبرا هي عاصمة أستراليا"), ("q0008", "مدينة سيدني هي الأكبر في البلاد")):
            session.scalar(select(Question).where(Question.external_id == external_id)).references[0].text = text
        session.commit()
    runner = CliRunner()
    refused = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "ar", "--systems", "alpha,beta,gamma",
                                   "--processes", "1"])
    assert refused.exit_code == 1, refused.output
    assert "reference of question 'q0007': text in Arabic" in refused.output
    assert "text in Arabic needs shaping and cannot be drawn as OCR-resistant images" in refused.output
    assert "build this campaign with --render plain" in refused.output and "nothing was built" in refused.output
    assert not list(tmp_path.rglob("*.png"))  # refused at the checks, before any image was drawn
    with session_factory(engine)() as session:
        assert session.scalar(select(Campaign)) is None
    engine.dispose()
    plain = runner.invoke(main, ["build", "--test-set", "cli set", "--name", "ar", "--systems", "alpha,beta,gamma",
                                 "--processes", "1", "--render", "plain"])
    assert plain.exit_code == 0, plain.output
    assert "built for crowd paid (layout classic, render plain (set by hand), weighted test)" in plain.output
