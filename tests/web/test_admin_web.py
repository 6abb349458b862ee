"""The dashboard over the Flask test client: access control, CSRF, rate limiting, pages, decisions.

Campaigns are built by the real builder and rated through the worker flow (tests/dashboard_factories.py).
"""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from da_platform.config.accounts import create_user
from da_platform.db.engine import upgrade
from da_platform.db.models import Assignment, AssignmentStatus, AuditLog, Campaign, ReviewDecision, Worker, utcnow
from da_platform.providers.idempotency import request_token
from da_platform.web.admin.auth import LoginThrottle
from tests import dashboard_factories as factories
from tests.admin_client import PASSWORD, csrf_token, login
from tests.web_factories import make_web_env

PAGES = ["/admin/", "/admin/campaigns/1", "/admin/campaigns/1/pvalues.png", "/admin/campaigns/1/workers",
         "/admin/campaigns/1/workers/1", "/admin/campaigns/1/workers/1/scatter.png",
         "/admin/campaigns/1/workers/1/decide?action=reject", "/admin/campaigns/1/export/bundle"]


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """One app on one SQLite database for the access tests (they do not depend on the database)."""
    folder = tmp_path_factory.mktemp("admin-access")
    url = f"sqlite:///{folder / 'access.sqlite'}"
    upgrade(url)
    env = make_web_env(url, folder)
    with env.sessions.begin() as session:
        for name in ("ana", "rita", "bea", "cleo"):
            create_user(session, name, PASSWORD)
    return env


@pytest.fixture(autouse=True)
def no_login_attempts_counted(request):
    """The shared ``plain`` app starts every test with a fresh login throttle (so no test depends on
    which logins ran before it, e.g. when one is run again within the minute)."""
    if "plain" in request.fixturenames:
        app = request.getfixturevalue("plain").app
        app.extensions["da_admin_login_throttle"] = LoginThrottle(
            app.config["ADMIN_LOGIN_LIMIT"], app.config["ADMIN_RATELIMIT_STORAGE_URI"])


# -- access --------------------------------------------------------------------------------------

def test_every_admin_page_redirects_to_login_without_a_session(plain):
    client = plain.app.test_client()
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response.headers["Location"].startswith("/admin/login?next=")
        assert path.split("?")[0] in response.headers["Location"].replace("%2F", "/")


