"""Attack suite, a failing image store (item 3): an S3-compatible store that is stopped (moto's server,
real HTTP through boto3) or that accepts connections and never answers. Each image request is then a
503 "try again" within seconds (a worker page in the campaign's language), the store is not tried again
for a few seconds after, and ratings go on (they never touch the store). Before: boto3's 60 s timeouts,
retried, held a server thread for minutes per image, and a refused connection was a 500. The database plays
no part here: SQLite only.
"""
from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from da_platform.images import s3 as s3_storage
from da_platform.images.s3 import S3ImageStorage
from da_platform.web.faults import RETRY_TITLE, STORE_RETRY
from hit_builder.storage import LocalImageStorage, StoreUnavailable
from tests.web_factories import WebEnv, make_campaign, make_web_env
from tests.worker_flow import arrive_pool, chinese, chinese_worker, current, rate

BUCKET = "da-images"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)


class Silent:
    """A TCP endpoint that accepts every connection and never answers (a hung store); counts them."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:  # closed
                return
            self.held.append(connection)

    @property
    def connections(self) -> int:
        return len(self.held)

    def close(self) -> None:
        self.socket.close()
        for connection in self.held:
            connection.close()


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    from da_platform.db.engine import upgrade

    url = f"sqlite:///{tmp_path / 'store-faults.sqlite'}"
    upgrade(url)
    return url


@pytest.fixture
def silent() -> Iterator[Silent]:
    endpoint = Silent()
    yield endpoint
    endpoint.close()


def _worker_on_s3(database_url: str, tmp_path: Path, endpoint: str, **config) -> tuple[WebEnv, object, str, list[str]]:
    """The app with its images in the S3 store at ``endpoint`` (the production configuration unless
    ``IMAGE_STORAGE`` is given); a campaign whose keys are stored in the database; a pool worker on its
    first item: the app, the worker's client, the assignment's base path and the item's image URLs."""
    env = make_web_env(database_url, tmp_path, IMAGE_STORE="s3", S3_BUCKET=BUCKET, S3_ENDPOINT_URL=endpoint,
                       S3_PREFIX="faults/", **config)
    with env.sessions() as session:  # the same content keys whatever the store; the images are put
        made = make_campaign(session, LocalImageStorage(tmp_path / "source"), slots=3)
    client = env.app.test_client()
    base = arrive_pool(env, client, made.campaign_id)
    _, page = current(client, base)
    return env, client, base, re.findall(r'<img id="answer-[ab]" src="([^"]+)"', page)


def _try_again(response) -> bool:
    return (response.status_code == 503 and response.headers.get("Retry-After") == "5"
            and "try" in response.text.lower() and "Traceback" not in response.text)


@pytest.mark.slow
def test_a_stopped_store_is_a_503_and_ratings_go_on(aws, database_url, tmp_path):
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    boto3.session.Session().client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
    try:
        env, client, base, images = _worker_on_s3(database_url, tmp_path, endpoint)
        store = env.app.extensions["da_platform"].storage
        for png in (LocalImageStorage(tmp_path / "source").read(k) for k in _keys(tmp_path / "source")):
            store.put(png)
        assert all(client.get(url).status_code == 200 for url in images)
        server.stop()  # connections are refused from now on
        assert all(_try_again(client.get(url)) for url in images)
        slot, _ = current(client, base)
        rated = rate(client, base, slot, 60, "rating")  # the rating path needs no store
        assert rated.status_code == 200 and "screen" in rated.json
        next_images = [rated.json["screen"][k] for k in ("reference_image", "candidate_image")]
        assert all(_try_again(client.get(url)) for url in next_images)
        server = ThreadedMotoServer(ip_address=host, port=port, verbose=False)  # back (moto keeps the objects)
        server.start()
        time.sleep(s3_storage.COOLDOWN + 0.5)  # the store is left alone for a few seconds after a fault
        assert all(client.get(url).status_code == 200 for url in next_images)
    finally:
        server.stop()


def _keys(folder: Path) -> list[str]:
    return [path.stem for path in folder.glob("*/*.png")]


@pytest.mark.slow
def test_a_hanging_store_holds_an_image_request_for_seconds_then_is_left_alone(aws, silent, database_url,
                                                                               tmp_path):
    env, client, base, images = _worker_on_s3(database_url, tmp_path, silent.url)
    started = time.monotonic()
    assert _try_again(client.get(images[0]))
    waited = time.monotonic() - started
    # Short timeouts, and one retry: a hung store costs seconds (boto3's defaults: minutes, 5 tries).
    assert silent.connections <= s3_storage.MAX_ATTEMPTS
    assert waited < 3 * s3_storage.MAX_ATTEMPTS * (s3_storage.CONNECT_TIMEOUT + s3_storage.READ_TIMEOUT)
    tried = silent.connections
    for url in images * 5:  # the next requests fail at once: the store is not tried again yet
        assert _try_again(client.get(url))
    assert silent.connections == tried
    slot, _ = current(client, base)
    assert rate(client, base, slot, 70, "rating").status_code == 200  # ratings go on


def test_after_the_cooldown_one_request_probes_the_store(aws, silent, database_url, tmp_path):
    storage = S3ImageStorage(BUCKET, endpoint_url=silent.url, prefix="faults/", connect_timeout=0.2,
                             read_timeout=0.2, max_attempts=1, cooldown=0.5)
    _env, client, _base, images = _worker_on_s3(database_url, tmp_path, silent.url, IMAGE_STORAGE=storage)
    assert _try_again(client.get(images[0])) and silent.connections == 1
    assert _try_again(client.get(images[1])) and silent.connections == 1  # within the cooldown
    time.sleep(0.6)
    assert _try_again(client.get(images[1])) and silent.connections == 2  # one probe, which fails
    assert _try_again(client.get(images[0])) and silent.connections == 2  # and the cooldown starts again
    with pytest.raises(StoreUnavailable, match="not tried again yet"):
        storage.read(_keys(tmp_path / "source")[0])


def test_an_item_whose_image_store_is_down_says_try_again_in_chinese(aws, silent, database_url, tmp_path):
    """The 503 is a worker page in the campaign's language (here zh-Hans), as every refusal is."""
    down = S3ImageStorage(BUCKET, endpoint_url=silent.url, connect_timeout=0.2, read_timeout=0.2, max_attempts=1,
                          cooldown=30)
    env = make_web_env(database_url, tmp_path, IMAGE_STORAGE=down)
    client, base = chinese_worker(env)
    slot, page = current(client, base)
    images = re.findall(r'<img id="answer-[ab]" src="([^"]+)"', page)
    assert len(images) == 2
    for url in images:
        response = client.get(url)
        html = response.get_data(as_text=True)
        assert response.status_code == 503 and response.headers["Retry-After"] == "5"
        assert '<html lang="zh-Hans" dir="ltr">' in html and "Traceback" not in html
        assert chinese(RETRY_TITLE) in html and chinese(STORE_RETRY) in html
        assert RETRY_TITLE not in html and STORE_RETRY not in html
    assert rate(client, base, slot, 60, "rating").status_code == 200  # ratings never touch the store
