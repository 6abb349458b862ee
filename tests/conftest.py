"""Shared fixtures: a migrated database on SQLite and, where configured, on a real PostgreSQL; Debian's
Chromium through Playwright; the dashboard with a user and a rated campaign.

PostgreSQL runs when $DA_TEST_POSTGRES_URL names a server (``.ci/run`` starts one). Under CI
(``CI=true``) a missing server is a failure, not a skip, so the PostgreSQL half can never vanish.

Test modules never import from each other (``tests/test_organisation.py`` checks it): fixtures they share
live here, plain helpers in modules not named ``test_*`` (``factories``, ``web_factories``,
``dashboard_factories``, ``admin_client``, ``browser_steps``, ``worker_flow``, ...).
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from da_platform.cli import main
from da_platform.config.accounts import create_user
from da_platform.db.engine import make_engine, session_factory, upgrade
from tests import dashboard_factories
from tests.admin_client import PASSWORD
from tests.web_factories import WebEnv, make_web_env


@pytest.fixture
def postgres_admin_url() -> str:
    """$DA_TEST_POSTGRES_URL: the PostgreSQL server the tests may create databases on. Without one the
    test is skipped, except under CI (``CI=true``), where a missing server is a failure."""
    url = os.environ.get("DA_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but DA_TEST_POSTGRES_URL is not set: .ci/run must start PostgreSQL")
        pytest.skip("no PostgreSQL server configured (set DA_TEST_POSTGRES_URL; CI always does)")
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of a fresh, migrated database: a SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'test.sqlite'}"
        upgrade(url)
        yield url
        return
    admin_url = request.getfixturevalue("postgres_admin_url")
    name = f"da_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    """A session factory bound to the fresh database."""
    engine = make_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def session(sessions: sessionmaker[Session]) -> Iterator[Session]:
    with sessions() as s:
        yield s


@pytest.fixture
def run(database_url: str, tmp_path: Path):
    """``run("import", "sample")``: the ``da-platform`` CLI on the fresh database (its instance folder under
    ``tmp_path``), with ``input=`` for its prompts; returns click's Result. An exception the CLI does not
    handle fails the test (a user would see a traceback)."""
    runner = CliRunner()
    env = {"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path / "instance")}

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(main, list(args), env=env, input=input, catch_exceptions=False)

    return invoke


# -- markers ------------------------------------------------------------------------------------------

def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses Chromium carries the ``browser`` marker, so ``-m "not browser"`` leaves it out."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


# -- Chromium -----------------------------------------------------------------------------------------

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright (one per test module)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A page in a fresh browser context (no cookies or storage from other tests)."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def admin_page(browser):
    """A 1280 x 900 page for the dashboard that records what must never happen: ``page.dialogs`` (any
    alert/confirm opened, e.g. by injected script) and ``page.problems`` (CSP refusals, script errors)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.dialogs, page.problems = [], []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: page.problems.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text else None)
    page.on("pageerror", lambda error: page.problems.append(str(error)))
    yield page
    context.close()


# -- the dashboard ------------------------------------------------------------------------------------

@pytest.fixture
def admin_env(database_url: str, tmp_path: Path) -> WebEnv:
    """The app on a fresh database (both engines) with one dashboard user, ana (``admin_client.PASSWORD``)."""
    env = make_web_env(database_url, tmp_path)
    with env.sessions.begin() as session:
        create_user(session, "ana", PASSWORD)
    return env


@pytest.fixture
def rated(admin_env: WebEnv) -> WebEnv:
    """A campaign of 4 HITs: two careful workers (one with an HTML payload as id), one careless, one HIT open;
    ``rated.campaign_id`` and ``rated.workers`` (worker ids by external id)."""
    dashboard_factories.three_worker_campaign(admin_env)
    return admin_env
