"""A campaign's typed settings: every shape an earlier version stored is read (the shapes below are written by
hand from what each version's build, launch, review and invite wrote), what is read is written back byte for
byte, a replaced part is written where its key was, and a value that cannot be read is refused by key."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest

from analysis.qc_policy import DEFAULT_QC, QCPolicy
from analysis.qc_states import QCMethod, QCScope
from da_platform.config.campaign_settings import (
    REDACTED,
    STORED_FIELDS,
    CampaignSettings,
    CampaignSettingsError,
    MTurkLaunch,
    TimeLimits,
)
from da_platform.config.review_policy import ReviewPolicy
from da_platform.providers.money import Currency
from da_platform.providers.mturk.settings import MTurkSettings
from da_platform.providers.prolific.settings import ProlificSettings

ASSEMBLY = {"version": 1, "seed": 3, "passes": 1, "items": 160, "hits": 3, "hits_per_pass": 3, "fill_per_pass": 20,
            "item_order": "system name, then question id; shuffled per pass with the seed"}
DEGRADATION = {"method": "span-replacement", "version": 1, "replaces": "the system answer (never the reference)",
               "tokenizer": "analysis.text.tokenize (whitespace words; one token per CJK/Thai character)",
               "span_table": [{"tokens_from": 1, "tokens_to": 1, "span": 1},
                              {"tokens_from": 21, "tokens_to": None, "span": "tokens // 4"}],
               "character_script": "span doubled (capped at the answer length) when most tokens are CJK/Thai",
               "donor_pool": "reference 0 of every other question of the test set; same script class preferred",
               "must_differ": True, "random_draws_before_scan": 20, "seed": 3}
FONTS = [{"path": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "index": 0, "name": "DejaVu Sans"}]
IDS = "HMAC-SHA256(id_salt, name/kind/index), first 32 hex digits"

# 0.1.0 (the first build): no layout, images at 1x, no worker pages' settings.
FIRST_BUILD = {
    "assembly": ASSEMBLY, "degradation": DEGRADATION,
    "render": {"width": 720, "font_size": 22, "padding": 10, "reference_grey": 102, "candidate_grey": 0,
               "png": "16-level greyscale, 4 bits per pixel, zlib level 9", "fonts": FONTS, "pillow": "10.4.0",
               "raqm": True, "images": 412},
    "systems": ["alpha", "beta"], "id_salt": "5a1t", "ids": IDS,
}
# Layouts, 2x images, worker pages with the shipped example and a practice, merged answers, abstentions.
WORKER = {"lang": "zh-Hans", "show_context": True, "contact": "lab@example.org", "minutes": 12,
          "example": {"question": "Q?", "reference": "R.", "good": "G.", "bad": "B.", "good_note": "fine",
                      "bad_note": "wrong", "images": {"good": "k-good", "bad": "k-bad", "reference": "k-ref"}},
          "practice": [{"question": "Q?", "candidate_image": "k-good", "reference_image": "k-ref"},
                       {"question": "Q?", "candidate_image": "k-bad", "reference_image": "k-ref"}]}
LATER_BUILD = {
    "assembly": ASSEMBLY, "degradation": {**DEGRADATION, "version": 2},
    "layout": "hardened",
    "layout_description": {"name": "hardened", "sets_per_hit": 10, "slots_per_set": 10, "ordinary_per_set": 6,
                           "checks_per_set": ["BAD_REF", "REPEAT", "REF", "MEANING"],
                           "per_hit": {"SYSTEM": 60, "BAD_REF": 10, "REPEAT": 10, "REF": 10, "MEANING": 10},
                           "description": "60 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF, 10 MEANING"},
    "meaning": {"method": "meaning-change", "version": 1, "rules_in_order": ["yes_no", "entity"], "must_differ": True,
                "seed": 3},
    "render": {"width": 720, "font_size": 36, "padding": 12, "reference_grey": 102, "candidate_grey": 0, "scale": 2,
               "png": "16-level greyscale, 4 bits per pixel, zlib level 9", "fonts": FONTS, "pillow": "11.0.0",
               "raqm": True, "images": 250},
    "systems": ["alpha", "beta", "gamma"],
    "abstentions": {"gamma": ["q7", "q9"]},
    "identical_answers": {"merged": True, "rule": "equal text", "items_before": 160, "items_rated": 158, "saved": 2,
                          "groups": [{"question": "q1", "rated_as": "alpha", "also": ["beta", "gamma"]}]},
    "worker": WORKER,
    "long_answers": {"count": 1, "answers": 158, "limit_seconds": 30.0, "words_per_minute": 200,
                     "characters_per_minute": 400, "longest": [{"id": "beta/q3", "seconds": 41.2}]},
    "id_salt": "5a1t", "ids": IDS,
}
REVIEW = {"reject_enabled": True, "reject_min_pairs": 8, "reject_min_p": 0.5, "reject_identical_run": 50,
          "block_rejected": True, "bonus": "0.50", "bonus_requires_pass": True,
          "approval_feedback": "Thank you for your ratings.", "rejection_feedback": "Not accepted, sorry.",
          "rejection_category": "FAILED_CHECK", "bonus_reason": "Thanks!"}
MTURK = {"title": "Rate answers", "description": "Rate them.", "keywords": "rating", "reward": "2.00",
         "assignments_per_hit": 1, "assignment_duration": 5400, "lifetime": 604800, "auto_approval_delay": 259200,
         "frame_height": 0, "locales": ["US"], "min_approval_rate": 95, "min_approved": 1000, "masters": False,
         "exclusion_qualification_id": "3QEXCL"}
PROLIFIC = {"title": "Rate answers", "description": "Rate them.", "reward": "3.50", "currency": "GBP",
            "places_per_hit": 1, "estimated_minutes": 15, "maximum_minutes": 40, "device_compatibility": ["desktop"],
            "fee_rate": "0.3333", "study_id": "p01"}
# Before migration 0009 the review policy held the test of quality control.
BEFORE_0009 = {**FIRST_BUILD, "review": {**REVIEW, "qc_method": "ttest", "qc_alpha": 0.01}}
LAUNCHED_ON_MTURK = {**LATER_BUILD, "qc": {"method": "pooled", "alpha": 0.05, "scope": "group"}, "mturk": MTURK,
                     "mturk_launch": {"hit_type_id": "HT1", "live": False, "deleted_hits": ["H1", "H2"]},
                     "review": REVIEW}
ON_PROLIFIC_AND_POOL = {**FIRST_BUILD, "prolific": PROLIFIC, "pool_time_limit_minutes": 30, "review": REVIEW}
OWN_LANGUAGE = {**FIRST_BUILD, "worker": {"lang": "fr", "show_context": False, "messages": {"Next": "Suivant"},
                                           "instructions": "Lisez **bien**.", "pay": "2 EUR"}}
# A custom criterion that hides the reference: no reference image, practice items without one.
HIDDEN_REFERENCE = {**FIRST_BUILD, "worker": {
    "lang": "en", "show_context": False,
    "example": {"question": "Q?", "reference": "R.", "good": "G.", "bad": "B.",
                "images": {"good": "k-good", "bad": "k-bad"}},
    "practice": [{"question": "Q?", "candidate_image": "k-good", "reference_image": None},
                 {"question": "Q?", "candidate_image": "k-bad", "reference_image": None}]}}
TARGETED = dict(LATER_BUILD, layout="targeted")
TARGETED = dict([*list(TARGETED.items())[:5],  # a targeted build records its rule after "meaning"
                 ("check_originals", {"score": "ROUGE-L F1", "rule": {"BAD_REF": "closest", "REF": "furthest"}}),
                 *list(TARGETED.items())[5:]])
HISTORICAL = {"none": {}, "first-build": FIRST_BUILD, "later-build": LATER_BUILD, "before-0009": BEFORE_0009,
              "mturk": LAUNCHED_ON_MTURK, "prolific-and-pool": ON_PROLIFIC_AND_POOL, "own-language": OWN_LANGUAGE,
              "hidden-reference": HIDDEN_REFERENCE, "targeted": TARGETED}


@pytest.mark.parametrize("name", HISTORICAL)
def test_every_stored_shape_is_read_and_written_back_byte_for_byte(name):
    stored = json.loads(json.dumps(HISTORICAL[name]))  # as the database gives it back
    settings = CampaignSettings.from_json(stored)
    assert json.dumps(settings.to_json()) == json.dumps(stored)
    assert settings.to_json() is not stored


def test_the_prolific_currency_is_read_as_a_currency_and_stored_as_its_code():
    settings = CampaignSettings.from_json({"prolific": {**PROLIFIC, "currency": "USD"}})
    assert settings.stored_prolific is not None and settings.stored_prolific.currency is Currency.USD
    stored = settings.to_json()["prolific"]["currency"]
    assert (type(stored), stored) == (str, "USD")
    assert ProlificSettings().currency is Currency.GBP


def test_a_campaign_that_stored_nothing_reads_the_defaults():
    settings = CampaignSettings.from_json({})
    assert settings == CampaignSettings.from_json(None)
    assert settings.hit_layout.name == "classic" and settings.qc_policy == DEFAULT_QC
    assert settings.review_policy == ReviewPolicy() and settings.mturk_settings == MTurkSettings()
    assert settings.prolific_settings == ProlificSettings() and settings.stored_prolific is None
    assert settings.worker.lang == "en" and not settings.worker.show_context and settings.worker.example is None
    assert settings.render is None and settings.assembly is None and settings.stored_mturk is None
    # pool 180 min, MTurk 3 h, Prolific 90 min: the providers' defaults
    assert [settings.time_limits.seconds(s) for s in ("pool", "mturk", "prolific", "elsewhere")] == [
        10800.0, 10800.0, 5400.0, None]


def test_the_first_build_reads_as_classic_at_1x_in_english():
    settings = CampaignSettings.from_json(FIRST_BUILD)
    assert settings.hit_layout.name == "classic" and settings.stored_layout is None
    assert (settings.render.images, settings.render.scale, settings.render.css_width) == (412, 1, 720)
    assert settings.assembly.hits == 3 and settings.assembly.items == 160 and settings.assembly.seed == 3
    assert settings.degradation.method == "span-replacement" and settings.degradation.seed == 3
    assert settings.systems == ("alpha", "beta") and settings.id_salt == "5a1t"
    assert settings.worker.lang == "en" and settings.stored_qc is None


def test_a_later_build_reads_every_record():
    settings = CampaignSettings.from_json(LATER_BUILD)
    assert settings.hit_layout.name == "hardened"
    assert settings.layout_description.description == "60 SYSTEM, 10 BAD_REF, 10 REPEAT, 10 REF, 10 MEANING"
    assert settings.meaning.method == "meaning-change"
    assert (settings.render.scale, settings.render.css_width) == (2, 360)
    assert settings.abstentions == {"gamma": ("q7", "q9")}
    merged = settings.identical_answers
    assert (merged.items_before, merged.saved) == (160, 2)
    assert [(g.question, g.rated_as, g.also) for g in merged.groups] == [("q1", "alpha", ("beta", "gamma"))]
    assert settings.long_answers.count == 1
    worker = settings.worker
    assert (worker.lang, worker.show_context, worker.contact, worker.minutes) == ("zh-Hans", True, "lab@example.org",
                                                                                  12)
    assert worker.example.good_note == "fine" and worker.example.images.drawn() == {
        "good": "k-good", "bad": "k-bad", "reference": "k-ref"}
    assert [(p.image("candidate"), p.image("reference")) for p in worker.practice] == [("k-good", "k-ref"),
                                                                                       ("k-bad", "k-ref")]


def test_a_review_policy_from_before_migration_0009_is_read_as_the_migration_reads_it():
    settings = CampaignSettings.from_json(BEFORE_0009)
    assert settings.stored_qc == QCPolicy(QCMethod.ttest, 0.01, QCScope.group)
    assert settings.stored_review == ReviewPolicy(bonus=Decimal("0.50"), rejection_feedback="Not accepted, sorry.",
                                           bonus_reason="Thanks!")
    migrated = {**FIRST_BUILD, "review": REVIEW, "qc": {"method": "ttest", "alpha": 0.01, "scope": "group"}}
    assert CampaignSettings.from_json(migrated) == settings
    assert settings.to_json() == BEFORE_0009  # reading never rewrites: the migration does


def test_provider_settings_and_time_limits():
    mturk = CampaignSettings.from_json(LAUNCHED_ON_MTURK)
    assert mturk.stored_mturk.reward == Decimal("2.00") and mturk.stored_mturk.locales == ("US",)
    assert mturk.mturk_launch == MTurkLaunch("HT1", False, ("H1", "H2"))
    assert mturk.qc_policy == QCPolicy(QCMethod.pooled)
    assert mturk.time_limits.seconds("mturk") == 5400.0  # 90 minutes, in seconds as MTurk has it
    pool = CampaignSettings.from_json(ON_PROLIFIC_AND_POOL)
    assert pool.stored_prolific.reward == Decimal("3.50") and pool.stored_prolific.fee_rate == Decimal("0.3333")
    assert pool.time_limits.seconds("pool") == 1800.0 and pool.time_limits.seconds("prolific") == 2400.0


@pytest.mark.parametrize("name", HISTORICAL)
def test_the_rating_paths_time_limits_agree_with_the_typed_settings(name):
    stored = HISTORICAL[name]
    for source in ("pool", "mturk", "prolific", "elsewhere"):
        assert TimeLimits.of(stored).seconds(source) == CampaignSettings.from_json(stored).time_limits.seconds(source)


def test_a_language_not_shipped_keeps_its_catalogue():
    worker = CampaignSettings.from_json(OWN_LANGUAGE).worker
    assert (worker.lang, dict(worker.messages), worker.instructions, worker.pay) == (
        "fr", {"Next": "Suivant"}, "Lisez **bien**.", "2 EUR")


def test_a_replaced_part_is_written_where_its_key_was_and_a_new_one_at_the_end():
    stored = json.loads(json.dumps(LAUNCHED_ON_MTURK))
    policy = ReviewPolicy(bonus=Decimal("0.25"), reject_enabled=False)
    written = CampaignSettings.from_json(stored).replace(review=policy, pool_time_limit_minutes=45.5).to_json()
    expected = {**stored, "review": {**REVIEW, "reject_enabled": False, "bonus": "0.25",
                                     "rejection_feedback": ReviewPolicy().rejection_feedback,
                                     "bonus_reason": ReviewPolicy().bonus_reason},
                "pool_time_limit_minutes": 45.5}
    assert json.dumps(written) == json.dumps(expected)
    assert list(written)[-2:] == ["review", "pool_time_limit_minutes"]
    assert "mturk" not in CampaignSettings.from_json(stored).replace(mturk=None).to_json()


def test_launch_writes_mturk_then_its_launch_record_and_expire_adds_the_deleted_hits():
    built = json.loads(json.dumps(LATER_BUILD))
    settings = MTurkSettings(reward=Decimal("1.20"), locales=("gb-ni",))
    launched = CampaignSettings.from_json(built).replace(mturk=settings, mturk_launch=MTurkLaunch("HT9", True))
    after_launch = launched.to_json()
    assert list(after_launch)[-2:] == ["mturk", "mturk_launch"]
    assert after_launch["mturk"]["reward"] == "1.20" and after_launch["mturk"]["locales"] == ["GB-NI"]
    assert after_launch["mturk_launch"] == {"hit_type_id": "HT9", "live": True}
    expired = CampaignSettings.from_json(after_launch).replace(
        mturk_launch=MTurkLaunch("HT9", True, ("H2", "H1"))).to_json()
    assert json.dumps(expired["mturk_launch"]) == '{"hit_type_id": "HT9", "live": true, "deleted_hits": ["H2", "H1"]}'
    assert MTurkLaunch(deleted_hits=()).to_json() == {"deleted_hits": []}


def test_new_settings_write_every_part_in_the_order_a_build_writes_them():
    settings = CampaignSettings.from_json(TARGETED)
    parts = {STORED_FIELDS.get(key, key): settings.part(key) for key in CampaignSettings.keys() if key in TARGETED}
    fresh = CampaignSettings(**parts, stored_qc=QCPolicy(QCMethod.pooled))
    assert list(fresh.to_json()) == [*TARGETED, "qc"]
    assert json.dumps(fresh.to_json()) == json.dumps({**TARGETED, "qc": {"method": "pooled", "alpha": 0.05,
                                                                           "scope": "group"}})


def test_the_salt_never_leaves_the_platform():
    public = CampaignSettings.from_json(FIRST_BUILD).public_json()
    assert REDACTED == ("id_salt",) and public["id_salt"] == "(redacted)"
    assert list(public) == list(FIRST_BUILD)
    assert {k: v for k, v in public.items() if k != "id_salt"} == {k: v for k, v in FIRST_BUILD.items()
                                                                   if k != "id_salt"}


@pytest.mark.parametrize(("stored", "named"), [
    ({"review": {**REVIEW, "bonus": 0.5}}, "'review': the review policy field 'bonus': 0.5 is not an amount"),
    ({"review": {**REVIEW, "bonus": "0.555"}}, "'review': bonus: '0.555' has more than two decimals"),
    ({"review": {**REVIEW, "reject_min_pairs": "eight"}}, "'review': the review policy field 'reject_min_pairs'"),
    ({"review": {**REVIEW, "reject_min_p": 2}}, "'review': reject_min_p: between 0 and 1"),
    ({"review": {"bonus_typo": "1.00"}}, "'review': unknown review setting(s): bonus_typo"),
    ({"mturk": {**MTURK, "reward": "two dollars"}}, "'mturk': reward: 'two dollars' is not an amount"),
    ({"mturk": {**MTURK, "masters": "yes"}}, "'mturk': the MTurk settings field 'masters'"),
    ({"prolific": {**PROLIFIC, "device_compatibility": "desktop"}}, "'prolific': the Prolific settings field"),
    ({"prolific": {**PROLIFIC, "currency": "EUR"}}, "'prolific': currency: 'EUR' is not one of GBP, USD"),
    ({"qc": {"method": "majority", "alpha": 0.05}}, "'qc': unknown quality-control method 'majority'"),
    ({"mturk_launch": {"hit_type_id": "HT", "live": "no"}}, "'mturk_launch': the MTurk launch field 'live'"),
    ({"layout": "fancy"}, "'layout': unknown HIT layout 'fancy'"),
    ({"worker": {**WORKER, "minutes": "ten"}}, "'worker': 'minutes' must be a whole number"),
    ({"worker": {**WORKER, "example": {"question": "Q?"}}}, "'worker': 'reference' is missing"),
    ({"worker": {"lang": "en", "colour": "blue"}}, "'worker': unknown worker page field(s): colour"),
    ({"render": {"images": "many"}}, "'render': 'images' must be a whole number"),
    ({"assembly": {**ASSEMBLY, "hits": None}}, "'assembly': 'hits' is missing"),
    ({"identical_answers": {"groups": [{"question": "q1", "rated_as": "a", "also": "b"}]}},
     "'identical_answers': a merged group's 'also' must be a list"),
    ({"systems": "alpha,beta"}, "'systems': must be a list of names"),
    ({"abstentions": {"gamma": "q7"}}, "'abstentions': must be a list of names"),
    ({"pool_time_limit_minutes": "soon"}, "'pool_time_limit_minutes': 'pool_time_limit_minutes' must be a number"),
    ({"id_salt": 42}, "'id_salt': must be a text"),
    ({"rehearsal": {"of": "qa", "seed": 1, "truth": "metric:rouge-l", "when": "now"}},
     "'rehearsal': unknown rehearsal copy field(s): when"),
    ({"rehearsal": {"of": "qa", "seed": "one", "truth": "metric:rouge-l"}}, "'rehearsal': the rehearsal copy field "
                                                                           "'seed'"),
])
def test_a_value_that_cannot_be_read_is_refused_naming_its_key(stored, named):
    with pytest.raises(CampaignSettingsError, match="^campaign settings ") as refused:
        CampaignSettings.from_json(stored)
    assert named in str(refused.value)


def test_the_rating_paths_time_limits_name_a_bad_value_too():
    with pytest.raises(CampaignSettingsError, match="'mturk': 'assignment_duration' must be a number"):
        TimeLimits.of({"mturk": {"assignment_duration": "3h"}})
    with pytest.raises(CampaignSettingsError, match="campaign settings must be a JSON object"):
        CampaignSettings.from_json(["not", "an", "object"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no campaign setting"):
        CampaignSettings().replace(colour="blue")


def test_a_rehearsal_copy_says_what_it_rehearsed_and_reads_back_byte_for_byte():
    from da_platform.config.campaign_settings import RehearsalCopy

    stored = {**FIRST_BUILD, "rehearsal": {"of": "qa", "seed": 3, "truth": "metric:rouge-l", "reward": "mturk:2.00"}}
    settings = CampaignSettings.from_json(stored)
    assert settings.rehearsal == RehearsalCopy(of="qa", seed=3, truth="metric:rouge-l", reward="mturk:2.00")
    assert settings.rehearsal.describe() == ("a rehearsal of campaign 'qa' (da-platform simulate, seed 3, truth "
                                             "metric:rouge-l, priced at mturk:2.00)")
    assert json.dumps(settings.to_json()) == json.dumps(stored)
    assert CampaignSettings.from_json(FIRST_BUILD).rehearsal is None  # a real campaign is no rehearsal


def test_keys_this_version_does_not_know_are_kept():
    stored = {**FIRST_BUILD, "from_a_newer_version": {"x": 1}}
    written = CampaignSettings.from_json(stored).replace(pool_time_limit_minutes=60).to_json()
    assert written == {**stored, "pool_time_limit_minutes": 60}


def _stored_text(sessions, campaign_id: int) -> str:
    """The settings as the database holds them (text: SQLite's JSON and PostgreSQL's ``json`` keep it)."""
    from sqlalchemy import String, cast, select

    from da_platform.db.models import Campaign

    with sessions() as session:
        return session.scalar(select(cast(Campaign.settings, String)).where(Campaign.id == campaign_id))


def test_a_built_campaign_reads_back_byte_for_byte_and_an_update_changes_only_its_part(sessions, tmp_path):
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice
    from da_platform.db.engine import transaction
    from da_platform.db.models import Campaign
    from da_platform.simulation.sample import import_sample
    from hit_builder.layouts import layout_named
    from hit_builder.storage import LocalImageStorage
    from hit_builder.worker_settings import WorkerPageOptions

    with transaction(sessions) as session:
        test_set = import_sample(session, questions=10)
        campaign = build_campaign(session, BuildSpec(
            name="c", test_set=test_set.name, seed=1, crowd=CrowdChoice("targeted", qc=QCPolicy(QCMethod.pooled)),
            worker=WorkerPageOptions(lang="zh-Hans", practice=True, show_context=True)),
            storage=LocalImageStorage(tmp_path), processes=1)
        campaign_id = campaign.id
    before = _stored_text(sessions, campaign_id)
    with sessions() as session:
        settings = CampaignSettings.of(session.get(Campaign, campaign_id))
    assert json.dumps(settings.to_json()) == json.dumps(json.loads(before))
    assert settings.hit_layout == layout_named("targeted") and settings.check_originals is not None
    assert settings.worker.lang == "zh-Hans" and len(settings.worker.practice) == 2
    policy = ReviewPolicy(bonus=Decimal("0.75"))
    with transaction(sessions) as session:
        CampaignSettings.update(session.get(Campaign, campaign_id), review=policy, pool_time_limit_minutes=20.0)
    expected = {**json.loads(before), "review": {**json.loads(json.dumps(REVIEW)), "bonus": "0.75",
                                                 "rejection_feedback": ReviewPolicy().rejection_feedback,
                                                 "bonus_reason": ReviewPolicy().bonus_reason},
                "pool_time_limit_minutes": 20.0}
    assert json.loads(_stored_text(sessions, campaign_id)) == expected
    assert list(json.loads(_stored_text(sessions, campaign_id))) == list(expected)


def test_a_hidden_reference_reads_as_no_reference_image():
    worker = CampaignSettings.from_json(HIDDEN_REFERENCE).worker
    assert worker.example.images.image("reference") is None
    assert [p.image("reference") for p in worker.practice] == [None, None]


@pytest.mark.parametrize("command", [("invite", "hand-edited", "--time-limit", "30"),
                                     ("pool", "review", "hand-edited")])
def test_a_command_on_unreadable_settings_names_the_key_and_changes_nothing(command, tmp_path, monkeypatch):
    from click.testing import CliRunner
    from sqlalchemy import select

    from da_platform.cli import main
    from da_platform.db.engine import make_engine, session_factory
    from da_platform.db.models import Campaign, CampaignStatus
    from tests.factories import cli_database, make_test_set

    url = cli_database(tmp_path, monkeypatch, questions=1)
    monkeypatch.setenv("DA_SECRET_KEY", "test-secret-key")
    stored = {**FIRST_BUILD, "review": {**REVIEW, "bonus": 0.5}}  # a float: someone edited the database
    engine = make_engine(url)
    with session_factory(engine)() as session:
        test_set = make_test_set(session, name="other", questions=1)
        session.add(Campaign(name="hand-edited", test_set_id=test_set.id, criterion="adequacy", statement="s",
                             seed=1, status=CampaignStatus.running, settings=stored))
        session.commit()
    result = CliRunner().invoke(main, list(command))
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "campaign settings 'review': the review policy field 'bonus': 0.5 is not an amount" in result.output
    with session_factory(engine)() as session:
        assert session.scalar(select(Campaign.settings).where(Campaign.name == "hand-edited")) == stored
    engine.dispose()


# The five parts with a default (docs: the settings' JSON keys), each with one name for what is stored and one for
# what applies, written out by hand.
WITH_DEFAULT = {"layout": ("stored_layout", "hit_layout"), "qc": ("stored_qc", "qc_policy"),
                "review": ("stored_review", "review_policy"), "mturk": ("stored_mturk", "mturk_settings"),
                "prolific": ("stored_prolific", "prolific_settings")}


def test_a_part_with_a_default_has_one_name_for_what_is_stored_and_another_for_what_applies():
    empty, stored = CampaignSettings.from_json({}), CampaignSettings.from_json(LAUNCHED_ON_MTURK)
    for key, (field_name, applies) in WITH_DEFAULT.items():
        assert not hasattr(empty, key), key  # no third name: the key is not an attribute
        assert getattr(empty, field_name) is None and empty.part(key) is None and getattr(empty, applies) is not None
        assert stored.part(key) is getattr(stored, field_name)
        assert (getattr(stored, applies) == getattr(stored, field_name)) == (key in LAUNCHED_ON_MTURK), key
    assert [key for key in CampaignSettings.keys() if key in WITH_DEFAULT] == list(WITH_DEFAULT)
    written = empty.replace(qc=QCPolicy(QCMethod.ttest), mturk=None)
    assert written.stored_qc == QCPolicy(QCMethod.ttest) and list(written.to_json()) == ["qc"]