def test_login_with_the_right_password_goes_to_next_and_sets_a_safe_cookie(plain):
    client = plain.app.test_client()
    response = login(client, next_="/admin/campaigns/7")
    assert response.status_code == 303 and response.headers["Location"] == "/admin/campaigns/7"
    cookies = {c.split("=", 1)[0]: c for c in response.headers.getlist("Set-Cookie")}
    cookie = cookies["da_admin"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    device = cookies["da_admin_device"]  # the browser is known to the login throttle from now on
    assert "HttpOnly" in device and "SameSite=Strict" in device and "Path=/admin" in device
    assert client.get("/admin/").status_code == 200
    logout = client.post("/admin/logout", data={"csrf_token": csrf_token(client, "/admin/")})
    assert logout.status_code == 303
    assert client.get("/admin/").status_code == 302


def test_the_cookie_is_secure_when_the_public_url_is_https(plain, tmp_path):
    env = make_web_env(plain.app.config["DATABASE_URL"], tmp_path, PUBLIC_URL="https://da.example.org")
    client = env.app.test_client()
    page = client.get("/admin/login", base_url="https://da.example.org")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    response = client.post("/admin/login", data={"csrf_token": token, "username": "ana", "password": PASSWORD},
                           base_url="https://da.example.org", headers={"Referer": "https://da.example.org/admin/login"})
    assert response.status_code == 303
    assert "Secure" in response.headers["Set-Cookie"]


def test_next_must_be_a_local_path(plain):
    targets = ("//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "admin",
               "/admin/\r\nX: y")
    for i, target in enumerate(targets):  # 3 logins per user name, within the rate limit
        response = login(plain.app.test_client(), name=("bea", "cleo")[i % 2], next_=target)
        assert response.status_code == 303 and response.headers["Location"] == "/admin/", target


def test_wrong_password_or_user_is_refused_without_saying_which(plain):
    client = plain.app.test_client()
    wrong_password, no_user = login(client, password="not the password"), login(client, name="nobody")
    assert wrong_password.status_code == no_user.status_code == 401
    assert "Wrong user name or password." in wrong_password.text and "Wrong user name or password." in no_user.text
    assert client.get("/admin/").status_code == 302


def test_login_attempts_are_rate_limited_per_address_and_user(plain):
    client = plain.app.test_client()
    for _ in range(5):
        assert login(client, name="rita", password="guess").status_code == 401
    blocked = login(client, name="rita")  # even the right password, within the minute
    assert blocked.status_code == 429 and "Too many login attempts" in blocked.text
    assert client.get("/admin/").status_code == 302
    assert login(client, name="nobody", password="guess").status_code == 401  # another user name: own budget


def test_a_post_without_csrf_token_is_refused_and_changes_nothing(rated):
    client = rated.app.test_client()
    assert client.post("/admin/login", data={"username": "ana", "password": PASSWORD}).status_code == 400
    assert client.get("/admin/").status_code == 302  # not logged in
    login(client)
    worker = rated.workers["careless"]
    url = f"/admin/campaigns/{rated.campaign_id}/workers/{worker}/decide"
    refused = client.post(url, data={"action": "reject", "reason": "bad", "confirm": "yes", "nonce": "n"})
    assert refused.status_code == 400 and "Nothing was changed" in refused.text
    forged = client.post(url, data={"action": "reject", "reason": "bad", "confirm": "yes", "nonce": "n",
                                    "csrf_token": "forged"})
    assert forged.status_code == 400
    assert client.post("/admin/logout").status_code == 400
    assert client.get("/admin/").status_code == 200  # still logged in
    with rated.sessions() as session:
        assert session.scalar(select(func.count(ReviewDecision.id))) == 0
        assert session.scalar(select(func.count(AuditLog.id))) == 0


# -- pages ---------------------------------------------------------------------------------------

def _campaign_page_shows_progress_ranking_and_planning_escaped(rated, client):
    page = client.get(f"/admin/campaigns/{rated.campaign_id}")
    assert page.status_code == 200
    html = page.text
    assert "unfinished: 3 of 4 HITs done" in html
    cards = re.findall(r'<span class="big">(\d+)</span>', html)
    assert cards == ["3", "0", "1", "300"]
    names = re.findall(r"<tr[^>]*>\s*<td class=\"num\">\d+</td><td>([^<]*)</td>",
                       html.split('id="ranking-table"')[1].split("</table>")[0])
    assert names == ["strong", "good", "&lt;script&gt;alert(1)&lt;/script&gt;", "weak"]
    assert "<script>" not in html and "<img src=x" not in html
    assert 'id="planning-table"' in html and 'id="heatmap"' in html
    assert re.search(r'<p id="rehearsal">Rehearse before paying: <code>da-platform simulate dash</code> runs', html)
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    png = client.get(f"/admin/campaigns/{rated.campaign_id}/pvalues.png")
    assert png.status_code == 200 and png.data.startswith(b"\x89PNG")
    bundle_link = re.search(r'href="([^"]+)" id="export-bundle"', html).group(1).replace("&amp;", "&")
    assert bundle_link.endswith("/export/bundle?partial=1")  # the campaign is unfinished
    bundle = client.get(bundle_link)
    assert bundle.status_code == 200 and bundle.mimetype == "application/zip"
    assert "dash-partial-bundle.zip" in bundle.headers["Content-Disposition"]
    refused = client.get(f"/admin/campaigns/{rated.campaign_id}/export/ranking?format=json")
    assert refused.status_code == 409 and "unfinished: 3 of 4 HITs done" in refused.text


def _workers_page_lists_qc_and_flags_the_careless_worker(rated, client):
    html = client.get(f"/admin/campaigns/{rated.campaign_id}/workers").text
    rows = {re.search(r'workers/\d+">([^<]*)</a>', row).group(1): row
            for row in html.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]}
    assert set(rows) == {"careful", "careless", "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"}
    assert ">passed<" in rows["careful"] and ">failed<" in rows["careless"]
    assert "QC failed" in rows["careless"]
    assert "<img src=x" not in html


