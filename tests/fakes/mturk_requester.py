"""The requester side of the fake MTurk: the JSON API boto3 speaks, with a payment ledger.

boto3 sends ``POST /`` with ``X-Amz-Target: MTurkRequesterServiceV20170117.<Operation>`` and a
JSON body; errors come back as ``{"__type": "RequestError", "Message": ...}``. The state behaves
like MTurk where the platform depends on it: UniqueRequestToken idempotency (a repeat is refused
with an "already exists" RequestError), assignment statuses (approve/reject only from Submitted),
qualification requirements (``DoesNotExist`` keeps excluded workers out), pagination with
NextToken, and DeleteHIT only once a HIT is expired and reviewed. Tests assert on ``ledger``
(every reward, bonus and rejection, in order) and may queue faults per operation.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from xml.etree import ElementTree

from flask import Flask, Response, request

TARGET_PREFIX = "MTurkRequesterServiceV20170117."
PAGE_SIZE_LIMIT = 100
_ids = itertools.count(1)


class FakeError(Exception):
    def __init__(self, message: str, code: str = "RequestError", status: int = 400):
        super().__init__(message)
        self.code, self.status = code, status


def _new_id(prefix: str) -> str:
    raw = hashlib.sha1(f"{prefix}{next(_ids)}{time.time_ns()}".encode()).hexdigest().upper()
    return (prefix + raw)[:30]


@dataclass
class LedgerEntry:
    """One movement of money or verdict: kind is reward | bonus | rejection."""

    kind: str
    assignment_id: str
    worker_id: str
    amount: Decimal
    note: str = ""


@dataclass
class FakeAssignment:
    assignment_id: str
    hit_id: str
    worker_id: str
    status: str = "Accepted"  # Accepted (not visible to requesters) | Submitted | Approved | Rejected
    accept_time: float = field(default_factory=time.time)
    submit_time: float | None = None
    review_time: float | None = None
    answer: str | None = None
    feedback: str | None = None


@dataclass
class FakeHIT:
    hit_id: str
    hit_type_id: str
    max_assignments: int
    question: str
    external_url: str
    annotation: str | None
    created: float
    expiration: float
    deleted: bool = False


@dataclass
class Fault:
    """What to do to the next call of an operation: fail before or after applying it, or hang."""

    code: str = "ServiceFault"
    status: int = 500
    after_apply: bool = False
    hang: threading.Event | None = None


class FakeMTurkRequester:
    """In-memory MTurk requester state (thread-safe) and the operations boto3 calls."""

    def __init__(self, balance: str = "10000.00"):
        self.lock = threading.RLock()
        self.balance = Decimal(balance)
        self.hit_types: dict[str, dict[str, Any]] = {}
        self.hits: dict[str, FakeHIT] = {}
        self.assignments: dict[str, FakeAssignment] = {}
        self.qualification_types: dict[str, dict[str, Any]] = {}
        self.grants: dict[tuple[str, str], int] = {}
        self.bonuses: list[dict[str, Any]] = []
        self.tokens: dict[str, str] = {}
        self.blocks: dict[str, str] = {}
        self.notifications: list[dict[str, Any]] = []
        self.ledger: list[LedgerEntry] = []
        self.calls: list[str] = []
        self.faults: dict[str, list[Fault]] = {}

    # -- test controls ------------------------------------------------------------------------
    def inject(self, operation: str, *faults: Fault) -> None:
        """Queue faults for the next calls of ``operation`` (consumed one per call)."""
        with self.lock:
            self.faults.setdefault(operation, []).extend(faults)

    def payments(self, kind: str | None = None) -> list[LedgerEntry]:
        with self.lock:
            return [e for e in self.ledger if kind is None or e.kind == kind]

    def accept(self, hit_id: str, worker_id: str) -> str:
        """A worker accepts the HIT (checks qualifications, capacity, expiry); the assignment id."""
        with self.lock:
            hit = self._hit(hit_id)
            if hit.deleted or hit.expiration <= time.time():
                raise FakeError(f"HIT {hit_id} is no longer available")
            for requirement in self.hit_types[hit.hit_type_id].get("QualificationRequirements", []):
                if not self._meets(worker_id, requirement):
                    raise FakeError(f"worker {worker_id} does not meet {requirement['QualificationTypeId']}")
            if worker_id in self.blocks:
                raise FakeError(f"worker {worker_id} is blocked")
            taken = [a for a in self.assignments.values() if a.hit_id == hit_id]
            if any(a.worker_id == worker_id for a in taken):
                raise FakeError(f"worker {worker_id} already works on HIT {hit_id}")
            if len(taken) >= hit.max_assignments:
                raise FakeError(f"HIT {hit_id} has no assignment left")
            assignment = FakeAssignment(_new_id("A"), hit_id, worker_id)
            self.assignments[assignment.assignment_id] = assignment
            return assignment.assignment_id

    def give_up(self, assignment_id: str) -> None:
        """The worker returned the assignment or let it time out: MTurk keeps no trace a requester can list or
        get, and the HIT's place is free again (the worker may accept it again, under a new assignment id)."""
        with self.lock:
            assignment = self.assignments.get(assignment_id)
            if assignment is None or assignment.status != "Accepted":
                raise FakeError(f"assignment {assignment_id} cannot be returned")
            del self.assignments[assignment_id]

    def submit(self, assignment_id: str, answer: dict[str, str] | None = None) -> None:
        """The worker's browser posted to externalSubmit: the assignment is Submitted."""
        with self.lock:
            assignment = self.assignments.get(assignment_id)
            if assignment is None or assignment.status != "Accepted":
                raise FakeError(f"assignment {assignment_id} cannot be submitted")
            assignment.status = "Submitted"
            assignment.submit_time = time.time()
            assignment.answer = json.dumps(answer or {}, sort_keys=True)

    def _meets(self, worker_id: str, requirement: dict[str, Any]) -> bool:
        qualification = requirement["QualificationTypeId"]
        comparator = requirement["Comparator"]
        has = (qualification, worker_id) in self.grants
        if qualification in self.qualification_types:
            return not has if comparator == "DoesNotExist" else has
        return True  # system qualifications: every simulated worker meets them

    # -- dispatch -----------------------------------------------------------------------------
    def handle(self, operation: str, body: dict[str, Any]) -> dict[str, Any]:
        handler: Callable[[dict[str, Any]], dict[str, Any]] | None = getattr(self, f"op_{operation}", None)
        if handler is None:
            raise FakeError(f"operation {operation} is not implemented by the fake", "UnknownOperation")
        with self.lock:
            self.calls.append(operation)
            queue = self.faults.get(operation) or []
            fault = queue.pop(0) if queue else None
        if fault and fault.hang is not None and not fault.after_apply:
            fault.hang.wait()
            raise FakeError("connection dropped", "ServiceFault", 500)
        if fault and not fault.after_apply:
            raise FakeError(f"injected {fault.code}", fault.code, fault.status)
        with self.lock:
            result = handler(body)
        if fault and fault.hang is not None:
            fault.hang.wait()
        if fault:
            raise FakeError(f"injected {fault.code} after applying", fault.code, fault.status)
        return result

    def _hit(self, hit_id: str) -> FakeHIT:
        hit = self.hits.get(hit_id)
        if hit is None or hit.deleted:
            raise FakeError(f"Hit {hit_id} does not exist. (AWS.MechanicalTurk.HITDoesNotExist)")
        return hit

    def _assignment(self, assignment_id: str) -> FakeAssignment:
        assignment = self.assignments.get(assignment_id)
        if assignment is None or assignment.status == "Accepted":
            raise FakeError(f"Assignment {assignment_id} does not exist. (AWS.MechanicalTurk.AssignmentDoesNotExist)")
        return assignment

    def _claim_token(self, token: str | None, kind: str, value: str) -> None:
        if token is None:
            return
        if len(token) > 64:
            raise FakeError("UniqueRequestToken is longer than 64 characters")
        if token in self.tokens:
            raise FakeError(
                f"The {kind} with UniqueRequestToken {token} already exists: {self.tokens[token]}. "
                f"(AWS.MechanicalTurk.{kind.capitalize()}AlreadyExists)"
            )
        self.tokens[token] = value

    @staticmethod
    def _page(items: list[Any], body: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        size = min(int(body.get("MaxResults", PAGE_SIZE_LIMIT)), PAGE_SIZE_LIMIT)
        start = int(body.get("NextToken") or 0)
        page = items[start:start + size]
        more = {"NextToken": str(start + size)} if start + size < len(items) else {}
        return page, {"NumResults": len(page), **more}

    # -- operations ---------------------------------------------------------------------------
    def op_GetAccountBalance(self, body):
        return {"AvailableBalance": str(self.balance)}

    def op_CreateQualificationType(self, body):
        if any(q["Name"] == body["Name"] for q in self.qualification_types.values()):
            raise FakeError("You have already created a QualificationType with this name.")
        qualification = {"QualificationTypeId": _new_id("3Q"), "Name": body["Name"],
                         "Description": body["Description"], "QualificationTypeStatus": body["QualificationTypeStatus"],
                         "CreationTime": time.time(), "IsRequestable": True, "AutoGranted": False}
        self.qualification_types[qualification["QualificationTypeId"]] = qualification
        return {"QualificationType": qualification}

    def op_ListQualificationTypes(self, body):
        query = (body.get("Query") or "").lower()
        items = [q for q in self.qualification_types.values() if query in q["Name"].lower()]
        page, meta = self._page(items, body)
        return {"QualificationTypes": page, **meta}

    def op_AssociateQualificationWithWorker(self, body):
        if body["QualificationTypeId"] not in self.qualification_types:
            raise FakeError("QualificationType does not exist")
        self.grants[(body["QualificationTypeId"], body["WorkerId"])] = body.get("IntegerValue", 1)
        return {}

    def op_ListWorkersWithQualificationType(self, body):
        items = [{"QualificationTypeId": q, "WorkerId": w, "IntegerValue": v, "Status": "Granted"}
                 for (q, w), v in self.grants.items() if q == body["QualificationTypeId"]]
        page, meta = self._page(items, body)
        return {"Qualifications": page, **meta}

    def op_CreateHITType(self, body):
        if not re.fullmatch(r"\d+\.\d{2}", body["Reward"]):
            raise FakeError(f"Reward {body['Reward']!r} is not a decimal amount such as 1.50")
        key = hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest().upper()[:30]
        self.hit_types.setdefault(key, body)
        return {"HITTypeId": key}

    def op_CreateHITWithHITType(self, body):
        if body["HITTypeId"] not in self.hit_types:
            raise FakeError("HITType does not exist")
        root = ElementTree.fromstring(body["Question"])
        url = root.findtext("{*}ExternalURL") or ""
        if not url.startswith("https://"):
            raise FakeError("ExternalURL must use HTTPS")
        hit_id = _new_id("3H")
        self._claim_token(body.get("UniqueRequestToken"), "hit", hit_id)
        now = time.time()
        self.hits[hit_id] = FakeHIT(hit_id, body["HITTypeId"], body.get("MaxAssignments", 1), body["Question"],
                                    url, body.get("RequesterAnnotation"), now, now + body["LifetimeInSeconds"])
        return {"HIT": self._hit_json(self.hits[hit_id])}

    def _hit_json(self, hit: FakeHIT) -> dict[str, Any]:
        hit_type = self.hit_types[hit.hit_type_id]
        assignments = [a for a in self.assignments.values() if a.hit_id == hit.hit_id]
        pending = sum(a.status == "Submitted" for a in assignments)
        done = sum(a.status in ("Approved", "Rejected") for a in assignments)
        expired = hit.expiration <= time.time()
        status = "Assignable" if not expired and len(assignments) < hit.max_assignments else (
            "Reviewable" if expired or len(assignments) >= hit.max_assignments else "Unassignable")
        return {
            "HITId": hit.hit_id, "HITTypeId": hit.hit_type_id, "Title": hit_type["Title"],
            "Description": hit_type["Description"], "Question": hit.question, "Reward": hit_type["Reward"],
            "CreationTime": hit.created, "Expiration": hit.expiration, "HITStatus": status,
            "MaxAssignments": hit.max_assignments, "RequesterAnnotation": hit.annotation,
            "AssignmentDurationInSeconds": hit_type["AssignmentDurationInSeconds"],
            "AutoApprovalDelayInSeconds": hit_type.get("AutoApprovalDelayInSeconds", 259200),
            "QualificationRequirements": hit_type.get("QualificationRequirements", []),
            "NumberOfAssignmentsPending": pending, "NumberOfAssignmentsCompleted": done,
            "NumberOfAssignmentsAvailable": max(hit.max_assignments - len(assignments), 0),
        }

    def op_GetHIT(self, body):
        return {"HIT": self._hit_json(self._hit(body["HITId"]))}

    def op_ListHITs(self, body):
        items = [self._hit_json(h) for h in self.hits.values() if not h.deleted]
        page, meta = self._page(items, body)
        return {"HITs": page, **meta}

    def op_UpdateExpirationForHIT(self, body):
        self._hit(body["HITId"]).expiration = float(body["ExpireAt"])
        return {}

    def op_DeleteHIT(self, body):
        hit = self._hit(body["HITId"])
        open_work = [a for a in self.assignments.values() if a.hit_id == hit.hit_id
                     and a.status in ("Accepted", "Submitted")]
        if hit.expiration > time.time() or open_work:
            raise FakeError("This HIT is currently in the state 'Assignable'/'Reviewable' with unreviewed "
                            "assignments. This operation can be called with a status of: Reviewing, Reviewable")
        hit.deleted = True
        return {}

    def _assignment_json(self, a: FakeAssignment) -> dict[str, Any]:
        data = {"AssignmentId": a.assignment_id, "WorkerId": a.worker_id, "HITId": a.hit_id,
                "AssignmentStatus": a.status, "AcceptTime": a.accept_time, "Answer": a.answer or ""}
        if a.submit_time:
            data["SubmitTime"] = a.submit_time
        if a.status == "Approved":
            data["ApprovalTime"] = a.review_time
        if a.status == "Rejected":
            data["RejectionTime"] = a.review_time
        if a.feedback:
            data["RequesterFeedback"] = a.feedback
        return data

    def op_ListAssignmentsForHIT(self, body):
        self._hit(body["HITId"])
        wanted = set(body.get("AssignmentStatuses") or ["Submitted", "Approved", "Rejected"])
        items = [self._assignment_json(a) for a in self.assignments.values()
                 if a.hit_id == body["HITId"] and a.status in wanted]
        page, meta = self._page(items, body)
        return {"Assignments": page, **meta}

    def op_GetAssignment(self, body):
        a = self._assignment(body["AssignmentId"])
        return {"Assignment": self._assignment_json(a), "HIT": self._hit_json(self.hits[a.hit_id])}

    def _reward(self, a: FakeAssignment) -> Decimal:
        return Decimal(self.hit_types[self.hits[a.hit_id].hit_type_id]["Reward"])

    def op_ApproveAssignment(self, body):
        a = self._assignment(body["AssignmentId"])
        if a.status != "Submitted" and not (a.status == "Rejected" and body.get("OverrideRejection")):
            raise FakeError(f"This operation can be called with a status of: Submitted (assignment is {a.status})")
        a.status, a.review_time, a.feedback = "Approved", time.time(), body.get("RequesterFeedback")
        self.balance -= self._reward(a)
        self.ledger.append(LedgerEntry("reward", a.assignment_id, a.worker_id, self._reward(a)))
        return {}

    def op_RejectAssignment(self, body):
        a = self._assignment(body["AssignmentId"])
        if a.status != "Submitted":
            raise FakeError(f"This operation can be called with a status of: Submitted (assignment is {a.status})")
        a.status, a.review_time, a.feedback = "Rejected", time.time(), body["RequesterFeedback"]
        self.ledger.append(LedgerEntry("rejection", a.assignment_id, a.worker_id, Decimal("0.00"),
                                       body["RequesterFeedback"]))
        return {}

    def op_SendBonus(self, body):
        a = self._assignment(body["AssignmentId"])
        if a.worker_id != body["WorkerId"]:
            raise FakeError("WorkerId does not match the assignment")
        if a.status not in ("Approved", "Submitted", "Rejected"):
            raise FakeError("bonus for an assignment that was never submitted")
        if not re.fullmatch(r"\d+\.\d{2}", body["BonusAmount"]):
            raise FakeError(f"BonusAmount {body['BonusAmount']!r} is not a decimal amount")
        self._claim_token(body.get("UniqueRequestToken"), "bonus", a.assignment_id)
        amount = Decimal(body["BonusAmount"])
        self.balance -= amount
        self.bonuses.append({"WorkerId": a.worker_id, "BonusAmount": body["BonusAmount"],
                             "AssignmentId": a.assignment_id, "Reason": body["Reason"], "GrantTime": time.time()})
        self.ledger.append(LedgerEntry("bonus", a.assignment_id, a.worker_id, amount, body["Reason"]))
        return {}

    def op_ListBonusPayments(self, body):
        items = [b for b in self.bonuses
                 if body.get("AssignmentId") in (None, b["AssignmentId"])
                 and body.get("HITId") in (None, self.assignments[b["AssignmentId"]].hit_id)]
        page, meta = self._page(items, body)
        return {"BonusPayments": page, **meta}

    def op_CreateWorkerBlock(self, body):
        self.blocks[body["WorkerId"]] = body["Reason"]
        return {}

    def op_NotifyWorkers(self, body):
        self.notifications.append({"Subject": body["Subject"], "MessageText": body["MessageText"],
                                   "WorkerIds": list(body["WorkerIds"])})
        return {"NotifyWorkersFailureStatuses": []}


def install_requester_api(app: Flask, state: FakeMTurkRequester | None = None) -> FakeMTurkRequester:
    """Add ``POST /`` (the requester API) to the fake MTurk app; its state is ``app.config['MTURK']``."""
    state = state or FakeMTurkRequester()
    app.config["MTURK"] = state

    @app.post("/")
    def requester_api():
        target = request.headers.get("X-Amz-Target", "")
        if not target.startswith(TARGET_PREFIX):
            return Response(json.dumps({"__type": "UnknownOperationException", "Message": target}), 400,
                            content_type="application/x-amz-json-1.1")
        try:
            result = state.handle(target.removeprefix(TARGET_PREFIX), request.get_json(force=True) or {})
            return Response(json.dumps(result), 200, content_type="application/x-amz-json-1.1")
        except FakeError as error:
            return Response(json.dumps({"__type": error.code, "Message": str(error)}), error.status,
                            content_type="application/x-amz-json-1.1")

    return state
