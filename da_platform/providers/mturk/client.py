"""Amazon Mechanical Turk requester client (boto3 ``mturk``), pinned to us-east-1.

The sandbox is the default; the live marketplace needs ``live=True`` (the CLI asks for ``--live``
and a confirmation of the total cost). ``endpoint_url`` points the client elsewhere (the fake in
the tests). Throttling and service faults are retried with bounded backoff; creates and bonuses
carry a ``UniqueRequestToken`` so a retry never creates or pays twice.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from da_platform.db.states import WorkerSource
from da_platform.providers.base import ProviderAssignment, ProviderError, ProviderStatus
from da_platform.providers.money import Currency, amount_string, parse_amount
from da_platform.providers.mturk.settings import MTurkSettings, external_question
from da_platform.providers.retry import Backoff, call_with_retry

REGION = "us-east-1"
SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
LIVE_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"

TRANSIENT_CODES = frozenset({
    "ServiceFault", "ServiceUnavailable", "InternalFailure", "Throttling", "ThrottlingException",
    "ThrottledException", "RequestThrottled", "RequestThrottledException", "TooManyRequestsException",
    "RequestLimitExceeded", "SlowDown",
})
_STATUS = {
    "Submitted": ProviderStatus.submitted,
    "Approved": ProviderStatus.approved,
    "Rejected": ProviderStatus.rejected,
}
_HIT_ID = re.compile(r"\b[A-Z0-9]{30}\b")
_THROTTLED = re.compile(r"\b(rate exceeded|throttled|throttling)\b", re.IGNORECASE)
NOTIFY_BATCH = 100  # NotifyWorkers takes at most 100 worker ids


def make_boto_client(*, live: bool = False, endpoint_url: str | None = None, session: Any = None,
                     **credentials: str):
    """A boto3 ``mturk`` client in us-east-1: the sandbox unless ``live``; retries are ours."""
    import boto3
    from botocore.config import Config

    config = Config(region_name=REGION, retries={"total_max_attempts": 1}, connect_timeout=10,
                    read_timeout=60)
    session = session or boto3.session.Session()
    url = endpoint_url or (LIVE_ENDPOINT if live else SANDBOX_ENDPOINT)
    return session.client("mturk", region_name=REGION, endpoint_url=url, config=config, **credentials)


def error_code(error: BaseException) -> str | None:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        return response.get("Error", {}).get("Code")
    return None


def error_message(error: BaseException) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        return response.get("Error", {}).get("Message") or str(error)
    return str(error)


def is_transient(error: BaseException) -> bool:
    """Throttling, service faults, HTTP 5xx and dropped connections are worth another try."""
    from botocore.exceptions import ConnectionError as BotoConnectionError
    from botocore.exceptions import HTTPClientError

    if isinstance(error, (BotoConnectionError, HTTPClientError)):
        return True
    code = error_code(error)
    if code is None:
        return False
    if code in TRANSIENT_CODES:
        return True
    status = getattr(error, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    return status >= 500 or _THROTTLED.search(error_message(error)) is not None


class MTurk:
    """The platform's MTurk operations over a boto3 client (inject a stubbed one in tests)."""

    name = WorkerSource.mturk
    currency = Currency.USD
    bonus_retry_safe = True

    def __init__(self, client: Any, *, live: bool = False, backoff: Backoff = Backoff(),
                 sleep: Callable[[float], None] = time.sleep, exclusion_qualification_id: str | None = None):
        self.client = client
        self.live = live
        self.exclusion_qualification_id = exclusion_qualification_id
        self.backoff = backoff
        self.sleep = sleep

    # -- plumbing -----------------------------------------------------------------------------
    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        """Call an MTurk operation by its API name, retrying transient failures."""
        from botocore.exceptions import ClientError

        api_to_method = {api: name for name, api in self.client.meta.method_to_api_mapping.items()}
        method = getattr(self.client, api_to_method[operation])
        try:
            return call_with_retry(operation, lambda: method(**params), is_transient,
                                   backoff=self.backoff, sleep=self.sleep)
        except ClientError as error:
            raise MTurkRequestError(operation, error) from error

    def _pages(self, operation: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
        token = None
        while True:
            response = self.call(operation, MaxResults=100, **params, **({"NextToken": token} if token else {}))
            yield from response.get(key, [])
            token = response.get("NextToken")
            if not token:
                return

    # -- account ------------------------------------------------------------------------------
    def balance(self) -> Decimal:
        response = self.call("GetAccountBalance")
        return parse_amount(response.get("AvailableBalance", "0.00"), field="AvailableBalance")

    # -- qualifications -----------------------------------------------------------------------
    def ensure_exclusion_qualification(self, name: str, description: str) -> str:
        """Id of our qualification ``name`` (created once; found again if it already exists)."""
        for qualification in self._pages("ListQualificationTypes", "QualificationTypes", Query=name,
                                         MustBeRequestable=False, MustBeOwnedByCaller=True):
            if qualification.get("Name") == name:
                return qualification["QualificationTypeId"]
        response = self.call("CreateQualificationType", Name=name, Description=description,
                             QualificationTypeStatus="Active", Keywords="da-platform,exclusion")
        return response["QualificationType"]["QualificationTypeId"]

    def grant_exclusion(self, qualification_id: str, worker_id: str) -> None:
        """Give the worker the exclusion qualification (HITs require it to not exist)."""
        self.call("AssociateQualificationWithWorker", QualificationTypeId=qualification_id,
                  WorkerId=worker_id, IntegerValue=1, SendNotification=False)

    def excluded_workers(self, qualification_id: str) -> set[str]:
        return {q["WorkerId"] for q in self._pages("ListWorkersWithQualificationType", "Qualifications",
                                                    QualificationTypeId=qualification_id, Status="Granted")}

    # -- HITs ---------------------------------------------------------------------------------
    def create_hit_type(self, settings: MTurkSettings) -> str:
        """CreateHITType (idempotent on MTurk's side: the same parameters give the same id)."""
        return self.call("CreateHITType", **settings.hit_type_parameters(live=self.live))["HITTypeId"]

    def create_hit(self, hit_type_id: str, *, url: str, settings: MTurkSettings, token: str,
                   annotation: str) -> str:
        """CreateHITWithHITType with an ExternalQuestion; a repeated ``token`` finds the first HIT."""
        try:
            response = self.call(
                "CreateHITWithHITType", HITTypeId=hit_type_id, MaxAssignments=settings.assignments_per_hit,
                LifetimeInSeconds=settings.lifetime, Question=external_question(url, settings.frame_height),
                RequesterAnnotation=annotation, UniqueRequestToken=token,
            )
        except MTurkRequestError as error:
            if not error.duplicate_token:
                raise
            hit_id = self.find_hit(annotation) or error.hit_id
            if hit_id is None:
                raise
            return hit_id
        return response["HIT"]["HITId"]

    def find_hit(self, annotation: str) -> str | None:
        """The HIT created with this RequesterAnnotation, if any."""
        for hit in self._pages("ListHITs", "HITs"):
            if hit.get("RequesterAnnotation") == annotation:
                return hit["HITId"]
        return None

    def get_hit(self, hit_id: str) -> dict[str, Any]:
        return self.call("GetHIT", HITId=hit_id)["HIT"]

    def expire(self, hit_id: str) -> None:
        """Stop new workers from accepting the HIT now (workers already on it may finish)."""
        self.call("UpdateExpirationForHIT", HITId=hit_id, ExpireAt=datetime(2015, 1, 1, tzinfo=timezone.utc))

    def extend(self, hit_id: str, until: datetime) -> None:
        self.call("UpdateExpirationForHIT", HITId=hit_id, ExpireAt=until)

    def delete(self, hit_id: str) -> None:
        """Delete a HIT (MTurk allows it only when expired and every assignment is reviewed)."""
        self.call("DeleteHIT", HITId=hit_id)

    # -- assignments --------------------------------------------------------------------------
    def list_assignments(self, work_id: str) -> Iterator[ProviderAssignment]:
        for item in self._pages("ListAssignmentsForHIT", "Assignments", HITId=work_id,
                                AssignmentStatuses=["Submitted", "Approved", "Rejected"]):
            yield _assignment(item)

    def get_assignment(self, assignment_id: str) -> ProviderAssignment:
        return _assignment(self.call("GetAssignment", AssignmentId=assignment_id)["Assignment"])

    def approve(self, assignment_id: str, *, feedback: str | None = None) -> str:
        try:
            self.call("ApproveAssignment", AssignmentId=assignment_id,
                      **({"RequesterFeedback": feedback[:1024]} if feedback else {}))
        except MTurkRequestError:
            if self.get_assignment(assignment_id).status is ProviderStatus.approved:
                return "already approved"
            raise
        return "approved"

    def reject(self, assignment_id: str, *, feedback: str, category: str | None = None) -> str:
        if not feedback.strip():
            raise ValueError("a rejection needs feedback for the worker")
        try:
            self.call("RejectAssignment", AssignmentId=assignment_id, RequesterFeedback=feedback[:1024])
        except MTurkRequestError:
            if self.get_assignment(assignment_id).status is ProviderStatus.rejected:
                return "already rejected"
            raise
        return "rejected"

    def send_bonus(self, *, work_id: str, worker_id: str, assignment_id: str, amount: Decimal,
                   reason: str, token: str) -> str:
        try:
            self.call("SendBonus", WorkerId=worker_id, BonusAmount=amount_string(amount),
                      AssignmentId=assignment_id, Reason=reason, UniqueRequestToken=token)
        except MTurkRequestError as error:
            if error.duplicate_token:
                return "already paid (same request token)"
            raise
        return f"bonus {amount_string(amount)} sent"

    def bonuses_paid(self, *, work_id: str, assignment_id: str, worker_id: str) -> list[Decimal]:
        return [parse_amount(b["BonusAmount"], field="BonusAmount")
                for b in self._pages("ListBonusPayments", "BonusPayments", AssignmentId=assignment_id)]

    def block(self, worker_id: str, *, reason: str) -> str:
        """Keep the worker out of the campaign's HITs: grant the exclusion qualification."""
        if self.exclusion_qualification_id is None:
            return "blocked on our side only (the campaign has no exclusion qualification)"
        self.grant_exclusion(self.exclusion_qualification_id, worker_id)
        return "exclusion qualification granted"

    # -- messages -----------------------------------------------------------------------------
    def notify(self, worker_ids: list[str], *, subject: str, message: str) -> list[dict[str, Any]]:
        """NotifyWorkers in batches of 100; returns the per-worker failures MTurk reports."""
        if not 1 <= len(subject) <= 200 or not 1 <= len(message) <= 4096:
            raise ValueError("subject: 1..200 characters; message: 1..4096 characters")
        failures: list[dict[str, Any]] = []
        for start in range(0, len(worker_ids), NOTIFY_BATCH):
            response = self.call("NotifyWorkers", Subject=subject, MessageText=message,
                                 WorkerIds=worker_ids[start:start + NOTIFY_BATCH])
            failures.extend(response.get("NotifyWorkersFailureStatuses", []))
        return failures


class MTurkRequestError(ProviderError):
    """MTurk refused a request (RequestError and friends), with the operation named."""

    def __init__(self, operation: str, error: BaseException):
        self.operation = operation
        self.code = error_code(error) or type(error).__name__
        self.message = error_message(error)
        super().__init__(f"MTurk {operation} failed: {self.code}: {self.message}")

    @property
    def duplicate_token(self) -> bool:
        """MTurk's answer to a repeated UniqueRequestToken (the first request went through)."""
        text = self.message.lower()
        return "uniquerequesttoken" in text.replace(" ", "") or "already exists" in text

    @property
    def hit_id(self) -> str | None:
        match = _HIT_ID.search(self.message)
        return match.group(0) if match else None


def _assignment(item: dict[str, Any]) -> ProviderAssignment:
    raw = item.get("AssignmentStatus", "")
    return ProviderAssignment(
        assignment_id=item["AssignmentId"],
        worker_id=item["WorkerId"],
        work_id=item["HITId"],
        status=_STATUS.get(raw, ProviderStatus.in_progress),
        raw_status=raw,
        submitted_at=item.get("SubmitTime"),
        details={"answer": item.get("Answer")} if item.get("Answer") else {},
    )