def _worker_page_shows_plots_pairs_and_the_policy_recommendation(rated, client):
    worker = rated.workers[factories.IMG]
    html = client.get(f"/admin/campaigns/{rated.campaign_id}/workers/{worker}").text
    assert "<img src=x" not in html and "<script>alert" not in html
    pairs = html.split('id="pairs-table"')[1].split("</table>")[0]
    assert ("<td>Why &lt;script&gt;alert(1)&lt;/script&gt; and "
            "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;?</td>") in pairs
    assert pairs.count(" &#34;&gt;&lt;img src=x onerror=alert(1)&gt;</td>") >= 10  # original answers
    assert 'id="recommendation">approve and use the data' in html
    assert html.count('id="action-') == 5
    for kind in ("scatter", "timeline"):
        png = client.get(f"/admin/campaigns/{rated.campaign_id}/workers/{worker}/{kind}.png")
        assert png.status_code == 200 and png.data.startswith(b"\x89PNG")


@pytest.mark.slow
def test_pages_of_a_rated_campaign(rated):
    """Campaign, workers and worker pages: numbers, order, QC, plots, and every payload escaped."""
    client = rated.app.test_client()
    login(client)
    _campaign_page_shows_progress_ranking_and_planning_escaped(rated, client)
    _workers_page_lists_qc_and_flags_the_careless_worker(rated, client)
    _worker_page_shows_plots_pairs_and_the_policy_recommendation(rated, client)


def _decide(client, rated, worker: str, action: str, reason: str, **extra):
    url = f"/admin/campaigns/{rated.campaign_id}/workers/{rated.workers[worker]}/decide"
    query = "&".join(f"{k}={v}" for k, v in {"action": action, **extra}.items())
    confirm = client.get(f"{url}?{query}")
    assert confirm.status_code == 200, confirm.text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                             confirm.text.split('method="post" action="' + url)[1]))
    return client.post(url, data={**fields, "reason": reason, "confirm": "yes"})


def test_approve_but_exclude_removes_the_workers_data_and_is_recorded(rated):
    client = rated.app.test_client()
    login(client)
    before = client.get(f"/admin/campaigns/{rated.campaign_id}").text
    response = _decide(client, rated, "careful", "approve_exclude", "too fast on long answers")
    assert response.status_code == 303
    with rated.sessions() as session:
        decision = session.scalars(select(ReviewDecision)).one()
        assert (decision.action, decision.use_data, decision.status, decision.reason) == (
            "approve", False, "done", "too fast on long answers")
        assignment = session.get(Assignment, decision.assignment_id)
        assert assignment.status is AssignmentStatus.approved
        campaign = session.get(Campaign, rated.campaign_id)
        assert decision.request_token == request_token("pool-approve", campaign.id, assignment.public_id)
        actors = session.scalars(select(AuditLog.actor).order_by(AuditLog.id)).all()
        assert actors == ["da-platform", "admin:ana"]
    after = client.get(f"/admin/campaigns/{rated.campaign_id}").text
    assert before != after and "minus 1 excluded by a decision" in after
    assert 'id="exclusions"' in after and "excluded by a review decision (too fast on long answers)" in after

    def total_n(html: str) -> int:
        return sum(int(n) for n in re.findall(r'<td class="num">(\d+)</td><td class="num">\d+</td>\s*'
                                              r'<td class="num">\d+</td><td class="num">\d+–', html))

    assert total_n(after) < total_n(before)
    # the assignment is decided: a second approve only records the data decision
    again = _decide(client, rated, "careful", "approve_use", "on second thoughts, keep")
    assert again.status_code == 303
    with rated.sessions() as session:
        actions = session.scalars(select(ReviewDecision.action).order_by(ReviewDecision.id)).all()
        assert actions == ["approve", "use_data"]
    assert "minus 1 excluded" not in client.get(f"/admin/campaigns/{rated.campaign_id}").text


