"""Contract tests: every MTurk call the platform makes, checked by botocore's Stubber.

botocore validates each request against AWS's own MTurk service model before the Stubber sees it,
and the Stubber checks the exact parameters we send and the shape of the responses we parse.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import botocore.session
import pytest
from botocore.stub import ANY, Stubber

from da_platform.providers.mturk.client import (
    LIVE_ENDPOINT,
    SANDBOX_ENDPOINT,
    MTurk,
    MTurkRequestError,
    make_boto_client,
)
from da_platform.providers.mturk.settings import (
    APPROVAL_RATE_QUALIFICATION,
    LOCALE_QUALIFICATION,
    MASTERS_QUALIFICATION,
    NUMBER_APPROVED_QUALIFICATION,
    MTurkSettings,
    external_question,
)
from da_platform.providers.retry import Backoff, RetriesExhausted

HIT_ID = "3AQN9REUTFGXCRWFEHSVBDT5UQXDY1"
ASSIGNMENT = "3HVVDCPGTERC5EZ6QG2E68YM5YITYZ"
WORKER = "A1B2C3D4E5F6G7"
QUAL = "3Q4N5Y7QSXGGY1X1N0ZR2JEE8ZHRPO"


@pytest.fixture
def stubbed():
    client = botocore.session.get_session().create_client(
        "mturk", region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
    )
    sleeps: list[float] = []
    with Stubber(client) as stubber:
        yield MTurk(client, backoff=Backoff(attempts=3, base_delay=0.5), sleep=sleeps.append), stubber, sleeps
        stubber.assert_no_pending_responses()


def assignment_json(status: str = "Submitted") -> dict:
    return {"AssignmentId": ASSIGNMENT, "WorkerId": WORKER, "HITId": HIT_ID, "AssignmentStatus": status,
            "SubmitTime": datetime(2024, 5, 1, tzinfo=timezone.utc), "Answer": "<x/>"}


def test_client_is_pinned_to_us_east_1_and_the_sandbox_by_default():
    creds = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}
    sandbox = make_boto_client(**creds)
    assert sandbox.meta.region_name == "us-east-1"
    assert sandbox.meta.endpoint_url == SANDBOX_ENDPOINT
    assert make_boto_client(live=True, **creds).meta.endpoint_url == LIVE_ENDPOINT
    assert make_boto_client(endpoint_url="http://127.0.0.1:9", **creds).meta.endpoint_url == "http://127.0.0.1:9"


def test_balance_is_an_exact_decimal(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("get_account_balance", {"AvailableBalance": "10000.10"}, {})
    assert mturk.balance() == Decimal("10000.10")


def test_exclusion_qualification_is_reused_when_it_exists(stubbed):
    mturk, stub, _ = stubbed
    listed = {"QualificationTypes": [{"QualificationTypeId": QUAL, "Name": "da exclusion c1"}], "NumResults": 1}
    params = {"Query": "da exclusion c1", "MustBeRequestable": False, "MustBeOwnedByCaller": True, "MaxResults": 100}
    stub.add_response("list_qualification_types", listed, params)
    assert mturk.ensure_exclusion_qualification("da exclusion c1", "d") == QUAL


def test_exclusion_qualification_is_created_once(stubbed):
    mturk, stub, _ = stubbed
    params = {"Query": "da exclusion c1", "MustBeRequestable": False, "MustBeOwnedByCaller": True, "MaxResults": 100}
    stub.add_response("list_qualification_types", {"QualificationTypes": [], "NumResults": 0}, params)
    stub.add_response(
        "create_qualification_type", {"QualificationType": {"QualificationTypeId": QUAL}},
        {"Name": "da exclusion c1", "Description": "workers who finished", "QualificationTypeStatus": "Active",
         "Keywords": "da-platform,exclusion"},
    )
    assert mturk.ensure_exclusion_qualification("da exclusion c1", "workers who finished") == QUAL


def test_grant_and_list_exclusion(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("associate_qualification_with_worker", {},
                      {"QualificationTypeId": QUAL, "WorkerId": WORKER, "IntegerValue": 1, "SendNotification": False})
    mturk.grant_exclusion(QUAL, WORKER)
    page = {"QualificationTypeId": QUAL, "Status": "Granted", "MaxResults": 100}
    stub.add_response("list_workers_with_qualification_type",
                      {"Qualifications": [{"WorkerId": "W1"}], "NextToken": "p2"}, page)
    stub.add_response("list_workers_with_qualification_type",
                      {"Qualifications": [{"WorkerId": "W2"}]}, {**page, "NextToken": "p2"})
    assert mturk.excluded_workers(QUAL) == {"W1", "W2"}


def test_hit_type_carries_exact_reward_and_every_requirement(stubbed):
    mturk, stub, _ = stubbed
    settings = MTurkSettings(reward="1.50", locales=("US", "gb"), min_approval_rate=98, min_approved=500,
                             masters=True, exclusion_qualification_id=QUAL)
    expected = {
        "AutoApprovalDelayInSeconds": 259200, "AssignmentDurationInSeconds": 10800, "Reward": "1.50",
        "Title": settings.title, "Keywords": settings.keywords, "Description": settings.description,
        "QualificationRequirements": [
            {"QualificationTypeId": LOCALE_QUALIFICATION, "Comparator": "In",
             "LocaleValues": [{"Country": "US"}, {"Country": "GB"}], "ActionsGuarded": "DiscoverPreviewAndAccept"},
            {"QualificationTypeId": APPROVAL_RATE_QUALIFICATION, "Comparator": "GreaterThanOrEqualTo",
             "IntegerValues": [98], "ActionsGuarded": "DiscoverPreviewAndAccept"},
            {"QualificationTypeId": NUMBER_APPROVED_QUALIFICATION, "Comparator": "GreaterThanOrEqualTo",
             "IntegerValues": [500], "ActionsGuarded": "DiscoverPreviewAndAccept"},
            {"QualificationTypeId": MASTERS_QUALIFICATION["sandbox"], "Comparator": "Exists",
             "ActionsGuarded": "DiscoverPreviewAndAccept"},
            {"QualificationTypeId": QUAL, "Comparator": "DoesNotExist", "ActionsGuarded": "DiscoverPreviewAndAccept"},
        ],
    }
    stub.add_response("create_hit_type", {"HITTypeId": "3TYPE"}, expected)
    assert mturk.create_hit_type(settings) == "3TYPE"


def test_live_masters_uses_the_live_qualification_id():
    requirement = MTurkSettings(masters=True).qualification_requirements(live=True)[-1]
    assert requirement["QualificationTypeId"] == MASTERS_QUALIFICATION["live"]


def test_create_hit_sends_external_question_and_token(stubbed):
    mturk, stub, _ = stubbed
    settings = MTurkSettings(assignments_per_hit=3, lifetime=86400, frame_height=800)
    url = "https://da.example.org/mturk/start?campaign=1&hit=abc"
    stub.add_response(
        "create_hit_with_hit_type", {"HIT": {"HITId": HIT_ID}},
        {"HITTypeId": "3TYPE", "MaxAssignments": 3, "LifetimeInSeconds": 86400,
         "Question": external_question(url, 800), "RequesterAnnotation": "da:abc", "UniqueRequestToken": "tok-1"},
    )
    assert mturk.create_hit("3TYPE", url=url, settings=settings, token="tok-1", annotation="da:abc") == HIT_ID
    assert "campaign=1&amp;hit=abc" in external_question(url, 800)


def test_create_hit_retry_after_success_finds_the_first_hit(stubbed):
    mturk, stub, _ = stubbed
    stub.add_client_error("create_hit_with_hit_type", service_error_code="RequestError",
                          service_message=f"The HIT with UniqueRequestToken tok-1 already exists ({HIT_ID})",
                          http_status_code=400)
    stub.add_response("list_hits", {"HITs": [{"HITId": "OTHER", "RequesterAnnotation": "da:zzz"},
                                             {"HITId": HIT_ID, "RequesterAnnotation": "da:abc"}]},
                      {"MaxResults": 100})
    got = mturk.create_hit("3TYPE", url="https://da.example.org/m", settings=MTurkSettings(), token="tok-1",
                           annotation="da:abc")
    assert got == HIT_ID


@pytest.mark.parametrize("url", ["http://da.example.org/m", "https://localhost/m", "https://127.0.0.1/m",
                                 "https://10.0.0.5/m", "/mturk/start"])
def test_create_hit_refuses_urls_workers_cannot_reach(stubbed, url):
    mturk, _, _ = stubbed
    with pytest.raises(ValueError, match="DA_PUBLIC_URL"):
        mturk.create_hit("3TYPE", url=url, settings=MTurkSettings(), token="t", annotation="a")


def test_get_expire_extend_delete(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("get_hit", {"HIT": {"HITId": HIT_ID, "HITStatus": "Assignable"}}, {"HITId": HIT_ID})
    assert mturk.get_hit(HIT_ID)["HITStatus"] == "Assignable"
    stub.add_response("update_expiration_for_hit", {}, {"HITId": HIT_ID, "ExpireAt": ANY})
    mturk.expire(HIT_ID)
    later = datetime.now(timezone.utc) + timedelta(days=3)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": HIT_ID, "ExpireAt": later})
    mturk.extend(HIT_ID, later)
    stub.add_response("delete_hit", {}, {"HITId": HIT_ID})
    mturk.delete(HIT_ID)


def test_expire_sets_a_date_in_the_past():
    client = botocore.session.get_session().create_client(
        "mturk", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")
    seen = {}
    with Stubber(client) as stub:
        stub.add_response("update_expiration_for_hit", {}, None)
        client.meta.events.register("provide-client-params.mturk.UpdateExpirationForHIT",
                                    lambda params, **_: seen.update(params))
        MTurk(client).expire(HIT_ID)
    assert seen["ExpireAt"] < datetime.now(timezone.utc)


def test_list_assignments_follows_every_page(stubbed):
    mturk, stub, _ = stubbed
    params = {"HITId": HIT_ID, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"], "MaxResults": 100}
    stub.add_response("list_assignments_for_hit",
                      {"Assignments": [assignment_json()], "NextToken": "n1", "NumResults": 1}, params)
    second = {**assignment_json("Approved"), "AssignmentId": "3SECONDASSIGNMENT"}
    stub.add_response("list_assignments_for_hit", {"Assignments": [second], "NumResults": 1},
                      {**params, "NextToken": "n1"})
    got = list(mturk.list_assignments(HIT_ID))
    assert [(a.assignment_id, a.status.value, a.raw_status) for a in got] == [
        (ASSIGNMENT, "submitted", "Submitted"), ("3SECONDASSIGNMENT", "approved", "Approved")]
    assert got[0].worker_id == WORKER and got[0].work_id == HIT_ID


def test_approve(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("approve_assignment", {}, {"AssignmentId": ASSIGNMENT, "RequesterFeedback": "Thanks"})
    assert mturk.approve(ASSIGNMENT, feedback="Thanks") == "approved"


def test_approving_an_approved_assignment_counts_as_done(stubbed):
    mturk, stub, _ = stubbed
    stub.add_client_error("approve_assignment", service_error_code="RequestError",
                          service_message="This operation can be called with a status of: Submitted",
                          http_status_code=400)
    stub.add_response("get_assignment", {"Assignment": assignment_json("Approved")}, {"AssignmentId": ASSIGNMENT})
    assert mturk.approve(ASSIGNMENT) == "already approved"


def test_approve_request_error_on_a_rejected_assignment_is_reported(stubbed):
    mturk, stub, _ = stubbed
    stub.add_client_error("approve_assignment", service_error_code="RequestError",
                          service_message="This operation can be called with a status of: Submitted")
    stub.add_response("get_assignment", {"Assignment": assignment_json("Rejected")}, {"AssignmentId": ASSIGNMENT})
    with pytest.raises(MTurkRequestError, match="ApproveAssignment failed: RequestError"):
        mturk.approve(ASSIGNMENT)


def test_reject_with_feedback_and_already_rejected(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("reject_assignment", {}, {"AssignmentId": ASSIGNMENT, "RequesterFeedback": "Failed checks"})
    assert mturk.reject(ASSIGNMENT, feedback="Failed checks") == "rejected"
    stub.add_client_error("reject_assignment", service_error_code="RequestError", service_message="status")
    stub.add_response("get_assignment", {"Assignment": assignment_json("Rejected")}, {"AssignmentId": ASSIGNMENT})
    assert mturk.reject(ASSIGNMENT, feedback="Failed checks") == "already rejected"
    with pytest.raises(ValueError, match="feedback"):
        mturk.reject(ASSIGNMENT, feedback="  ")


def test_bonus_is_an_exact_string_with_a_token(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("send_bonus", {}, {"WorkerId": WORKER, "BonusAmount": "0.50", "AssignmentId": ASSIGNMENT,
                                         "Reason": "Passed quality control", "UniqueRequestToken": "bonus-1"})
    out = mturk.send_bonus(work_id=HIT_ID, worker_id=WORKER, assignment_id=ASSIGNMENT, amount=Decimal("0.5"),
                           reason="Passed quality control", token="bonus-1")
    assert out == "bonus 0.50 sent"


def test_repeated_bonus_token_is_not_paid_again(stubbed):
    mturk, stub, _ = stubbed
    stub.add_client_error("send_bonus", service_error_code="RequestError",
                          service_message="The bonus with UniqueRequestToken bonus-1 already exists")
    out = mturk.send_bonus(work_id=HIT_ID, worker_id=WORKER, assignment_id=ASSIGNMENT, amount=Decimal("0.50"),
                           reason="r", token="bonus-1")
    assert out.startswith("already paid")


def test_bonuses_paid(stubbed):
    mturk, stub, _ = stubbed
    stub.add_response("list_bonus_payments",
                      {"BonusPayments": [{"WorkerId": WORKER, "BonusAmount": "0.50", "AssignmentId": ASSIGNMENT}]},
                      {"AssignmentId": ASSIGNMENT, "MaxResults": 100})
    assert mturk.bonuses_paid(work_id=HIT_ID, assignment_id=ASSIGNMENT, worker_id=WORKER) == [Decimal("0.50")]


def test_notify_workers_in_batches_of_100(stubbed):
    mturk, stub, _ = stubbed
    workers = [f"W{i}" for i in range(150)]
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": []},
                      {"Subject": "New HITs", "MessageText": "Hello", "WorkerIds": workers[:100]})
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": [
        {"NotifyWorkersFailureCode": "HardFailure", "NotifyWorkersFailureMessage": "x", "WorkerId": "W149"}]},
        {"Subject": "New HITs", "MessageText": "Hello", "WorkerIds": workers[100:]})
    failures = mturk.notify(workers, subject="New HITs", message="Hello")
    assert [f["WorkerId"] for f in failures] == ["W149"]


@pytest.mark.parametrize("code,status", [("ServiceFault", 500), ("ThrottlingException", 400),
                                         ("Throttling", 400)])
def test_transient_errors_are_retried_with_backoff(stubbed, code, status):
    mturk, stub, sleeps = stubbed
    stub.add_client_error("get_account_balance", service_error_code=code, http_status_code=status)
    stub.add_client_error("get_account_balance", service_error_code=code, http_status_code=status)
    stub.add_response("get_account_balance", {"AvailableBalance": "5.00"}, {})
    assert mturk.balance() == Decimal("5.00")
    assert sleeps == [0.5, 1.0]


def test_retries_are_bounded_and_the_error_says_so(stubbed):
    mturk, stub, sleeps = stubbed
    for _ in range(3):
        stub.add_client_error("send_bonus", service_error_code="ServiceFault", http_status_code=500)
    with pytest.raises(RetriesExhausted, match="SendBonus still failing after 3 attempts"):
        mturk.send_bonus(work_id=HIT_ID, worker_id=WORKER, assignment_id=ASSIGNMENT, amount=Decimal("1.00"),
                         reason="r", token="bonus-2")
    assert sleeps == [0.5, 1.0]


def test_request_errors_are_not_retried(stubbed):
    mturk, stub, sleeps = stubbed
    stub.add_client_error("get_hit", service_error_code="RequestError", service_message="Hit X does not exist.")
    with pytest.raises(MTurkRequestError, match="GetHIT failed: RequestError: Hit X does not exist"):
        mturk.get_hit(HIT_ID)
    assert sleeps == []
