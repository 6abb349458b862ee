"""The worker pages' language is said where a researcher looks after building, not only by `campaign preview`:
build's summary, `inspect` and the dashboard's campaign page."""
from __future__ import annotations

from sqlalchemy import select

from da_platform.db.models import Campaign
from tests.admin_client import login
from tests.factories import make_test_set
from tests.web_factories import make_web_env


def test_build_inspect_and_the_campaign_page_say_the_worker_pages_language(run, sessions, database_url, tmp_path):
    with sessions() as session:
        make_test_set(session, name="zh set", questions=20, chinese=20)
        session.commit()
    result = run("build", "--test-set", "zh set", "--name", "zh", "--lang", "zh-Hans", "--crowd", "pool",
                 "--processes", "1")
    assert result.exit_code == 0, result.output
    said = "worker pages in zh-Hans (shipped catalogue)"
    assert f"{said} (--lang; `da-platform campaign preview zh` shows a slot as workers see it)" in result.output
    result = run("inspect", "zh")
    assert result.exit_code == 0 and f"\n{said}\n" in result.output
    env = make_web_env(database_url, tmp_path)
    with env.sessions.begin() as session:
        from da_platform.config.accounts import create_user
        from tests.admin_client import PASSWORD

        create_user(session, "ana", PASSWORD)
        campaign_id = session.scalar(select(Campaign.id))
    client = env.app.test_client()
    login(client)
    assert f'<span id="worker-language">{said}</span>' in client.get(f"/admin/campaigns/{campaign_id}").text
    # Without --lang: English, said as well.
    result = run("build", "--test-set", "zh set", "--name", "en", "--crowd", "pool", "--processes", "1")
    assert "worker pages in en (shipped catalogue) (--lang;" in result.output
