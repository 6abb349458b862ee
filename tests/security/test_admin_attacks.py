"""Attack suite, researchers' side: stolen sessions, password spraying, URLs, double submits, faults.

On SQLite and PostgreSQL (the database restart case needs a server, so PostgreSQL only).
"""
from __future__ import annotations

import re

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.pool import NullPool

from da_platform.config.accounts import create_user, set_password
from da_platform.db.models import ReviewDecision
from da_platform.web.admin.auth import LoginThrottle
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD, csrf_token, login
from tests.web_factories import make_web_env


@pytest.fixture
def env(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path)
    with env.sessions.begin() as session:
        for name in ("ana", "bea"):
            create_user(session, name, PASSWORD)
    return env


def _stolen_copy(env, client):
    """Another client holding a copy of ``client``'s session cookie (as a thief would)."""
    thief = env.app.test_client()
    cookie = client.get_cookie("da_admin")
    thief.set_cookie(cookie.key, cookie.value, domain=cookie.domain)
    return thief


@pytest.mark.parametrize("revoke", ["logout", "set-password"])
def test_a_copied_session_cookie_stops_working(env, revoke):
    """Item 9: logout and a new password end every session opened before, copies included."""
    client = env.app.test_client()
    assert login(client).status_code == 303
    thief = _stolen_copy(env, client)
    other = env.app.test_client()  # a second session of another user is not affected
    assert login(other, "bea").status_code == 303
    assert thief.get("/admin/").status_code == 200
    if revoke == "logout":
        assert client.post("/admin/logout", data={"csrf_token": csrf_token(client, "/admin/")}).status_code == 303
    else:
        with env.sessions.begin() as session:
            set_password(session, "ana", "another long password")
    assert thief.get("/admin/").status_code == 302
    assert client.get("/admin/").status_code == 302
    assert other.get("/admin/").status_code == 200
    assert login(client, password=PASSWORD if revoke == "logout" else "another long password").status_code == 303
    assert client.get("/admin/").status_code == 200 and thief.get("/admin/").status_code == 302


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the throttle keeps no state in the database
def test_password_spraying_across_user_names_is_throttled(env):
    """Item 12: one address trying many user names is limited (default 20 a minute; 6 here), not only
    per user name (5)."""
    env.app.extensions["da_admin_login_throttle"] = LoginThrottle("5 per minute", "memory://", "6 per minute")
    client = env.app.test_client()
    for i in range(6):
        assert login(client, f"user{i}", "Winter2026!").status_code == 401
    sprayed = login(client, "ana")  # the right password, but the address has used its budget
    assert sprayed.status_code == 429 and "Too many login attempts" in sprayed.text
    assert client.get("/admin/").status_code == 302


def test_an_id_too_large_for_the_database_is_a_404(env):
    """Item 10: a 23-digit id in a URL is not a 500 (integer overflow in the driver)."""
    client = env.app.test_client()
    login(client)
    for path in ("/admin/campaigns/{big}", "/admin/campaigns/{big}/workers", "/admin/campaigns/1/workers/{big}",
                 "/admin/campaigns/{big}/pvalues.png", "/admin/campaigns/{big}/export/bundle"):
        for big in ("1" * 23, str(2**63), str(2**31)):
            assert client.get(path.format(big=big)).status_code == 404, path
        assert client.get(path.format(big=str(2**31 - 1))).status_code == 404, path  # the largest id: no such row


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the web layer's limit
def test_oversized_admin_posts_are_refused_with_413(env):
    """Item 5: the dashboard's forms are limited too."""
    client = env.app.test_client()
    for endpoint in ("/admin/login", "/admin/logout"):
        response = client.post(endpoint, data={"username": "ana", "password": "x" * 200_000})
        assert response.status_code == 413 and "too large" in response.text
        fields = client.post(endpoint, data={f"f{i}": "1" for i in range(5000)})
        assert fields.status_code == 413


def test_approve_and_use_sent_twice_is_recorded_once(env):
    """Item 11: the same confirmation form sent twice answers 'already recorded' the second time."""
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, passes=2)
        workers = factories.three_workers(session, campaign)
        campaign_id = campaign.id
    client = env.app.test_client()
    login(client)
    url = f"/admin/campaigns/{campaign_id}/workers/{workers['careful']}/decide"
    confirm = client.get(f"{url}?action=approve_use")
    assert confirm.status_code == 200
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                           confirm.text.split('method="post" action="' + url)[1]))
    data = {**form, "reason": "good work", "confirm": "yes"}
    assert client.post(url, data=data).status_code == 303
    with env.sessions() as session:
        before = session.execute(select(ReviewDecision.action, ReviewDecision.assignment_id)).all()
    twice = client.post(url, data=data)
    assert twice.status_code == 409 and "Already recorded" in twice.text
    with env.sessions() as session:
        assert session.execute(select(ReviewDecision.action, ReviewDecision.assignment_id)).all() == before
        assert session.scalar(select(func.count(ReviewDecision.id))) == 1


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_the_dashboard_after_a_database_restart_says_try_again(env, database_url):
    """Item 10: the first page after the server dropped our connections is a 503 'try again' page
    (not a 500 from rendering it with the broken session); the next one works."""
    client = env.app.test_client()
    login(client)
    assert client.get("/admin/").status_code == 200
    outside = create_engine(database_url, poolclass=NullPool)
    with outside.connect() as connection:
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar_one()
    outside.dispose()
    assert dropped >= 1
    page = client.get("/admin/")
    assert page.status_code == 503 and "Please try again" in page.text and "Nothing was lost" in page.text
    assert client.get("/admin/").status_code == 200
