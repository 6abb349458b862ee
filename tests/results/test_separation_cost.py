"""The planning panel's rows in passes, HITs, cost and reachability (``da_platform.results.separation_cost``)."""
from __future__ import annotations

from decimal import Decimal

from analysis.power import PairProgress
from da_platform.results.separation_cost import plan_pair, rehearsal_command


def _pair(needed: int | None, more: int | None, ratings: int | None, separated: bool = False) -> PairProgress:
    return PairProgress("a", "b", 0.2, separated, 0.1, needed, more, ratings)


def test_more_items_than_questions_is_unreachable():
    plan = plan_pair(_pair(27_394, 27_158, 54_316), questions=236, systems=6)
    assert not plan.reachable and plan.describe() == "not reachable: the test set has 236 questions"


def test_a_reachable_pair_in_passes_hits_and_cost():
    # 60 more items per system at 2 ratings per item (240 ratings for the pair): 6 systems x 60 x 2 = 720
    # ordinary ratings = 10.3 HITs of 70 -> 11 HITs; at 1.80 per assignment: 19.80.
    plan = plan_pair(_pair(160, 60, 240), questions=300, systems=6, cost_per_assignment=Decimal("1.80"),
                     currency="USD")
    assert plan.reachable and plan.hits == 11 and plan.share_of_pass == 0.2
    assert plan.describe() == "0.20 of a pass, ≈ 11 HITs, ≈ 19.80 USD"


def test_separated_or_reversed_pairs_need_nothing():
    assert plan_pair(_pair(50, 0, 0, separated=True), questions=10, systems=2).describe() == "–"
    assert plan_pair(_pair(None, None, None), questions=10, systems=2).describe() == "–"


def test_the_rehearsal_command_quotes_the_campaign_name_for_a_shell():
    assert rehearsal_command("pilot-1") == "da-platform simulate pilot-1"
    assert rehearsal_command("QA pilot") == "da-platform simulate 'QA pilot'"
    # A single quote cannot stand inside single quotes: close, an escaped quote in double quotes, reopen.
    assert rehearsal_command("Ana's $HOME; rm") == "da-platform simulate 'Ana'\"'\"'s $HOME; rm'"
