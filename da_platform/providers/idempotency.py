"""Idempotency keys: derived deterministically from what they protect, so a retry reuses them."""
from __future__ import annotations

import hashlib

MAX_TOKEN_LENGTH = 64  # MTurk's UniqueRequestToken limit (and ReviewDecision.request_token)


def request_token(kind: str, *parts: object) -> str:
    """``da-<kind>-<hash>``: the same kind and parts always give the same token (<= 64 chars)."""
    digest = hashlib.sha256("\x1f".join([kind, *map(str, parts)]).encode()).hexdigest()
    token = f"da-{kind}-{digest}"
    return token[:MAX_TOKEN_LENGTH]
