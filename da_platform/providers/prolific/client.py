"""Prolific (https://docs.prolific.com, API v1) behind the ``Provider`` interface, with ``requests``.

One study per campaign: participants arrive at the platform's Prolific entry URL with
``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` filled in by Prolific, rate one HIT and are sent
back with the campaign's completion code; their submissions wait for our review (approve / reject
with a category and a message of at least 100 characters) and bonuses go through a bulk bonus
(set up, then paid). The token is passed in (the CLI's from $PROLIFIC_API_TOKEN); ``base_url`` points elsewhere for
the fake. Prolific's pay endpoint is NOT idempotent, so it is never retried after it may have
reached Prolific; reconciliation reads the submission's ``bonus_payments`` instead. A study's places are raised
(:meth:`Prolific.raise_places`, for the next wave of a running campaign) by sending the new TOTAL, which is
idempotent and so retried like a read.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode, urljoin

from da_platform.db.states import WorkerSource
from da_platform.providers.base import OutcomeUnknown, ProviderAssignment, ProviderError, ProviderStatus
from da_platform.providers.money import Currency, amount_string, from_cents
from da_platform.providers.retry import Backoff, call_with_retry

PROLIFIC_API = "https://api.prolific.com"
TOKEN_VARIABLE = "PROLIFIC_API_TOKEN"
REJECTION_CATEGORIES = frozenset({
    "TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK", "LOW_EFFORT",
    "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER",
})
MIN_REJECTION_MESSAGE = 100  # characters, enforced by Prolific
_STATUS = {
    "RESERVED": ProviderStatus.in_progress, "ACTIVE": ProviderStatus.in_progress,
    "PROCESSING": ProviderStatus.in_progress, "AWAITING REVIEW": ProviderStatus.submitted,
    "APPROVED": ProviderStatus.approved, "REJECTED": ProviderStatus.rejected,
    "RETURNED": ProviderStatus.abandoned, "TIMED-OUT": ProviderStatus.abandoned,
}


def validate_rejection(category: str | None, message: str) -> None:
    """Prolific's rules for a rejection: a known category and a message of >= 100 characters."""
    if category not in REJECTION_CATEGORIES:
        raise ValueError(f"rejection category {category!r} is not one of {', '.join(sorted(REJECTION_CATEGORIES))}")
    if len(message.strip()) < MIN_REJECTION_MESSAGE:
        raise ValueError(f"a Prolific rejection message needs at least {MIN_REJECTION_MESSAGE} characters "
                         f"(this one has {len(message.strip())}); explain to the participant what went wrong")


class ProlificError(ProviderError):
    """Prolific answered with an error status; the message carries its detail."""

    def __init__(self, method: str, path: str, status: int, detail: Any):
        self.status = status
        self.detail = detail
        super().__init__(f"Prolific {method} {path} failed with HTTP {status}: {detail}")


class _Transient(Exception):
    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


