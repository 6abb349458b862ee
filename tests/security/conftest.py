"""Shared pieces of the standing attack suite (docs/security.md): a worker-page app on a fresh database."""
from __future__ import annotations

import pytest

from tests.web_factories import WebEnv, make_web_env

FAKE_TURK = "http://127.0.0.1:9"  # allow-listed for these tests; nothing is ever sent there


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path, MTURK_SUBMIT_ORIGINS=["https://www.mturk.com", FAKE_TURK])
