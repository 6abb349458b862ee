"""The decisions a researcher can take on one worker (the dashboard's buttons, ``da-platform decide``).

Dependency-light (``states`` only), so that the CLI can list them without loading the review code.
"""
from __future__ import annotations

from dataclasses import dataclass

from da_platform.db.states import DecisionAction


@dataclass(frozen=True)
class Action:
    key: str
    label: str
    decision: DecisionAction  # ReviewDecision.action
    use_data: bool | None  # None: leaves the data decision as it is
    explanation: str


ACTIONS = {a.key: a for a in (
    Action("approve_use", "Approve & use", DecisionAction.approve, True,
           "Pay the reward and use the ratings (if the worker passes quality control)."),
    Action("approve_exclude", "Approve but exclude", DecisionAction.approve, False,
           "Pay the reward but leave the ratings out of every score and ranking."),
    Action("reject", "Reject", DecisionAction.reject, False,
           "Do not pay; the ratings are left out."),
    Action("bonus", "Bonus", DecisionAction.bonus, None, "Pay a bonus on top of the reward (exact amount)."),
    Action("block", "Block", DecisionAction.block, None, "Keep the worker from any further work in this campaign."),
)}
