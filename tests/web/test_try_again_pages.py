"""The 503 "try again" answers of a worker page whose image store or database cannot be reached are worker
pages in the campaign's language (here zh-Hans), with JSON for the page's script, like every other refusal."""
from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.pool import NullPool

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.db.models import CampaignStatus
from da_platform.images.s3 import S3ImageStorage
from da_platform.rating.language import SHIPPED
from da_platform.simulation.showcase import make_showcase
from da_platform.web.faults import RETRY_MESSAGE, RETRY_TITLE, STORE_RETRY
from hit_builder.worker_settings import WorkerPageOptions
from tests.web_factories import WebEnv, make_web_env
from tests.worker_flow import arrive_pool, current, rate


def _chinese(message: str) -> str:
    from babel.messages.pofile import read_po

    with open(SHIPPED["zh-Hans"], "rb") as handle:
        translation = read_po(handle)[message].string
    assert translation and not re.search(r"[A-Za-z]{3,}", translation)
    return translation


class Silent:
    """A TCP endpoint that accepts every connection and never answers: an image store that hangs."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.held.append(self.socket.accept()[0])
            except OSError:  # closed
                return

    def close(self) -> None:
        self.socket.close()
        for connection in self.held:
            connection.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    endpoint = Silent()
    yield endpoint
    endpoint.close()


def _chinese_worker(env: WebEnv) -> tuple[object, str]:
    """A zh-Hans campaign built by the builder (images in ``env.storage``) and a pool worker on its first
    item: the worker's client and the assignment's base path."""
    with env.sessions() as session:
        test_set = make_showcase(session, name="zh", lang="zh-Hans")
        campaign = build_campaign(session, BuildSpec(name="zh", test_set=test_set,
                                                     worker=WorkerPageOptions(lang="zh-Hans")),
                                  storage=env.storage, processes=1)
        campaign.status = CampaignStatus.running
        session.commit()
        campaign_id = campaign.id
    client = env.app.test_client()
    return client, arrive_pool(env, client, campaign_id)


def test_an_item_whose_image_store_is_down_says_try_again_in_chinese(monkeypatch, silent, database_url, tmp_path):
    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    down = S3ImageStorage("da-images", endpoint_url=silent.url, connect_timeout=0.2, read_timeout=0.2,
                          max_attempts=1, cooldown=30)
    env = make_web_env(database_url, tmp_path, IMAGE_STORAGE=down)
    client, base = _chinese_worker(env)
    slot, page = current(client, base)
    images = re.findall(r'<img id="answer-[ab]" src="([^"]+)"', page)
    assert images
    for url in images:
        response = client.get(url)
        html = response.get_data(as_text=True)
        assert response.status_code == 503 and response.headers["Retry-After"] == "5"
        assert '<html lang="zh-Hans" dir="ltr">' in html
        assert _chinese(RETRY_TITLE) in html and _chinese(STORE_RETRY) in html
        assert STORE_RETRY not in html and "Please try again" not in html
    assert rate(client, base, slot, 60, "rating").status_code == 200  # ratings never touch the store


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_database_that_cannot_be_reached_says_try_again_in_chinese(database_url, tmp_path):
    env = make_web_env(database_url, tmp_path)
    client, base = _chinese_worker(env)
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
        assert _chinese(RETRY_TITLE) in html and _chinese(RETRY_MESSAGE) in html and RETRY_MESSAGE not in html
        answer = rate(client, base, slot, 60, "rating")  # the page's script gets JSON, in Chinese
        assert answer.status_code == 503
        assert answer.get_json() == {"error": _chinese(RETRY_MESSAGE), "resume": base + "slot"}
    finally:
        with outside.connect() as connection:
            connection.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        outside.dispose()
    assert client.get(base + "slot").status_code == 200
    assert rate(client, base, slot, 60, "rating").status_code == 200
