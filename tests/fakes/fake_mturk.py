"""A fake Amazon Mechanical Turk for the tests: a small Flask app with a ledger of what it received.

Today it records the worker-side ExternalQuestion submission (``POST /mturk/externalSubmit``).
H-ops extends the same app with the requester JSON API; keep additions as routes on the app made by
:func:`create_fake_mturk`, recording into its :class:`MTurkLedger`.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, render_template_string, request


@dataclass(frozen=True)
class ExternalSubmission:
    """One POST to ``/mturk/externalSubmit``: the assignment id and every form field sent."""

    assignment_id: str
    form: dict[str, str]
    referrer: str | None


@dataclass
class MTurkLedger:
    """Everything the fake MTurk has been sent, in arrival order (thread-safe)."""

    submissions: list[ExternalSubmission] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record_submission(self, submission: ExternalSubmission) -> None:
        with self.lock:
            self.submissions.append(submission)

    def submissions_for(self, assignment_id: str) -> list[ExternalSubmission]:
        with self.lock:
            return [s for s in self.submissions if s.assignment_id == assignment_id]


def create_fake_mturk(ledger: MTurkLedger | None = None) -> Flask:
    """The fake MTurk application; its ledger is ``app.config["LEDGER"]``.

    The requester API (``POST /``, see :mod:`tests.fakes.mturk_requester`) keeps its state and
    payment ledger in ``app.config["MTURK"]``; an externalSubmit for an assignment it handed out
    marks that assignment Submitted there.
    """
    from tests.fakes.mturk_requester import install_requester_api

    app = Flask("fake_mturk")
    app.config["LEDGER"] = ledger if ledger is not None else MTurkLedger()
    requester = install_requester_api(app)

    @app.post("/mturk/externalSubmit")
    def external_submit():
        form = request.form.to_dict(flat=True)
        assignment_id = form.get("assignmentId", "")
        if not assignment_id:
            return "missing assignmentId", 400
        app.config["LEDGER"].record_submission(
            ExternalSubmission(assignment_id=assignment_id, form=form, referrer=request.referrer)
        )
        with requester.lock:
            known = requester.assignments.get(assignment_id)
            if known is not None and known.status == "Accepted":
                requester.submit(assignment_id, form)
        return (
            "<!doctype html><meta charset=utf-8><title>Submitted</title>"
            "<h1 id=fake-mturk-submitted>HIT submitted</h1>"
        )

    @app.get("/worker/frame")
    def worker_frame():
        """What a worker sees on MTurk: the ExternalQuestion page inside an iframe."""
        return render_template_string(
            "<!doctype html><meta charset=utf-8><title>Fake MTurk</title>"
            '<iframe id="external-question" src="{{ url }}" width="900" height="900"></iframe>',
            url=request.args.get("url", "about:blank"),
        )

    return app
