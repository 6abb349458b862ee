"""Bounded exponential backoff for transient provider failures (throttling, service faults)."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class RetriesExhausted(RuntimeError):
    """A transient failure persisted through every attempt; ``last`` is the final error."""

    def __init__(self, operation: str, attempts: int, last: BaseException):
        super().__init__(
            f"{operation} still failing after {attempts} attempts ({last}); nothing more was sent. "
            "Try again later: the request tokens make a retry safe."
        )
        self.operation = operation
        self.attempts = attempts
        self.last = last


@dataclass(frozen=True)
class Backoff:
    """Delays base, base*factor, ... capped at ``max_delay``; at most ``attempts`` calls in all."""

    attempts: int = 5
    base_delay: float = 0.5
    factor: float = 2.0
    max_delay: float = 8.0

    def delays(self) -> list[float]:
        return [min(self.base_delay * self.factor**i, self.max_delay) for i in range(self.attempts - 1)]


def call_with_retry(
    operation: str,
    call: Callable[[], T],
    is_transient: Callable[[BaseException], bool],
    *,
    backoff: Backoff = Backoff(),
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call``; retry transient errors with backoff; raise ``RetriesExhausted`` at the end."""
    delays = backoff.delays()
    for attempt in range(backoff.attempts):
        try:
            return call()
        except Exception as error:  # noqa: BLE001 - classified just below
            if not is_transient(error):
                raise
            if attempt == backoff.attempts - 1:
                raise RetriesExhausted(operation, backoff.attempts, error) from error
            sleep(delays[attempt])
    raise AssertionError("unreachable")
