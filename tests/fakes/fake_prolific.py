"""A fake Prolific API v1 for the tests (Flask, served on 127.0.0.1 with ``serve_wsgi``).

It enforces what the platform depends on: token authentication, a study's required fields and URL
placeholders, submission transitions only from AWAITING REVIEW, Prolific's rejection rules (a known
category and a message of at least 100 characters), paginated submission lists, bulk bonuses that
name submissions of the study, places of a published study that
only go up, and a pay endpoint that is NOT idempotent (paying twice pays twice,
as Prolific documents). ``ledger`` holds every reward, bonus and rejection; faults can be queued.
Responses follow the shapes in ``tests/fakes/prolific_contract.py`` (checked by
``tests/providers/test_prolific_contract.py``): a list item names ``participant_id``, a retrieved submission
``participant``; creations answer 201 and the pay endpoint 202, as the API reference documents.
"""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from flask import Flask, jsonify, request

from tests.fakes.mturk_requester import Fault, LedgerEntry

PLACEHOLDERS = ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")
CATEGORIES = {"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
              "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER"}
PAGE_SIZE = 2  # small on purpose: the client must follow _links.next


class ProlificFault(Exception):
    def __init__(self, status: int, detail: Any):
        super().__init__(str(detail))
        self.status, self.detail = status, detail


@dataclass
class FakeProlificState:
    token: str = "fake-prolific-token"
    studies: dict[str, dict[str, Any]] = field(default_factory=dict)
    submissions: dict[str, dict[str, Any]] = field(default_factory=dict)
    bulk_bonuses: dict[str, dict[str, Any]] = field(default_factory=dict)
    ledger: list[LedgerEntry] = field(default_factory=list)
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)
    ids: Any = field(default_factory=lambda: itertools.count(1))

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self.ids):022x}"

    def inject(self, endpoint: str, *faults: Fault) -> None:
        """Queue faults for an endpoint name (create_study, transition_submission, setup_bonus, pay_bonus...)."""
        with self.lock:
            self.faults.setdefault(endpoint, []).extend(faults)

    def payments(self, kind: str | None = None) -> list[LedgerEntry]:
        with self.lock:
            return [e for e in self.ledger if kind is None or e.kind == kind]

    # -- the participant side -----------------------------------------------------------------
    def start(self, study_id: str, participant_id: str) -> str:
        """A participant takes a place: a new ACTIVE submission (its id is the SESSION_ID)."""
        with self.lock:
            study = self.studies[study_id]
            if study["status"] != "ACTIVE":
                raise ProlificFault(400, "study is not active")
            taken = [s for s in self.submissions.values() if s["study_id"] == study_id and s["status"] != "RETURNED"]
            if any(s["participant_id"] == participant_id for s in taken):
                raise ProlificFault(400, "participant already took part")
            if len(taken) >= study["total_available_places"]:
                raise ProlificFault(400, "study is full")
            submission_id = self.new_id("s")
            self.submissions[submission_id] = {"id": submission_id, "study_id": study_id,
                                               "participant_id": participant_id,
                                               "status": "ACTIVE", "bonus_payments": [], "study_code": None,
                                               "started_at": _now(), "completed_at": None}
            return submission_id

    def complete(self, submission_id: str, code: str) -> None:
        """The participant arrived at app.prolific.com/submissions/complete?cc=<code>."""
        with self.lock:
            submission = self.submissions[submission_id]
            study = self.studies[submission["study_id"]]
            if code not in [c["code"] for c in study["completion_codes"]]:
                raise ProlificFault(400, f"unknown completion code {code!r}")
            submission.update(status="AWAITING REVIEW", study_code=code, completed_at=_now())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def submission_short(submission: dict[str, Any]) -> dict[str, Any]:
    """A list item (API reference: studies/get-study-submissions, SubmissionShort)."""
    return {k: submission[k] for k in ("id", "participant_id", "status", "started_at", "completed_at", "study_code")}


def submission_detail(submission: dict[str, Any]) -> dict[str, Any]:
    """A retrieved submission (API reference: submissions/get-submission): ``participant``, not ``participant_id``."""
    return {"id": submission["id"], "study_id": submission["study_id"], "participant": submission["participant_id"],
            "status": submission["status"], "started_at": submission["started_at"],
            "completed_at": submission["completed_at"], "entered_code": submission["study_code"],
            "bonus_payments": list(submission["bonus_payments"])}


