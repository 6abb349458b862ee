"""Attack suite: NUL bytes and control characters in ids (item 8), on SQLite and PostgreSQL.

PostgreSQL cannot store or compare a NUL in text: each of these was a 500 with a traceback in the log
(psycopg's DataError). Each is refused before the database sees it — 404 in a path, 400 in a field,
JSON for the page's script — and changes nothing.
"""
from __future__ import annotations

import pytest
from sqlalchemy import select, update

from da_platform.config.accounts import create_user
from da_platform.db.models import Campaign, Hit, Slot
from tests.admin_client import PASSWORD, csrf_token, login
from tests.web_factories import make_web_env
from tests.worker_flow import FAKE_TURK, arrive_pool, current, rate, snapshot

BAD = ["\x00", "abc\x00", "\x00' OR 1=1 --"]


@pytest.mark.parametrize("slot", BAD)
def test_a_nul_in_the_rated_slot_is_a_400_and_changes_nothing(env, slot):
    campaign = env.campaign(slots=3)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    real, _ = current(client, base)
    before = snapshot(env)
    page = rate(client, base, slot, 50, "slot")
    assert page.status_code == 400 and "nothing was saved" in page.text
    script = rate(client, base, slot, 50, "rating")
    assert script.status_code == 400 and script.is_json
    assert "nothing was saved" in script.json["error"] and script.json["resume"] == base + "slot"
    assert client.post(base + "rating", data={"slot": real, "score": "50\x00"}).status_code == 400
    assert client.post(base + "rating", data={"slot": real, "score": "50", "behaviour": "{\x00}"}).status_code == 400
    assert snapshot(env) == before
    assert rate(client, base, real, 50, "rating").status_code == 200  # the real rating still goes in


def test_the_refusal_is_in_the_workers_language(env):
    campaign = env.campaign(slots=3)
    with env.sessions() as s:
        s.execute(update(Campaign).values(settings={"worker": {"lang": "zh-Hans"}}))
        s.commit()
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    script = rate(client, base, "\x00", 50, "rating")
    assert script.status_code == 400
    assert script.json["error"] == "请求中含有文本中不能出现的字符，已被拒绝；没有保存任何内容。"
    page = rate(client, base, "\x00", 50, "slot")
    assert page.status_code == 400 and "请求无效" in page.text and 'lang="zh-Hans"' in page.text


def test_control_characters_in_a_path_id_are_a_404(env):
    campaign = env.campaign(slots=3)
    client = env.app.test_client()
    base = arrive_pool(env, client, campaign.campaign_id)
    real, _ = current(client, base)
    for bad in ("%00", "x%00", "%01", "%1b", "%7f"):
        assert client.get(f"{base}image/{bad}/candidate").status_code == 404
        assert client.get(f"{base}image/{real}{bad}/reference").status_code == 404
        assert client.get(f"/pool/{bad}").status_code == 404
        assert client.get(f"/prolific/{bad}").status_code == 404
        assert client.get(f"/a/{bad}/slot").status_code == 404
    assert client.get(f"{base}image/{real}/candidate").status_code == 200


def test_a_nul_in_the_mturk_arrival_is_a_400(env):
    env.campaign(slots=3, provider="mturk")
    with env.sessions() as s:
        hit_id = s.scalars(select(Hit.provider_hit_id)).one()
    before = snapshot(env)
    for name in ("assignmentId", "hitId", "workerId", "turkSubmitTo"):
        query = {"assignmentId": "A1", "hitId": hit_id, "workerId": "W1", "turkSubmitTo": FAKE_TURK}
        query[name] += "\x00"
        assert env.app.test_client().get("/mturk", query_string=query).status_code == 400
    assert snapshot(env) == before
    query = {"assignmentId": "A1", "hitId": hit_id, "workerId": "W1", "turkSubmitTo": FAKE_TURK}
    assert env.app.test_client().get("/mturk", query_string=query).status_code == 303


@pytest.fixture
def dashboard(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path)
    with env.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    return env


def test_a_nul_in_the_login_form_is_a_400_without_an_account(dashboard):
    client = dashboard.app.test_client()
    for username, password in (("\x00", "x"), ("ana\x00", PASSWORD), ("ana", PASSWORD + "\x00")):
        response = client.post("/admin/login", data={"csrf_token": csrf_token(client), "username": username,
                                                      "password": password})
        assert response.status_code == 400
        assert client.get("/admin/").status_code in (302, 303)  # not logged in
    assert login(client).status_code == 303  # the right name and password still log in


def test_a_nul_in_the_dashboards_preview_id_is_a_404(dashboard):
    campaign = dashboard.campaign(slots=3)
    client = dashboard.app.test_client()
    assert login(client).status_code == 303
    with dashboard.sessions() as s:
        slot = s.scalars(select(Slot.public_id).order_by(Slot.id)).first()
    prefix = f"/admin/campaigns/{campaign.campaign_id}/preview"
    for bad in ("%00", f"{slot}%00", "%0a"):
        assert client.get(f"{prefix}/{bad}/candidate.png").status_code == 404
    assert client.get(f"{prefix}?hit=0&slot=%00").status_code == 400
    assert client.get(f"{prefix}/{slot}/candidate.png").status_code == 200
