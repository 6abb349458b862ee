"""Shared pieces of the standing attack suite (docs/security.md): a worker-page app on a fresh database."""
from __future__ import annotations

import pytest

from tests.web_factories import WebEnv, make_web_env
from tests.worker_flow import FAKE_TURK


@pytest.fixture
def env(database_url, tmp_path) -> WebEnv:
    return make_web_env(database_url, tmp_path, MTURK_SUBMIT_ORIGINS=["https://www.mturk.com", FAKE_TURK])
