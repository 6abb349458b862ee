"""Worker-facing messages written in Python (errors, refusals, statements) for the message catalogue.

The worker pages translate these when they show them (``translate(message)``): a message that is not
listed here is shown in English. ``scripts/extract_messages.py`` collects every ``N_("...")`` below
and every ``_("...")`` of ``da_platform/templates/worker/`` into ``da_platform/rating/translations/worker.pot``;
tests/web/test_worker_i18n.py checks that each error message of the worker pages is listed.
"""
from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 (the gettext convention for "mark only")
    """Mark a message for the catalogue without translating it here."""
    return message


MESSAGES = (
    # Statements of the built-in criteria (da_platform.building.build).
    N_("Answer B answers the question as adequately as Answer A."),
    N_("The response answers the question fluently."),
    # Screen parts built in Python (da_platform.web.worker).
    N_("Item %(number)s of %(total)s"),
    N_("Practice item %(number)s of %(total)s"),
    N_("Answer B"),
    N_("Answer"),
    # Error pages and refusals (da_platform.web.worker, da_platform.rating.flow, da_platform.sources, .providers).
    N_("Cannot continue"),
    N_("Not saved"),
    N_("Time is up"),
    N_("Your task is being prepared: please reload this page."),
    N_("This link has expired."),
    N_("This link is not valid."),
    N_("This task does not exist."),
    N_("The time for this task ran out, so it went back to other workers. The ratings you gave are kept."),
    N_("The score must be a whole number from 0 to 100."),
    N_("That item is not part of your task."),
    N_("Items are rated one at a time, in order; that item is not the current one."),
    N_("Preview: nothing can be rated until the task is accepted."),
    N_("There is no task left for you at the moment."),
    N_("This invitation has expired."),
    N_("This invitation link is not valid."),
    N_("This study link is not valid."),
    N_("This task is not known here."),
    N_("This task is not open at the moment."),
    N_("You cannot take part in this task."),
    N_("You cannot take part in this task any more."),
    N_("You have already done as many of these tasks as one person may."),
    N_("You have already submitted this task."),
    N_("You have already finished this task."),
    N_("This task is already under way with another assignment: continue it where you started it. If you "
       "returned it, it is free again once its time limit has passed."),
    N_("This task is paused at the moment: please come back later."),
    N_("This task was closed before all its items were rated, so it cannot be completed."),
    N_("Not finished"),
    N_("The link is incomplete or malformed (turkSubmitTo)."),
    N_("The link is incomplete or malformed (assignmentId)."),
    N_("The link is incomplete or malformed (workerId)."),
    N_("The link is incomplete or malformed (hitId)."),
    N_("The link is incomplete or malformed (PROLIFIC_PID)."),
    N_("The link is incomplete or malformed (STUDY_ID)."),
    N_("The link is incomplete or malformed (SESSION_ID)."),
    N_("This page does not exist."),
    N_("Request too large"),
    N_("Bad request"),
    N_("The request held a character no text may hold and was refused; nothing was saved."),
    N_("The request was too large and was refused; nothing was saved. Reload the page and try again."),
    N_("No completion code is configured for this study: please contact the researcher."),
    # A database or image store that cannot be reached (da_platform.web.faults).
    N_("Please try again"),
    N_("The server could not reach its database for a moment. Your ratings so far are safe: reload the page in "
       "a few seconds to continue where you were."),
    N_("The server could not load this image for a moment. Your ratings so far are safe: reload the page in a "
       "few seconds to continue where you were."),
)
