"""Signed tokens (itsdangerous, keyed by the secret key): invites, assignments, Prolific campaigns.

Workers carry these in URLs and forms instead of cookies, so the pages work inside MTurk's iframe
where third-party cookies are blocked. Each kind has its own salt, so one kind never passes for
another.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeSerializer, URLSafeTimedSerializer


class TokenError(Exception):
    """A token that is forged, malformed, of the wrong kind, or expired (``expired`` tells which).

    An expired token was genuine: what it named is kept (``campaign_id`` of an invite, ``public_id`` of
    an assignment), so that the page saying so is in the campaign's language."""

    def __init__(self, message: str, expired: bool = False, *, campaign_id: int | None = None,
                 public_id: str | None = None) -> None:
        super().__init__(message)
        self.expired = expired
        self.campaign_id, self.public_id = campaign_id, public_id


@dataclass(frozen=True)
class Invite:
    """An own-pool invitation: which campaign, which (anonymous) worker, valid until when."""

    campaign_id: int
    worker_id: str
    expires_at: int  # Unix time


class Tokens:
    """Mint and read every token the worker pages use."""

    def __init__(self, secret_key: str, assignment_max_age: int = 7 * 24 * 3600) -> None:
        if not secret_key:
            raise ValueError("a secret key is required to sign tokens")
        self._invite = URLSafeSerializer(secret_key, salt="da-platform.invite")
        self._campaign = URLSafeSerializer(secret_key, salt="da-platform.prolific-campaign")
        self._receipt = URLSafeSerializer(secret_key, salt="da-platform.completion-receipt")
        self._assignment = URLSafeTimedSerializer(secret_key, salt="da-platform.assignment")
        self.assignment_max_age = assignment_max_age

    # Own pool -----------------------------------------------------------------------------------
    def invite(self, campaign_id: int, worker_id: str, expires_at: int) -> str:
        return self._invite.dumps({"c": campaign_id, "w": worker_id, "e": int(expires_at)})

    def read_invite(self, token: str, now: float | None = None) -> Invite:
        data = _load(self._invite, token)
        try:
            invite = Invite(campaign_id=int(data["c"]), worker_id=str(data["w"]), expires_at=int(data["e"]))
        except (KeyError, TypeError, ValueError):
            raise TokenError("malformed invite") from None
        if invite.expires_at < (time.time() if now is None else now):
            raise TokenError("this invitation has expired", expired=True, campaign_id=invite.campaign_id)
        return invite

    # Assignments (every page after arrival) -------------------------------------------------------
    def assignment(self, public_id: str) -> str:
        return self._assignment.dumps(public_id)

    def read_assignment(self, token: str) -> str:
        try:
            value = self._assignment.loads(token, max_age=self.assignment_max_age)
        except SignatureExpired as error:  # genuine, only too old: its payload is the assignment's id
            named = self._assignment.load_payload(error.payload) if error.payload is not None else None
            raise TokenError("this link has expired", expired=True,
                             public_id=named if isinstance(named, str) else None) from None
        except BadSignature:
            raise TokenError("invalid link") from None
        if not isinstance(value, str):
            raise TokenError("invalid link")
        return value

    # Prolific study links name the campaign without revealing or enumerating ids ----------------
    def campaign(self, campaign_id: int) -> str:
        return self._campaign.dumps(campaign_id)

    def read_campaign(self, token: str) -> int:
        value = _load(self._campaign, token)
        if not isinstance(value, int):
            raise TokenError("invalid link")
        return value

    # Completion receipts: posted to MTurk with the submission (its ``completion`` answer field). The
    # platform records completion itself and reads no receipt back; ``read_receipt`` decodes one by hand.
    def receipt(self, assignment_public_id: str, ratings: int) -> str:
        return self._receipt.dumps({"a": assignment_public_id, "n": ratings})

    def read_receipt(self, token: str) -> tuple[str, int]:
        data = _load(self._receipt, token)
        try:
            return str(data["a"]), int(data["n"])
        except (KeyError, TypeError, ValueError):
            raise TokenError("malformed receipt") from None


def _load(serializer: URLSafeSerializer, token: str):
    try:
        return serializer.loads(token)
    except BadSignature:
        raise TokenError("invalid link") from None
