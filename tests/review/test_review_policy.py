"""The review policy on its own: which evidence leads to which decision, and exact costs."""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from analysis.quality import WorkerQC
from da_platform.config.review_policy import ReviewPolicy
from da_platform.providers.idempotency import request_token
from da_platform.providers.money import mturk_cost, parse_amount, rate_cost
from da_platform.review.decisions import judge

QC = WorkerQC(group="c", worker="mturk:W", passed=True, status="passed", reason="", method="wilcoxon",
              pvalue=0.001, statistic=55.0, p_method="exact", n_pairs=10, n_nonzero_pairs=10, mean_original=70.0,
              mean_degraded=20.0, n_repeat_pairs=10, repeat_mean_abs_diff=2.0, repeat_correlation=0.9, n_ref=10,
              mean_ref=90.0, n_ratings=100, score_sd=20.0, n_hits=1, single_hit=True, hit_seconds=(600.0,),
              longest_identical_run=2)
POLICY = ReviewPolicy(bonus="0.50")


def test_passed_is_approved_used_and_bonused():
    verdict = judge(POLICY, QC, 100)
    assert (verdict.action, verdict.use_data, verdict.bonus, verdict.block) == ("approve", True, Decimal("0.50"), False)


def test_failed_with_enough_pairs_and_high_p_is_rejected_and_blocked():
    verdict = judge(POLICY, replace(QC, passed=False, status="failed", pvalue=0.8), 100)
    assert (verdict.action, verdict.use_data, verdict.block) == ("reject", False, True)
    assert "clear evidence" in verdict.reason


@pytest.mark.parametrize("change", [dict(pvalue=0.3), dict(n_nonzero_pairs=7)])
def test_failed_without_clear_evidence_is_paid_but_excluded(change):
    verdict = judge(POLICY, replace(replace(QC, passed=False, status="failed", pvalue=0.8), **change), 100)
    assert (verdict.action, verdict.use_data, verdict.bonus) == ("approve", False, None)


def test_too_few_pairs_is_paid_but_excluded():
    verdict = judge(POLICY, replace(QC, passed=False, status="too_few_pairs", n_nonzero_pairs=0), 100)
    assert (verdict.action, verdict.use_data) == ("approve", False)


def test_constant_run_is_rejected_and_rejection_can_be_switched_off():
    constant = replace(QC, passed=False, status="too_few_pairs", longest_identical_run=60)
    assert judge(POLICY, constant, 100).action == "reject"
    off = judge(replace(POLICY, reject_enabled=False), constant, 100)
    assert (off.action, off.use_data, off.block) == ("approve", False, False)


def test_no_ratings_is_rejected_and_no_checks_is_used():
    assert judge(POLICY, None, 0).action == "reject"
    unchecked = judge(POLICY, replace(QC, passed=True, status="not_quality_controlled"), 100)
    assert (unchecked.action, unchecked.use_data, unchecked.bonus) == ("approve", True, None)


def test_policy_round_trips_and_refuses_nonsense():
    assert ReviewPolicy.from_dict(POLICY.to_dict()) == POLICY
    assert POLICY.to_dict()["bonus"] == "0.50"
    with pytest.raises(ValueError, match="reject_min_pairs"):
        ReviewPolicy(reject_min_pairs=3)
    with pytest.raises(ValueError, match="unknown review setting"):
        ReviewPolicy.from_dict({"bonsu": "1.00"})
    with pytest.raises(ValueError, match="not 0.5"):
        ReviewPolicy(bonus=0.5)  # floats are not exact money


def test_costs_are_exact():
    # 25 HITs x 1 assignment at 1.37: fee 20 % rounded per assignment (0.274 -> 0.27)
    cost = mturk_cost(assignments=25, assignments_per_hit=1, reward=parse_amount("1.37"), bonuses=[Decimal("0.05")])
    assert (cost.rewards, cost.reward_fees, cost.bonus_fees, cost.total) == (
        Decimal("34.25"), Decimal("6.75"), Decimal("0.01"), Decimal("41.06"))
    # 10 or more assignments per HIT: 40 %; Masters: +5 %
    assert mturk_cost(assignments=10, assignments_per_hit=10, reward=Decimal("1.00")).reward_fees == Decimal("4.00")
    assert mturk_cost(assignments=1, assignments_per_hit=1, reward=Decimal("1.00"),
                      masters=True).reward_fees == Decimal("0.25")
    assert rate_cost(assignments=3, reward=Decimal("3.00"),
                     fee_rate=Decimal("0.3333"), currency="GBP").total == Decimal("12.00")


def test_request_tokens_are_deterministic_and_short():
    token = request_token("mturk-bonus", 7, "abc")
    assert token == request_token("mturk-bonus", 7, "abc") != request_token("mturk-bonus", 7, "abd")
    assert len(token) <= 64


def _hit(passed: bool, run: int = 2, worker_passed: bool = True):
    from analysis.lapses import HitCheck

    alone = replace(QC, passed=passed, status="passed" if passed else "failed", pvalue=0.01 if passed else 0.6,
                    longest_identical_run=run, n_hits=1)
    return HitCheck("c", QC.worker, "H1", alone, worker_passed)


def test_a_lapse_of_a_worker_who_reads_is_paid_used_and_never_blocked():
    reader = replace(QC, n_hits=3, single_hit=False)
    lapse = judge(POLICY, reader, 100, hit=_hit(False))
    assert (lapse.action, lapse.use_data, lapse.block) == ("approve", True, False)
    assert "lapse: this HIT carried no signal" in lapse.reason
    # a HIT of nothing but identical scores delivered no work: rejected, but its worker, who reads, is not blocked
    empty = judge(POLICY, reader, 100, hit=_hit(False, run=90))
    assert (empty.action, empty.block) == ("reject", False) and "not grounds to block" in empty.reason
    # the same run from a worker whose checks fail over all their HITs: rejected and blocked, as before
    failed = replace(reader, passed=False, status="failed", pvalue=0.9)
    assert judge(POLICY, failed, 100, hit=_hit(False, run=90, worker_passed=False)).block
    # a HIT that passes on its own says nothing more
    assert "lapse" not in judge(POLICY, reader, 100, hit=_hit(True)).reason
