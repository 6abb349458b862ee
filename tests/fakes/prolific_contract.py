"""The request and response shapes of the Prolific API v1 endpoints the platform calls.

Each shape is taken from Prolific's published API reference (https://docs.prolific.com/api-reference/,
read 2026-11-23); the page is named above each entry. Where the reference leaves something open, the
secondary source is Prolific's own command-line client (github.com/prolific-oss/cli, ``client/responses.go``,
``model/submission.go``, ``cmd/submission/transition.go``) and it is named as such. Only what the
platform sends or reads is encoded, plus what the reference marks as always present.

A shape is a dict ``{"required": {field: kind}, "optional": {field: kind}}`` where ``kind`` is a type
(or tuple of types), a frozenset of allowed values, a nested shape, ``ListOf(kind)``, ``NULLABLE(kind)``,
or ``ANY``. ``problems(value, shape)`` lists every mismatch; an empty list means the value conforms.
Fields not named in a shape are allowed (Prolific adds fields over time), except in request shapes marked
``closed``: there an unknown field is a platform bug (a typo Prolific would silently ignore).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ANY = object()
NUMBER = (int, float)


@dataclass(frozen=True)
class ListOf:
    item: Any


@dataclass(frozen=True)
class NULLABLE:
    kind: Any


# -- enumerations ------------------------------------------------------------------------------
# studies/the-study-object ("status"): the study's states.
STUDY_STATUSES = frozenset({"UNPUBLISHED", "PUBLISHING", "ACTIVE", "SCHEDULED", "PAUSED", "AWAITING REVIEW",
                            "COMPLETED"})
# studies/transition-study; the values as prolific-oss/cli model/study.go names them (TransitionStudy*).
STUDY_ACTIONS = frozenset({"PUBLISH", "PAUSE", "START", "STOP"})
# studies/create-study (BaseStudyProlificIdOption).
PROLIFIC_ID_OPTIONS = frozenset({"question", "url_parameters", "not_required"})
# studies/create-study (BaseStudyCompletionCodesItemsCodeType).
COMPLETION_CODE_TYPES = frozenset({"COMPLETED", "FAILED_ATTENTION_CHECK", "FOLLOW_UP_STUDY", "GIVE_BONUS",
                                   "INCOMPATIBLE_DEVICE", "NO_CONSENT", "OTHER", "FIXED_SCREENOUT"})
# studies/create-study (completion code actions) -- the ones the platform may use.
COMPLETION_CODE_ACTIONS = frozenset({"MANUALLY_REVIEW", "AUTOMATICALLY_APPROVE"})
# studies/create-study (device_compatibility).
DEVICES = frozenset({"desktop", "tablet", "mobile"})
# studies/get-study-submissions (SubmissionShortStatus) and submissions/transition-submission
# (PARTIALLY APPROVED); PROCESSING is undocumented but observed (mephisto.ai "Prolific API oddities").
SUBMISSION_STATUSES = frozenset({"RESERVED", "ACTIVE", "TIMED-OUT", "AWAITING REVIEW", "APPROVED", "RETURNED",
                                 "REJECTED", "SCREENED OUT", "PARTIALLY APPROVED", "PROCESSING"})
# submissions/transition-submission ("action"); the full list from prolific-oss/cli cmd/submission/transition.go.
SUBMISSION_ACTIONS = frozenset({"APPROVE", "COMPLETE", "REJECT", "RETURN", "SCREEN_OUT", "START", "UNREJECT",
                                "UNRETURN"})
# submissions/transition-submission ("rejection_category"); values from prolific-oss/cli (same file).
REJECTION_CATEGORIES = frozenset({"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL",
                                  "FAILED_CHECK", "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA",
                                  "UNSUPP_DEVICE", "OTHER"})
MIN_REJECTION_MESSAGE = 100  # submissions/transition-submission: "It must be at least 100 chars long."

# -- shared shapes -----------------------------------------------------------------------------
# prolific-oss/cli client/responses.go (JSONAPILinks, JSONAPIMeta): every paginated list.
LINKS = {"required": {"next": {"required": {"href": NULLABLE(str)}, "optional": {}}}, "optional": {}}
META = {"required": {"count": int}, "optional": {}}
# prolific-oss/cli client/responses.go (JSONAPIError): 4xx bodies carry {"error": {..., "detail": ...}}.
ERROR = {"required": {"error": {"required": {"detail": ANY}, "optional": {"status": int, "title": str}}},
         "optional": {}}

# studies/the-study-object, studies/get-study: the fields the platform reads back.
STUDY = {"required": {"id": str, "status": STUDY_STATUSES},
         "optional": {"name": str, "internal_name": NULLABLE(str), "external_study_url": NULLABLE(str),
                      "total_available_places": int, "reward": NUMBER,
                      "completion_codes": NULLABLE(ListOf(ANY))}}
# studies/get-study-submissions (SubmissionShort), submissions/get-submissions: a list item.
SUBMISSION_SHORT = {"required": {"id": str, "participant_id": str, "status": SUBMISSION_STATUSES},
                    "optional": {"started_at": str, "completed_at": NULLABLE(str), "study_code": NULLABLE(str),
                                 "bonus_payments": NULLABLE(ListOf(NUMBER))}}
# submissions/get-submission ("Retrieve a submission"): note ``participant``, not ``participant_id``,
# and bonus_payments "in pence / cents".
SUBMISSION = {"required": {"id": str, "status": SUBMISSION_STATUSES, "study_id": str, "participant": NULLABLE(str)},
              "optional": {"started_at": str, "completed_at": NULLABLE(str),
                           "entered_code": NULLABLE(str), "bonus_payments": NULLABLE(ListOf(NUMBER))}}

CREATE_STUDY = {
    "closed": True,
    "required": {"name": str, "description": str, "external_study_url": str,
                 "prolific_id_option": PROLIFIC_ID_OPTIONS,
                 "completion_codes": ListOf({"closed": True,
                                             "required": {"code": str, "code_type": COMPLETION_CODE_TYPES,
                                                          "actions": ListOf({"closed": True, "required": {
                                                              "action": COMPLETION_CODE_ACTIONS}, "optional": {}})},
                                             "optional": {}}),
                 "total_available_places": int, "estimated_completion_time": int, "reward": int},
    "optional": {"internal_name": str, "maximum_allowed_time": int, "device_compatibility": ListOf(DEVICES)},
}


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: str  # a regex over the URL path
    request: dict[str, Any] | None  # None: no body
    response: dict[str, Any] | None  # None: the body is not specified (any JSON, or empty)
    success: int  # the documented success status
    query: frozenset[str] = frozenset()  # query parameters the platform may send


ENDPOINTS = [
    # studies/create-study: "201 Created", body a Study.
    Endpoint("create_study", "POST", r"/api/v1/studies/", CREATE_STUDY, STUDY, 201),
    # studies/get-studies ("List all studies"): results + _links + meta.
    Endpoint("list_studies", "GET", r"/api/v1/studies/", None,
             {"required": {"results": ListOf(STUDY)}, "optional": {"_links": LINKS, "meta": META}}, 200),
    # studies/get-study ("Retrieve a study"): the study.
    Endpoint("get_study", "GET", r"/api/v1/studies/[^/]+/", None, STUDY, 200),
    # studies/update-study ("Update a study", PATCH): the fields to change, answers the study. The platform
    # only raises a running study's places: the body is the new TOTAL (researcher-help.prolific.com
    # "Increase places": through the API "input the total number of spaces you want, not just the
    # additional spaces"); a published study's places can only be increased.
    Endpoint("update_study", "PATCH", r"/api/v1/studies/[^/]+/",
             {"closed": True, "required": {"total_available_places": int}, "optional": {}}, STUDY, 200),
    # studies/transition-study: body {"action": ...}, answers the study.
    Endpoint("transition_study", "POST", r"/api/v1/studies/[^/]+/transition/",
             {"closed": True, "required": {"action": STUDY_ACTIONS}, "optional": {}}, STUDY, 200),
    # submissions/get-submissions: ``study`` filter, ``page``/``page_size`` pagination (default 20).
    Endpoint("list_submissions", "GET", r"/api/v1/submissions/", None,
             {"required": {"results": ListOf(SUBMISSION_SHORT), "_links": LINKS},
              "optional": {"meta": META}}, 200, frozenset({"study", "page", "page_size"})),
    # submissions/get-submission.
    Endpoint("get_submission", "GET", r"/api/v1/submissions/[^/]+/", None, SUBMISSION, 200),
    # submissions/transition-submission: message and rejection_category are required for REJECT.
    Endpoint("transition_submission", "POST", r"/api/v1/submissions/[^/]+/transition/",
             {"closed": True, "required": {"action": SUBMISSION_ACTIONS},
              "optional": {"message": str, "rejection_category": REJECTION_CATEGORIES}}, SUBMISSION, 200),
    # bonuses/create-bonus-payments: csv_bonuses "<participant_id|submission_id>,<amount>\n" lines, the
    # amount a decimal in the study currency; "201 Bonus created" with id, total_amount (cents), study.
    Endpoint("setup_bonus", "POST", r"/api/v1/submissions/bonus-payments/",
             {"closed": True, "required": {"study_id": str, "csv_bonuses": str}, "optional": {}},
             {"required": {"id": str, "total_amount": NUMBER},
              "optional": {"study": NULLABLE(str), "amount": NULLABLE(NUMBER), "fees": NULLABLE(NUMBER)}}, 201),
    # bonuses/pay-bonus-payments: no body; 202 (openapi.city's copy of Prolific's OpenAPI); NOT idempotent.
    Endpoint("pay_bonus", "POST", r"/api/v1/bulk-bonus-payments/[^/]+/pay/", None, None, 202),
]
CSV_BONUS_LINE = re.compile(r"^[^,\s]+,\d+(\.\d{1,2})?$")  # bonuses/create-bonus-payments, e.g. "60ffe…,4.25"


def endpoint_for(method: str, path: str) -> Endpoint:
    for endpoint in ENDPOINTS:
        if endpoint.method == method and re.fullmatch(endpoint.path, path):
            return endpoint
    raise LookupError(f"{method} {path} is not an endpoint in the contract")


def problems(value: Any, kind: Any, where: str = "$") -> list[str]:
    """Every way ``value`` differs from ``kind`` (see the module docstring), as readable strings."""
    if kind is ANY:
        return []
    if isinstance(kind, NULLABLE):
        return [] if value is None else problems(value, kind.kind, where)
    if isinstance(kind, frozenset):
        return [] if value in kind else [f"{where}: {value!r} is not one of {sorted(kind)}"]
    if isinstance(kind, ListOf):
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        return [p for i, item in enumerate(value) for p in problems(item, kind.item, f"{where}[{i}]")]
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        found = [f"{where}.{k}: missing" for k in kind["required"] if k not in value]
        fields = {**kind["required"], **kind["optional"]}
        for key, item in value.items():
            if key in fields:
                found += problems(item, fields[key], f"{where}.{key}")
            elif kind.get("closed"):
                found.append(f"{where}.{key}: not a field of this request")
        return found
    if kind is int or kind == NUMBER:  # JSON has no bool/int distinction problem in Python's bool subclass
        if isinstance(value, bool) or not isinstance(value, kind):
            return [f"{where}: expected {kind}, got {value!r}"]
        return []
    return [] if isinstance(value, kind) else [f"{where}: expected {getattr(kind, '__name__', kind)}, got {value!r}"]


def request_problems(endpoint: Endpoint, body: Any, query: dict[str, Any]) -> list[str]:
    found = [f"query: {k} is not a parameter the contract knows" for k in query if k not in endpoint.query]
    if endpoint.request is None:
        return found + ([] if body is None else [f"{endpoint.name}: sends a body the endpoint does not take"])
    found += problems(body, endpoint.request, endpoint.name)
    if endpoint.name == "transition_submission" and isinstance(body, dict) and body.get("action") == "REJECT":
        if "rejection_category" not in body:
            found.append("REJECT without rejection_category")
        if len(body.get("message") or "") < MIN_REJECTION_MESSAGE:
            found.append(f"REJECT message shorter than {MIN_REJECTION_MESSAGE} characters")
    if endpoint.name == "setup_bonus" and isinstance(body, dict):
        lines = str(body.get("csv_bonuses", "")).strip().splitlines()
        found += [f"csv_bonuses line {line!r} is not '<id>,<decimal amount>'" for line in lines
                  if not CSV_BONUS_LINE.match(line)]
    return found


def response_problems(endpoint: Endpoint, status: int, body: Any) -> list[str]:
    if status >= 400:
        return problems(body, ERROR, f"{endpoint.name} error")
    found = [] if status == endpoint.success else [f"{endpoint.name}: status {status}, documented {endpoint.success}"]
    return found + ([] if endpoint.response is None else problems(body, endpoint.response, endpoint.name))