class Prolific:
    """Prolific API v1 operations. ``live`` is informational (Prolific has no sandbox)."""

    name = WorkerSource.prolific
    live = True
    bonus_retry_safe = False  # the pay endpoint is not idempotent

    def __init__(self, token: str | None = None, *, base_url: str = PROLIFIC_API, currency: Currency = Currency.GBP,
                 session: Any = None, backoff: Backoff = Backoff(),
                 sleep: Callable[[float], None] = time.sleep, timeout: float = 30.0):
        import requests

        if not token:
            raise ProviderError(f"set ${TOKEN_VARIABLE} to a Prolific API token (Settings > API tokens)")
        self.base_url = base_url.rstrip("/")
        self.currency = currency
        self.session = session or requests.Session()
        self.session.headers.update({"Authorization": f"Token {token}", "Content-Type": "application/json"})
        self.backoff, self.sleep, self.timeout = backoff, sleep, timeout

    # -- plumbing -----------------------------------------------------------------------------
    def request(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None,
                retry_unsafe: bool = True) -> Any:
        """One API call; 429 is always retried, 5xx and dropped connections only if ``retry_unsafe``
        (i.e. when repeating the request cannot do anything twice)."""
        import requests

        url = path if path.startswith("http") else f"{self.base_url}{path}"

        def once() -> Any:
            try:
                response = self.session.request(method, url, json=json, params=params, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as error:
                if retry_unsafe:
                    raise _Transient(error) from error
                raise OutcomeUnknown(f"Prolific {method} {path}: {error} "
                                     "(not retried: it may have been applied)") from error
            if response.status_code == 429 or (retry_unsafe and response.status_code >= 500):
                raise _Transient(ProlificError(method, path, response.status_code, response.text[:300]))
            if response.status_code >= 500:
                raise OutcomeUnknown(f"Prolific {method} {path} answered HTTP {response.status_code} "
                                     "(not retried: it may have been applied)")
            if response.status_code >= 400:
                try:
                    detail = response.json()
                except ValueError:
                    detail = response.text[:300]
                raise ProlificError(method, path, response.status_code, detail)
            return response.json() if response.content else {}

        try:
            return call_with_retry(f"{method} {path}", once, lambda e: isinstance(e, _Transient),
                                   backoff=self.backoff, sleep=self.sleep)
        except _Transient as error:  # pragma: no cover - call_with_retry wraps it
            raise error.error from error

    def _pages(self, path: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        url: str | None = f"{path}?{urlencode(params)}"
        while url:
            page = self.request("GET", url)
            yield from page.get("results", [])
            next_link = (page.get("_links") or {}).get("next") or {}
            href = next_link.get("href") if isinstance(next_link, dict) else next_link
            url = urljoin(self.base_url + "/", href) if href else None

    # -- studies ------------------------------------------------------------------------------
    def find_study(self, internal_name: str) -> dict[str, Any] | None:
        for study in self._pages("/api/v1/studies/", {}):
            if study.get("internal_name") == internal_name:
                return study
        return None

    def create_study(self, body: dict[str, Any]) -> str:
        """Create the draft study, or find the one an earlier (interrupted) launch created."""
        existing = self.find_study(body["internal_name"])
        if existing:
            return existing["id"]
        return self.request("POST", "/api/v1/studies/", json=body, retry_unsafe=False)["id"]

    def raise_places(self, study_id: str, total: int) -> tuple[int, int]:
        """Make the study's ``total_available_places`` at least ``total``; (places before, places now).

        Prolific's "Update a study" (PATCH /api/v1/studies/{id}/, docs.prolific.com/api-reference/studies/
        update-study) takes the new total, not the places to add, and a published study's places can only be
        increased. Sending an absolute total twice changes nothing the second time, so the call is retried on
        5xx and dropped connections; a study that already has ``total`` places or more is left as it is."""
        study = self.request("GET", f"/api/v1/studies/{study_id}/")
        before = int(study.get("total_available_places") or 0)
        if before >= total:
            return before, before
        answer = self.request("PATCH", f"/api/v1/studies/{study_id}/", json={"total_available_places": total})
        return before, int(answer.get("total_available_places", total))

    def transition_study(self, study_id: str, action: str) -> dict[str, Any]:
        """PUBLISH, PAUSE, START or STOP a study."""
        return self.request("POST", f"/api/v1/studies/{study_id}/transition/", json={"action": action})

    # -- submissions --------------------------------------------------------------------------
    def list_assignments(self, work_id: str) -> Iterator[ProviderAssignment]:
        for item in self._pages("/api/v1/submissions/", {"study": work_id}):
            yield _submission(item, work_id)

    def get_assignment(self, assignment_id: str) -> ProviderAssignment:
        item = self.request("GET", f"/api/v1/submissions/{assignment_id}/")
        return _submission(item, item.get("study_id", ""))

    def _transition(self, assignment_id: str, body: dict[str, Any], done: ProviderStatus, word: str) -> str:
        try:
            self.request("POST", f"/api/v1/submissions/{assignment_id}/transition/", json=body)
        except ProlificError:
            if self.get_assignment(assignment_id).status is done:
                return f"already {word}"
            raise
        return word

    def approve(self, assignment_id: str, *, feedback: str | None = None) -> str:
        return self._transition(assignment_id, {"action": "APPROVE"}, ProviderStatus.approved, "approved")

    def reject(self, assignment_id: str, *, feedback: str, category: str | None = None) -> str:
        validate_rejection(category, feedback)
        body = {"action": "REJECT", "message": feedback, "rejection_category": category}
        return self._transition(assignment_id, body, ProviderStatus.rejected, "rejected")

    def send_bonus(self, *, work_id: str, worker_id: str, assignment_id: str, amount: Decimal, reason: str,
                   token: str) -> str:
        """Set up a bulk bonus for this one submission, then pay it (pay is sent at most once)."""
        setup = self.request("POST", "/api/v1/submissions/bonus-payments/",
                             json={"study_id": work_id, "csv_bonuses": f"{assignment_id},{amount_string(amount)}\n"})
        self.request("POST", f"/api/v1/bulk-bonus-payments/{setup['id']}/pay/", retry_unsafe=False)
        return f"bonus {amount_string(amount)} paid (bulk bonus {setup['id']})"

    def bonuses_paid(self, *, work_id: str, assignment_id: str, worker_id: str) -> list[Decimal]:
        item = self.request("GET", f"/api/v1/submissions/{assignment_id}/")
        return [from_cents(cents) for cents in item.get("bonus_payments") or []]

    def block(self, worker_id: str, *, reason: str) -> str:
        return "blocked on our side (the platform refuses this participant)"


def _submission(item: dict[str, Any], study_id: str) -> ProviderAssignment:
    raw = item.get("status", "")
    return ProviderAssignment(
        assignment_id=item["id"],
        worker_id=item.get("participant_id") or item.get("participant", ""),
        work_id=item.get("study_id") or study_id,
        status=_STATUS.get(raw, ProviderStatus.in_progress),
        raw_status=raw,
        details={"bonus_payments": item.get("bonus_payments") or []},
    )
