"""Quality control has a policy of its own (analysis.qc_policy): its defaults are decided once, it is stored
in Campaign.settings["qc"] (migration 0009 moves it out of the payment policy), and a campaign's analysis
judges the workers a decision excluded in the same run as everyone else."""
from __future__ import annotations

import json

import pytest

from analysis.qc_policy import DEFAULT_QC, QC_METHODS, QC_SCOPES, WMT_QC, QCOverrides, QCPolicy
from analysis.qc_states import QCMethod, QCScope
from analysis.quality import quality_control
from analysis.report import analyze
from da_platform.db.engine import make_engine, upgrade
from da_platform.simulation.profiles import honest_and_bad_crowd, simulate_campaign, systems_evenly_spaced


def test_the_defaults_are_the_published_test_and_wmts_its_own():
    assert (DEFAULT_QC.method, DEFAULT_QC.alpha, DEFAULT_QC.scope) == (QCMethod.wilcoxon, 0.05, QCScope.group)
    assert (WMT_QC.method, WMT_QC.scope) == ("ttest", "worker")
    assert QC_METHODS == ("wilcoxon", "ttest", "mannwhitney", "pooled", "weighted", "none")
    assert QC_SCOPES == ("group", "worker")


def test_strings_become_states_and_bad_values_say_what_is_known():
    policy = QCPolicy.from_dict({"method": "ttest", "alpha": 0.1, "scope": "worker"})
    assert policy.method is QCMethod.ttest and policy.scope is QCScope.worker and policy.alpha == 0.1
    assert policy.to_dict() == {"method": "ttest", "alpha": 0.1, "scope": "worker"}
    assert json.dumps(policy.to_dict()) == '{"method": "ttest", "alpha": 0.1, "scope": "worker"}'
    assert QCPolicy.from_dict(None) == DEFAULT_QC
    assert DEFAULT_QC.with_changes(method="none", alpha=None) == QCPolicy(QCMethod.none)
    with pytest.raises(ValueError, match="unknown quality-control method 'magic'; expected one of wilcoxon, "
                                         "ttest, mannwhitney, pooled, weighted, none"):
        QCPolicy("magic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown quality-control scope 'team'"):
        QCPolicy(scope="team")  # type: ignore[arg-type]
    for alpha in (0, 1, -0.1, "0.05", True):
        with pytest.raises(ValueError, match="alpha must be a number between 0 and 1"):
            QCPolicy(alpha=alpha)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown quality-control setting"):
        QCPolicy.from_dict({"method": "ttest", "qc_alpha": 0.1})


@pytest.fixture(scope="module")
def crowd():
    workers = honest_and_bad_crowd(6, n_random=2, seed=3)
    return simulate_campaign(systems_evenly_spaced(4), workers, n_questions=40, seed=3).table


def test_excluded_workers_are_judged_in_the_same_run_on_every_rating(crowd):
    excluded = {"honest-0001": "asked to withdraw", "random-0001": "spotted by hand"}
    result = analyze(crowd, excluded=excluded)
    decided = result.decided["sim"]
    assert {w.worker for w in decided.qc} == set(excluded)
    everyone = quality_control(crowd)["sim"]
    by_worker = {w.worker: w for w in everyone.workers}
    for qc in decided.qc:  # their test is their own pairs': as if nobody had been excluded
        assert qc == by_worker[qc.worker]
    assert set(decided.verdicts) == set(excluded)
    kept = result.groups["sim"]
    assert not {w.worker for w in kept.qc.workers} & set(excluded)  # never scored
    assert analyze(crowd).decided == {}


def test_every_worker_excluded_still_gets_a_verdict(crowd):
    everyone = {label: "closed" for label in crowd.worker.labels}
    result = analyze(crowd, excluded=everyone)
    assert result.groups == {}
    assert {w.worker for w in result.decided["sim"].qc} == set(everyone)


def _campaign_settings(database_url: str, settings: dict | None = None) -> dict:
    engine = make_engine(database_url)
    with engine.begin() as connection:
        if settings is not None:
            connection.exec_driver_sql(
                "INSERT INTO test_set (id, name, created_at) VALUES (1, 't', CURRENT_TIMESTAMP)")
            connection.exec_driver_sql(
                "INSERT INTO campaign (id, name, test_set_id, criterion, statement, show_reference, seed, passes, "
                "max_hits_per_worker, status, settings, created_at) VALUES (1, 'c', 1, 'adequacy', 's', true, 1, "
                f"1, 1, 'draft', '{json.dumps(settings)}', CURRENT_TIMESTAMP)")
        stored = connection.exec_driver_sql("SELECT settings FROM campaign").scalar_one()
    engine.dispose()
    return stored if isinstance(stored, dict) else json.loads(stored)


def test_0009_moves_the_test_out_of_the_payment_policy_and_back(database_url: str) -> None:
    from da_platform.db.engine import downgrade

    upgrade(database_url)
    downgrade(database_url, "0008")
    review = {"reject_min_pairs": 9, "qc_method": "ttest", "qc_alpha": 0.1, "bonus": "0.50"}
    _campaign_settings(database_url, {"layout": "classic", "review": review})
    upgrade(database_url)
    moved = _campaign_settings(database_url)
    assert moved == {"layout": "classic", "review": {"reject_min_pairs": 9, "bonus": "0.50"},
                     "qc": {"method": "ttest", "alpha": 0.1, "scope": "group"}}
    downgrade(database_url, "0008")
    assert _campaign_settings(database_url) == {"layout": "classic", "review": review}
    upgrade(database_url)


def test_0009_leaves_a_campaign_without_a_stored_test_alone(database_url: str) -> None:
    from da_platform.db.engine import downgrade

    upgrade(database_url)
    downgrade(database_url, "0008")
    _campaign_settings(database_url, {"review": {"bonus": "0.00"}})
    upgrade(database_url)
    assert _campaign_settings(database_url) == {"review": {"bonus": "0.00"}}


def test_a_campaigns_policy_is_read_from_its_settings(sessions, tmp_path):
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.engine import transaction
    from da_platform.results.campaign_analysis import AnalysisOptions, CampaignAnalysis
    from da_platform.simulation.sample import import_sample
    from hit_builder.storage import LocalImageStorage

    with transaction(sessions) as session:
        test_set = import_sample(session, questions=12)
        campaign = build_campaign(session, BuildSpec(name="c", test_set=test_set.name, seed=1),
                                  storage=LocalImageStorage(tmp_path))
        assert CampaignSettings.of(campaign).qc_policy == DEFAULT_QC
        campaign.settings = {**campaign.settings, "qc": {"method": "mannwhitney", "alpha": 0.2, "scope": "group"}}
    with sessions() as session:
        from da_platform.db.models import Campaign

        stored = session.query(Campaign).one()
        assert CampaignAnalysis(session, stored).qc == QCPolicy(QCMethod.mannwhitney, 0.2)
        overridden = CampaignAnalysis(session, stored, AnalysisOptions(QCOverrides(alpha=0.01, scope=QCScope.worker)))
        assert overridden.qc == QCPolicy(QCMethod.mannwhitney, 0.01, QCScope.worker)
