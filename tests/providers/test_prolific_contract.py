"""The platform's Prolific client and the fake Prolific agree with Prolific's published API shapes.

Every request the client sends and every answer the fake gives is recorded at the HTTP session (the
``requests`` library's, not the project's code) and checked against ``tests/fakes/prolific_contract.py``,
which encodes the API reference. If the fake drifted from Prolific, or the client sent a field Prolific
does not know, the end-to-end tests could pass against a Prolific that does not exist; this test fails.
"""
from __future__ import annotations

import json
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests

from da_platform.providers.base import ProviderStatus
from da_platform.providers.prolific.arrival import study_url
from da_platform.providers.prolific.client import Prolific, ProlificError
from da_platform.providers.prolific.settings import ProlificSettings
from da_platform.providers.tokens import Tokens
from tests.fakes import prolific_contract as contract
from tests.fakes.fake_prolific import create_fake_prolific
from tests.fakes.server import serve_wsgi

REJECTION = ("Your ratings did not tell the hidden checks apart: the degraded answers were rated as high as "
             "the reference answers, so we cannot use this submission.")


class RecordingSession(requests.Session):
    """A real ``requests.Session`` that keeps (method, path, query, body, status, answer) per call."""

    def __init__(self) -> None:
        super().__init__()
        self.exchanges: list[dict] = []

    def request(self, method, url, *args, json=None, params=None, **kwargs):  # type: ignore[override]
        response = super().request(method, url, *args, json=json, params=params, **kwargs)
        parts = urlsplit(response.request.url)
        self.exchanges.append({
            "method": method, "path": parts.path, "query": dict(parse_qsl(parts.query)), "body": json,
            "status": response.status_code, "answer": _decoded(response)})
        return response


def _decoded(response: requests.Response):
    try:
        return response.json() if response.content else None
    except ValueError:
        return response.text


@pytest.fixture
def fake():
    app = create_fake_prolific()
    with serve_wsgi(app) as url:
        yield app.config["PROLIFIC"], url


