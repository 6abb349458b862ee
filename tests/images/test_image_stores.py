"""The three image stores (folder, database, S3) behind one interface; the build writes through the
configured one and the worker pages serve from it, with nothing on the app server's disk.

The S3 store runs against moto's S3-compatible server on 127.0.0.1 (real HTTP through boto3).
"""
from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import pytest
from click.testing import CliRunner
from PIL import Image
from sqlalchemy import delete, func, select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.cli import main
from da_platform.config.settings import Settings, SettingsError
from da_platform.db.engine import make_engine, session_factory, transaction, upgrade
from da_platform.db.models import Campaign, Hit, ImageBlob, Slot
from da_platform.images.database import DatabaseImageStorage
from da_platform.images.s3 import S3ImageStorage
from da_platform.images.store import ImageStoreError, open_image_storage
from da_platform.providers.pool.arrival import mint_invites
from da_platform.simulation.sample import import_sample
from hit_builder.storage import ImageStorage, LocalImageStorage, content_key
from tests.web_factories import make_campaign, make_web_env, png

BUCKET = "da-images"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """An S3-compatible server (moto) on 127.0.0.1, with the bucket made."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                            "AWS_DEFAULT_REGION": "us-east-1"}.items():
            patch.setenv(name, value)
        boto3.session.Session().client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
        yield endpoint
    server.stop()


def objects(endpoint: str, prefix: str) -> list[str]:
    pages = boto3.session.Session().client("s3", endpoint_url=endpoint).get_paginator("list_objects_v2")
    return [o["Key"] for page in pages.paginate(Bucket=BUCKET, Prefix=prefix) for o in page.get("Contents", [])]


def check_contract(storage: ImageStorage) -> None:
    """What every store promises: content keys, one copy per image, KeyError for anything else."""
    assert isinstance(storage, ImageStorage)
    first, second = png(1), png(2)
    key = storage.put(first)
    assert key == content_key(first) and storage.put(first) == key
    assert storage.read(key) == first and storage.exists(key)
    keys = storage.put_many([second, first, second])
    assert keys == [content_key(second), key, content_key(second)]
    assert storage.read(keys[0]) == second
    missing = content_key(b"never stored")
    assert not storage.exists(missing)
    for bad in (missing, "../../etc/passwd", "A" * 64, key[:-1]):
        with pytest.raises(KeyError):
            storage.read(bad)


def test_folder_store(tmp_path: Path) -> None:
    check_contract(LocalImageStorage(tmp_path))


def test_database_store(database_url: str) -> None:
    storage = DatabaseImageStorage(database_url)
    check_contract(storage)
    engine = make_engine(database_url)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(ImageBlob)) == 2  # each image once
    engine.dispose()


def test_s3_store(s3_endpoint: str) -> None:
    storage = S3ImageStorage(BUCKET, endpoint_url=s3_endpoint, prefix="contract/")
    check_contract(storage)
    assert sorted(objects(s3_endpoint, "contract/")) == sorted(f"contract/{content_key(p)}.png"
                                                               for p in (png(1), png(2)))


def test_the_settings_name_the_store(tmp_path: Path) -> None:
    def settings(**env: str) -> Settings:
        return Settings.from_environ({"DA_INSTANCE_PATH": str(tmp_path), **env}, start=tmp_path)

    folder = open_image_storage(settings(DA_IMAGE_FOLDER=str(tmp_path / "pngs")))
    assert isinstance(folder, LocalImageStorage) and folder.folder == tmp_path / "pngs"
    assert open_image_storage(settings(), folder=tmp_path / "x").folder == tmp_path / "x"  # build --images
    assert isinstance(open_image_storage(settings(DA_IMAGE_STORE="Database", DA_DATABASE_URL="sqlite://")),
                      DatabaseImageStorage)
    s3 = open_image_storage(settings(DA_IMAGE_STORE="s3", DA_S3_BUCKET="b", DA_S3_PREFIX="p/"))
    assert isinstance(s3, S3ImageStorage) and (s3.bucket, s3.prefix) == ("b", "p/")
    with pytest.raises(SettingsError, match=r"DA_IMAGE_STORE='disk' is not an image store.*folder, database, s3"):
        settings(DA_IMAGE_STORE="disk")
    with pytest.raises(ImageStoreError, match="DA_S3_BUCKET"):
        open_image_storage(settings(DA_IMAGE_STORE="s3"))


def test_build_writes_every_image_to_the_database_from_two_rendering_processes(database_url: str) -> None:
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    with transaction(sessions) as session:
        import_sample(session, name="sample", questions=30)
    storage = DatabaseImageStorage(database_url)
    with transaction(sessions) as session:
        build_campaign(session, BuildSpec(name="c", test_set="sample", seed=1), storage=storage, processes=2)
    with sessions() as session:
        keys = {k for row in session.execute(select(Slot.candidate_image, Slot.reference_image)) for k in row if k}
        keys |= _example_images(session.scalar(select(Campaign)))
        stored = dict(session.execute(select(ImageBlob.key, ImageBlob.data)).all())
    engine.dispose()
    assert len(keys) > 30 and keys == set(stored)
    assert all(content_key(data) == key for key, data in stored.items())


def serve_one_item(env) -> tuple[object, list[str]]:
    """A campaign whose images go to the app's configured store; a pool worker arrives; the first item's two
    image URLs, as the page gives them, each serve a PNG, and nothing was written to ``IMAGE_FOLDER``."""
    storage = env.app.extensions["da_platform"].storage
    with env.sessions() as session:
        campaign = make_campaign(session, storage, slots=3)
    tokens = env.app.extensions["da_platform"].tokens
    client = env.app.test_client()
    link = mint_invites(tokens, "http://127.0.0.1", campaign.campaign_id, 1, 1)[0]
    base = client.get(urlsplit(link).path).location
    page = client.get(base + "slot").text
    urls = re.findall(r'<img id="answer-[ab]" src="([^"]+)"', page)
    assert len(urls) == 2
    for url in urls:
        assert_png(client.get(url))
    assert not Path(env.app.config["IMAGE_FOLDER"]).exists()  # nothing on this server's disk
    return client, urls


def assert_png(response) -> None:
    assert response.status_code == 200 and response.mimetype == "image/png"
    assert Image.open(io.BytesIO(response.data)).format == "PNG"


def test_the_worker_pages_serve_images_from_the_database(database_url: str, tmp_path: Path) -> None:
    env = make_web_env(database_url, tmp_path, IMAGE_STORE="database", IMAGE_FOLDER=str(tmp_path / "unused"))
    assert isinstance(env.app.extensions["da_platform"].storage, DatabaseImageStorage)
    client, urls = serve_one_item(env)
    with env.sessions() as session:
        session.execute(delete(ImageBlob))
        session.commit()
    assert client.get(urls[0]).status_code == 404


def test_the_worker_pages_serve_images_from_s3(s3_endpoint: str, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    upgrade(url)
    env = make_web_env(url, tmp_path, IMAGE_STORE="s3", S3_BUCKET=BUCKET, S3_ENDPOINT_URL=s3_endpoint,
                       S3_PREFIX="web/", IMAGE_FOLDER=str(tmp_path / "unused"))
    client, urls = serve_one_item(env)
    client_s3 = boto3.session.Session().client("s3", endpoint_url=s3_endpoint)
    for name in objects(s3_endpoint, "web/"):
        client_s3.delete_object(Bucket=BUCKET, Key=name)
    assert client.get(urls[0]).status_code == 404


@pytest.mark.slow
def test_build_command_writes_through_the_configured_store(s3_endpoint: str, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    env = {"DA_DATABASE_URL": url, "DA_INSTANCE_PATH": str(tmp_path / "instance"), "DA_IMAGE_STORE": "s3",
           "DA_S3_BUCKET": BUCKET, "DA_S3_ENDPOINT_URL": s3_endpoint, "DA_S3_PREFIX": "cli/"}
    runner = CliRunner()
    assert runner.invoke(main, ["import", "sample"], env=env, catch_exceptions=False).exit_code == 0
    result = runner.invoke(main, ["build", "--test-set", "sample", "--name", "c", "--processes", "1",
                                  "--crowd", "pool"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"s3://{BUCKET}/cli/" in result.output
    engine = make_engine(url)
    with session_factory(engine)() as session:
        campaign = session.scalar(select(Campaign))
        keys = {k for row in session.execute(select(Slot.candidate_image, Slot.reference_image)
                                             .join(Hit).where(Hit.campaign_id == campaign.id)) for k in row if k}
        keys |= _example_images(campaign)
    engine.dispose()
    assert keys and {f"cli/{k}.png" for k in keys} == set(objects(s3_endpoint, "cli/"))
    assert not (tmp_path / "instance" / "images").exists()

    bad = runner.invoke(main, ["build", "--test-set", "sample", "--name", "d"], env={**env, "DA_IMAGE_STORE": "tape"})
    assert bad.exit_code != 0 and "DA_IMAGE_STORE='tape' is not an image store" in bad.output
    assert "Traceback" not in bad.output
    mixed = runner.invoke(main, ["build", "--test-set", "sample", "--name", "d",
                                 "--images", str(tmp_path / "x")], env=env)
    assert mixed.exit_code != 0 and "--images is for DA_IMAGE_STORE=folder" in mixed.output


def _example_images(campaign: Campaign) -> set[str]:
    """The worker pages' example images (instructions and practice), stored beside the slots' images."""
    example = (campaign.settings.get("worker") or {}).get("example") or {}
    return set((example.get("images") or {}).values())