def test_reject_block_and_bonus_for_an_own_pool_worker_each_confirmed_once(rated):
    client = rated.app.test_client()
    login(client)
    assert _decide(client, rated, "careless", "reject", "random scores").status_code == 303
    assert _decide(client, rated, "careless", "block", "random scores").status_code == 303
    url = f"/admin/campaigns/{rated.campaign_id}/workers/{rated.workers['careless']}/decide"
    assert client.get(f"{url}?action=block").status_code == 409  # blocked already
    assert client.get(f"{url}?action=reject").status_code == 409  # nothing left to reject
    assert client.get(f"/admin/campaigns/{rated.campaign_id}/workers/{rated.workers['careful']}/decide"
                      "?action=bonus&amount=0.333").status_code == 409
    assert _decide(client, rated, "careful", "bonus", "careful work", amount="0.50").status_code == 303
    with rated.sessions() as session:
        rows = session.execute(select(ReviewDecision.action, ReviewDecision.amount, ReviewDecision.status)
                               .order_by(ReviewDecision.id)).all()
        assert rows == [("reject", None, "done"), ("block", None, "done"), ("bonus", "0.50", "done")]
        assert session.get(Worker, rated.workers["careless"]).blocked
    # a decision needs confirmation and a reason, and the same form sent twice records it once
    url = f"/admin/campaigns/{rated.campaign_id}/workers/{rated.workers['careful']}/decide"
    token = csrf_token(client, f"{url}?action=bonus&amount=1.00")
    base = {"csrf_token": token, "action": "bonus", "amount": "1.00", "nonce": "abc"}
    assert client.post(url, data={**base, "reason": "good"}).status_code == 409  # not confirmed
    assert client.post(url, data={**base, "reason": " ", "confirm": "yes"}).status_code == 409  # no reason
    assert client.post(url, data={**base, "reason": "good", "confirm": "yes"}).status_code == 303
    twice = client.post(url, data={**base, "reason": "good", "confirm": "yes"})
    assert twice.status_code == 409 and "recorded already" in twice.text
    with rated.sessions() as session:
        assert session.scalar(select(func.count(ReviewDecision.id))) == 4


def test_pages_stay_up_while_a_hit_is_half_rated(rated):
    """A worker in the middle of a HIT: progress counts it, no page fails (its checks may lack originals)."""
    with rated.sessions() as session:
        campaign = session.get(Campaign, rated.campaign_id)
        # Started a few minutes ago: well within the pool's time limit, so still in progress.
        factories.rate_hit(session, campaign, 3, "midway", slots=30, start=utcnow() - timedelta(minutes=5))
        midway = session.scalar(select(Worker.id).where(Worker.external_id == "midway"))
    client = rated.app.test_client()
    login(client)
    html = client.get(f"/admin/campaigns/{rated.campaign_id}").text
    assert re.findall(r'<span class="big">(\d+)</span>', html) == ["3", "1", "0", "330"]
    assert "unfinished: 3 of 4 HITs done" in html
    base = f"/admin/campaigns/{rated.campaign_id}"
    for path in (f"{base}/workers", f"{base}/workers/{midway}", f"{base}/workers/{midway}/timeline.png"):
        assert client.get(path).status_code == 200, path
    assert ">midway</a>" in client.get(f"{base}/workers").text


def test_dashboard_pages_may_not_be_framed_while_worker_pages_may_by_mturk(plain):
    client = plain.app.test_client()
    for path in ("/admin/login", "/admin/"):
        response = client.get(path)
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Frame-Options"] == "DENY"
    worker_page = client.get("/pool/not-a-valid-invite")  # an error page of the worker blueprint
    assert "frame-ancestors 'self' https://www.mturk.com" in worker_page.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in worker_page.headers
