"""The 503 "try again" answers of a worker page whose database cannot be reached are worker pages in the
campaign's language (here zh-Hans), with JSON for the page's script, like every other refusal (the image store's:
tests/security/test_store_faults.py)."""
from __future__ import annotations

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.pool import NullPool

from da_platform.web.faults import RETRY_MESSAGE, RETRY_TITLE
from tests.web_factories import make_web_env
from tests.worker_flow import chinese, chinese_worker, current, rate


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_database_that_cannot_be_reached_says_try_again_in_chinese(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path)
    client, base = chinese_worker(env)
    slot, _ = current(client, base)
    name = make_url(database_url).database
    outside = create_engine(make_url(database_url).set(database="postgres"), poolclass=NullPool,
                            isolation_level="AUTOCOMMIT")
    try:
        with outside.connect() as connection:  # the server refuses new connections and drops ours
            connection.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            connection.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name})
        page = client.get(base + "slot")
        html = page.get_data(as_text=True)
        assert page.status_code == 503 and page.headers["Retry-After"] == "5"
        assert '<html lang="zh-Hans" dir="ltr">' in html
        assert chinese(RETRY_TITLE) in html and chinese(RETRY_MESSAGE) in html and RETRY_MESSAGE not in html
        answer = rate(client, base, slot, 60, "rating")  # the page's script gets JSON, in Chinese
        assert answer.status_code == 503
        assert answer.get_json() == {"error": chinese(RETRY_MESSAGE), "resume": base + "slot"}
    finally:
        with outside.connect() as connection:
            connection.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        outside.dispose()
    assert client.get(base + "slot").status_code == 200
    assert rate(client, base, slot, 60, "rating").status_code == 200
