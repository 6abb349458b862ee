"""The server's time for an assignment: when its current item was shown, and when it was rated.

The application receives a clock (``create_app(clock=...)``): :func:`real_time` unless a simulation
gives its own (``da_platform.simulation.crowd.SimulatedClock``, keyed by the assignment's link token),
so that the server sees the time each simulated worker takes however fast the simulation runs.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from da_platform.db.models import utcnow

AssignmentClock = Callable[[str], datetime]
"""The time it is for the assignment of the given link token."""


def real_time(token: str) -> datetime:
    """The real time, for every assignment."""
    return utcnow()