def create_fake_prolific(state: FakeProlificState | None = None) -> Flask:
    """The fake Prolific app; its state and ledger are ``app.config['PROLIFIC']``."""
    app = Flask("fake_prolific")
    state = state or FakeProlificState()
    app.config["PROLIFIC"] = state

    def guarded(endpoint: str, apply, success: int = 200):
        if request.headers.get("Authorization") != f"Token {state.token}":
            return jsonify({"error": {"detail": "Invalid token."}}), 401
        with state.lock:
            state.calls.append(endpoint)
            queue = state.faults.get(endpoint) or []
            fault = queue.pop(0) if queue else None
        if fault and not fault.after_apply:
            return jsonify({"error": {"detail": f"injected {fault.code}"}}), fault.status
        try:
            with state.lock:
                body = apply()
        except ProlificFault as error:
            return jsonify({"error": {"detail": error.detail}}), error.status
        if fault and fault.hang is not None:
            fault.hang.wait()
        if fault:
            return jsonify({"error": {"detail": f"injected {fault.code} after applying"}}), fault.status
        return jsonify(body), success

    def study_view(study: dict[str, Any]) -> dict[str, Any]:
        return dict(study)

    @app.post("/api/v1/studies/")
    def create_study():
        def apply():
            body = request.get_json(force=True)
            required = ("name", "description", "external_study_url", "prolific_id_option", "completion_codes",
                        "total_available_places", "estimated_completion_time", "reward")
            missing = [k for k in required if k not in body]
            if missing:
                raise ProlificFault(400, {k: ["This field is required."] for k in missing})
            if not isinstance(body["reward"], int) or not isinstance(body["total_available_places"], int):
                raise ProlificFault(400, "reward and total_available_places are integers (reward in minor units)")
            if not body["external_study_url"].startswith("https://") or not all(
                    p in body["external_study_url"] for p in PLACEHOLDERS):
                raise ProlificFault(400, "external_study_url must be HTTPS and carry the three placeholders")
            study = {**body, "id": state.new_id("p"), "status": "UNPUBLISHED"}
            state.studies[study["id"]] = study
            return study_view(study)
        return guarded("create_study", apply, 201)

    @app.get("/api/v1/studies/")
    def list_studies():
        return guarded("list_studies", lambda: {"results": [study_view(s) for s in state.studies.values()]})

    @app.get("/api/v1/studies/<study_id>/")
    def get_study(study_id):
        def apply():
            if study_id not in state.studies:
                raise ProlificFault(404, "Not found.")
            return study_view(state.studies[study_id])
        return guarded("get_study", apply)

    @app.patch("/api/v1/studies/<study_id>/")
    def update_study(study_id):
        """studies/update-study: a draft takes any field; a published study only a larger
        ``total_available_places`` (and its ``internal_name``), and more places make a finished study ACTIVE."""
        def apply():
            study = state.studies.get(study_id)
            if study is None:
                raise ProlificFault(404, "Not found.")
            body = request.get_json(force=True)
            if study["status"] != "UNPUBLISHED":
                fixed = sorted(set(body) - {"total_available_places", "internal_name"})
                if fixed:
                    raise ProlificFault(400, f"cannot change {', '.join(fixed)} of a published study")
                places = body.get("total_available_places", study["total_available_places"])
                if not isinstance(places, int) or places < study["total_available_places"]:
                    raise ProlificFault(400, {"total_available_places": [
                        "The places of a published study can only be increased."]})
                if places > study["total_available_places"] and study["status"] in ("AWAITING REVIEW", "COMPLETED"):
                    study["status"] = "ACTIVE"
            study.update(body)
            return study_view(study)
        return guarded("update_study", apply)

    @app.post("/api/v1/studies/<study_id>/transition/")
    def transition_study(study_id):
        def apply():
            study = state.studies.get(study_id)
            if study is None:
                raise ProlificFault(404, "Not found.")
            action = request.get_json(force=True).get("action")
            moves = {"PUBLISH": ("UNPUBLISHED", "ACTIVE"), "PAUSE": ("ACTIVE", "PAUSED"),
                     "START": ("PAUSED", "ACTIVE"), "STOP": (None, "COMPLETED")}
            if action not in moves or (moves[action][0] and study["status"] != moves[action][0]):
                raise ProlificFault(400, f"cannot {action} a study that is {study['status']}")
            study["status"] = moves[action][1]
            return study_view(study)
        return guarded("transition_study", apply)

    @app.get("/api/v1/submissions/")
    def list_submissions():
        def apply():
            study_id = request.args.get("study")
            if not study_id:
                raise ProlificFault(400, "study is required")
            page = int(request.args.get("page", 1))
            items = [s for s in state.submissions.values() if s["study_id"] == study_id]
            chunk = items[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
            more = page * PAGE_SIZE < len(items)
            next_href = f"/api/v1/submissions/?study={study_id}&page={page + 1}" if more else None
            return {"results": [submission_short(s) for s in chunk], "_links": {"next": {"href": next_href}},
                    "meta": {"count": len(items)}}
        return guarded("list_submissions", apply)

    @app.get("/api/v1/submissions/<submission_id>/")
    def get_submission(submission_id):
        def apply():
            if submission_id not in state.submissions:
                raise ProlificFault(404, "Not found.")
            return submission_detail(state.submissions[submission_id])
        return guarded("get_submission", apply)

    @app.post("/api/v1/submissions/<submission_id>/transition/")
    def transition_submission(submission_id):
        def apply():
            submission = state.submissions.get(submission_id)
            if submission is None:
                raise ProlificFault(404, "Not found.")
            body = request.get_json(force=True)
            action = body.get("action")
            target = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}.get(action)
            if target is None:
                raise ProlificFault(400, f"unknown action {action!r}")
            if submission["status"] == target:
                return submission_detail(submission)  # Prolific: repeating the same transition is ignored
            if submission["status"] != "AWAITING REVIEW":
                raise ProlificFault(400, f"cannot {action} a submission that is {submission['status']}")
            if action == "REJECT":
                if body.get("rejection_category") not in CATEGORIES:
                    raise ProlificFault(400, {"rejection_category": ["required, one of the categories"]})
                if len(body.get("message") or "") < 100:
                    raise ProlificFault(400, {"message": ["Ensure this field has at least 100 characters."]})
            study = state.studies[submission["study_id"]]
            submission["status"] = target
            kind, amount = ("reward", Decimal(study["reward"]) / 100) if target == "APPROVED" else (
                "rejection", Decimal("0.00"))
            state.ledger.append(LedgerEntry(kind, submission_id, submission["participant_id"],
                                            amount.quantize(Decimal("0.01")), body.get("message") or ""))
            return submission_detail(submission)
        return guarded("transition_submission", apply)

    @app.post("/api/v1/submissions/bonus-payments/")
    def setup_bonus():
        def apply():
            body = request.get_json(force=True)
            study_id = body.get("study_id")
            if study_id not in state.studies:
                raise ProlificFault(400, "unknown study_id")
            rows = []
            for line in (body.get("csv_bonuses") or "").strip().splitlines():
                who, _, amount = line.partition(",")
                submission = state.submissions.get(who) or next(
                    (s for s in state.submissions.values() if s["participant_id"] == who
                     and s["study_id"] == study_id), None)
                if submission is None or submission["study_id"] != study_id:
                    raise ProlificFault(400, f"{who} did not take part in study {study_id}")
                value = Decimal(amount)
                if value != value.quantize(Decimal("0.01")) or value <= 0:
                    raise ProlificFault(400, f"bad amount {amount!r}")
                rows.append((submission["id"], value))
            bulk = {"id": state.new_id("b"), "study": study_id, "rows": rows,
                    "total_amount": float(sum(v for _, v in rows) * 100)}
            state.bulk_bonuses[bulk["id"]] = bulk
            return {"id": bulk["id"], "study": study_id, "total_amount": bulk["total_amount"]}
        return guarded("setup_bonus", apply, 201)

    @app.post("/api/v1/bulk-bonus-payments/<bulk_id>/pay/")
    def pay_bonus(bulk_id):
        def apply():
            bulk = state.bulk_bonuses.get(bulk_id)
            if bulk is None:
                raise ProlificFault(404, "Not found.")
            for submission_id, value in bulk["rows"]:  # not idempotent, like the real endpoint
                submission = state.submissions[submission_id]
                submission["bonus_payments"].append(int(value * 100))
                state.ledger.append(LedgerEntry("bonus", submission_id, submission["participant_id"], value))
            return {}
        return guarded("pay_bonus", apply, 202)

    return app
