"""Progress of a long simulation on the terminal: a line per step, a bar per stage (a line per tenth in a log)."""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from da_platform.simulation.page_crowd import Steps


def click_steps() -> Steps:
    """The simulation's progress callbacks drawn on stderr: ``• step`` lines and click progress bars."""
    from da_platform.simulation.page_crowd import Steps

    bars: list = []

    def progress(label: str, total: int) -> Callable[[int], None]:
        if not sys.stderr.isatty():  # (click draws no bar there: a line every 10 % instead of silence)
            return progress_lines(label, total)
        bar = click.progressbar(length=total, label=f"  {label}", file=sys.stderr)
        bar.__enter__()
        bars.append(bar)
        return bar.update

    def done() -> None:
        while bars:
            bars.pop().__exit__(None, None, None)

    return Steps(step=lambda message: click.echo(f"• {message}", err=True), progress=progress, done=done)


def progress_lines(label: str, total: int) -> Callable[[int], None]:
    """A progress report for a log file: one line to stderr each time another tenth of ``total`` is done."""
    done, shown = [0], [0]

    def update(n: int) -> None:
        done[0] += n
        tenth = 10 * done[0] // max(1, total)
        if tenth > shown[0]:
            shown[0] = tenth
            click.echo(f"  {label}: {min(done[0], total)} of {total}", err=True)

    return update