def test_problems_finds_what_differs():
    """The checker itself: each kind of mismatch is reported, a conforming value is not."""
    shape = contract.ENDPOINTS[0].request
    body = {"name": "n", "description": "d", "external_study_url": "https://x", "prolific_id_option": "url_parameters",
            "completion_codes": [{"code": "C", "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}],
            "total_available_places": 3, "estimated_completion_time": 10, "reward": 300}
    assert contract.problems(body, shape) == []
    assert contract.problems({**body, "reward": 3.0}, shape) == ["$.reward: expected <class 'int'>, got 3.0"]
    assert contract.problems({**body, "reward": True}, shape) == ["$.reward: expected <class 'int'>, got True"]
    assert contract.problems({**body, "prolific_id_option": "url"}, shape) == [
        "$.prolific_id_option: 'url' is not one of ['not_required', 'question', 'url_parameters']"]
    assert contract.problems({**body, "completion_code": "C"}, shape) == [
        "$.completion_code: not a field of this request"]
    assert contract.problems({k: v for k, v in body.items() if k != "name"}, shape) == ["$.name: missing"]
    assert contract.request_problems(contract.endpoint_for("POST", "/api/v1/submissions/bonus-payments/"),
                                     {"study_id": "p1", "csv_bonuses": "s1,0.505\n"}, {}) == [
        "csv_bonuses line 's1,0.505' is not '<id>,<decimal amount>'"]
    reject = contract.endpoint_for("POST", "/api/v1/submissions/s1/transition/")
    assert contract.request_problems(reject, {"action": "REJECT", "message": "too short"}, {}) == [
        "REJECT without rejection_category", "REJECT message shorter than 100 characters"]


def test_every_call_of_a_campaign_conforms_to_the_published_api(fake):
    state, url = fake
    session = RecordingSession()
    client = Prolific(state.token, base_url=url, session=session)
    settings = ProlificSettings(reward=Decimal("3.00"), estimated_minutes=15)
    body = settings.study_body(entry_url=study_url(Tokens("contract-secret"), "https://da.example.org", 7),
                               completion_code="C0MPL3TE", places=3, internal_name="da-platform campaign 7")

    study_id = client.create_study(body)
    assert client.create_study(body) == study_id  # found again by internal_name, not created twice
    client.transition_study(study_id, "PUBLISH")
    assert client.raise_places(study_id, 5) == (3, 5)  # the next wave's places: the new total is sent
    assert client.raise_places(study_id, 4) == (5, 5)  # never lowered: nothing is sent
    assert state.studies[study_id]["total_available_places"] == 5
    sessions = [state.start(study_id, pid) for pid in ("PGOOD", "PBAD", "PMEH")]
    for session_id in sessions:
        state.complete(session_id, "C0MPL3TE")

    seen = list(client.list_assignments(study_id))  # three items over two pages of the fake
    assert sorted(a.worker_id for a in seen) == ["PBAD", "PGOOD", "PMEH"]
    assert {a.work_id for a in seen} == {study_id} and {a.status for a in seen} == {ProviderStatus.submitted}
    assert client.approve(sessions[0]) == "approved"
    assert client.approve(sessions[0]) == "approved"  # idempotent on Prolific: repeated, ignored
    assert client.reject(sessions[1], feedback=REJECTION, category="FAILED_CHECK") == "rejected"
    client.send_bonus(work_id=study_id, worker_id="PGOOD", assignment_id=sessions[0], amount=Decimal("0.50"),
                      reason="bonus", token="t")
    assert client.bonuses_paid(work_id=study_id, assignment_id=sessions[0], worker_id="PGOOD") == [Decimal("0.50")]
    detail = client.get_assignment(sessions[2])
    assert (detail.worker_id, detail.work_id, detail.raw_status) == ("PMEH", study_id, "AWAITING REVIEW")
    with pytest.raises(ProlificError):
        client.get_assignment("no-such-submission")

    called = {contract.endpoint_for(e["method"], e["path"]).name for e in session.exchanges}
    assert called == {e.name for e in contract.ENDPOINTS}, "every endpoint in the contract was exercised"
    found = []
    for exchange in session.exchanges:
        endpoint = contract.endpoint_for(exchange["method"], exchange["path"])
        where = f"{exchange['method']} {exchange['path']}"
        found += [f"request {where}: {p}" for p in
                  contract.request_problems(endpoint, exchange["body"], exchange["query"])]
        found += [f"response {where}: {p}" for p in
                  contract.response_problems(endpoint, exchange["status"], exchange["answer"])]
    assert found == [], json.dumps(found, indent=1)
    assert any(e["status"] == 404 for e in session.exchanges)  # the error shape was checked too


def test_raising_places_is_retried_because_the_total_is_idempotent(fake):
    """A PATCH that reached Prolific but answered 502 is sent again: the same total, so the places are raised once
    (5 after 3, not 7), where a bonus payment in the same situation is never repeated."""
    from tests.fakes.mturk_requester import Fault

    state, url = fake
    client = Prolific(state.token, base_url=url, sleep=lambda _: None)
    body = ProlificSettings().study_body(entry_url=study_url(Tokens("contract-secret"), "https://da.example.org", 8),
                                         completion_code="C0DE", places=3, internal_name="da-platform campaign 8")
    study_id = client.create_study(body)
    client.transition_study(study_id, "PUBLISH")
    state.inject("update_study", Fault("ServiceFault", 502, after_apply=True))
    assert client.raise_places(study_id, 5) == (3, 5)
    assert state.calls.count("update_study") == 2 and state.studies[study_id]["total_available_places"] == 5
    with pytest.raises(ProlificError) as lowered:  # Prolific only increases a published study's places
        client.request("PATCH", f"/api/v1/studies/{study_id}/", json={"total_available_places": 4})
    assert lowered.value.status == 400 and state.studies[study_id]["total_available_places"] == 5


def test_the_fake_refuses_what_prolific_refuses(fake):
    """The fake's refusals answer in Prolific's error shape (a request the contract also rejects)."""
    state, url = fake
    session = RecordingSession()
    client = Prolific(state.token, base_url=url, session=session)
    with pytest.raises(ProlificError) as refused:
        client.request("POST", "/api/v1/studies/", json={"name": "only a name"}, retry_unsafe=False)
    assert refused.value.status == 400
    (exchange,) = session.exchanges
    endpoint = contract.endpoint_for("POST", "/api/v1/studies/")
    assert "$.description: missing" in " ".join(contract.problems(exchange["body"], endpoint.request))
    assert contract.response_problems(endpoint, exchange["status"], exchange["answer"]) == []
