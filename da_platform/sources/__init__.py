"""How workers arrive: the lab's own pool (signed invite links), MTurk ExternalQuestion and Prolific.

Every source implements :class:`~da_platform.sources.base.WorkerSource`: it turns the arrival
parameters into an :class:`~da_platform.sources.base.Arrival` (who, which campaign or HIT, preview
or not) and an assignment's end into a :class:`~da_platform.sources.base.Completion` (a page, a
form POST back to the provider, or a redirect). HITs are handed out by :mod:`.arrival`.
"""
from da_platform.sources.base import Arrival, ArrivalRefused, Completion, WorkerSource
from da_platform.sources.mturk import MTurkSource
from da_platform.sources.pool import PoolSource
from da_platform.sources.prolific import ProlificSource
from da_platform.sources.tokens import Tokens

__all__ = [
    "Arrival",
    "ArrivalRefused",
    "Completion",
    "MTurkSource",
    "PoolSource",
    "ProlificSource",
    "Tokens",
    "WorkerSource",
]
