"""Opt-in smoke test against the real MTurk *sandbox* (no real money, needs the network).

Skipped unless AWS credentials are configured AND DA_MTURK_SANDBOX_SMOKE=1: the sandbox cannot be
reached from CI, and a developer opts in explicitly (see docs/mturk-prolific.md). It only reads:
the balance (the sandbox always shows 10000.00) and a page of HITs.
"""
from __future__ import annotations

import os

import pytest

from da_platform.providers.mturk.client import SANDBOX_ENDPOINT, MTurk, make_boto_client


def _credentials() -> bool:
    import boto3

    return boto3.session.Session().get_credentials() is not None


pytestmark = pytest.mark.skipif(
    os.environ.get("DA_MTURK_SANDBOX_SMOKE") != "1" or not _credentials(),
    reason="opt-in sandbox smoke test: set AWS credentials and DA_MTURK_SANDBOX_SMOKE=1 (needs the internet)",
)


def test_sandbox_balance_and_list():
    client = make_boto_client()
    assert client.meta.endpoint_url == SANDBOX_ENDPOINT
    mturk = MTurk(client)
    assert mturk.balance() >= 0
    assert isinstance(mturk.call("ListHITs", MaxResults=10).get("HITs", []), list)
