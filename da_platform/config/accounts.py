"""Researchers' accounts: created from the CLI, passwords stored as salted scrypt hashes (werkzeug)."""
from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from da_platform.db.models import AdminUser

MIN_PASSWORD_LENGTH = 12
USERNAME = re.compile(r"[A-Za-z0-9_.@-]{1,100}")
HASH_METHOD = "scrypt"
# Checked against when the user does not exist, so that a wrong name takes as long as a wrong password.
_DUMMY_HASH = generate_password_hash("not a real password", method=HASH_METHOD)


class AccountError(ValueError):
    """A user name or password that cannot be used (the message says why)."""


def check_username(name: str) -> str:
    if not USERNAME.fullmatch(name or ""):
        raise AccountError("user names are 1-100 letters, digits or . _ @ - (no spaces)")
    return name


def check_password(password: str) -> str:
    if len(password or "") < MIN_PASSWORD_LENGTH:
        raise AccountError(f"passwords need at least {MIN_PASSWORD_LENGTH} characters")
    return password


def find_user(session: Session, name: str) -> AdminUser | None:
    return session.scalar(select(AdminUser).where(AdminUser.username == name))


def create_user(session: Session, name: str, password: str) -> AdminUser:
    """Add a user (the caller commits); refuses a taken name or a short password."""
    check_username(name)
    check_password(password)
    if find_user(session, name) is not None:
        raise AccountError(f"user {name!r} exists already (use set-password to change the password)")
    user = AdminUser(username=name, password_hash=generate_password_hash(password, method=HASH_METHOD))
    session.add(user)
    session.flush()
    return user


def set_password(session: Session, name: str, password: str) -> AdminUser:
    """Replace a user's password (the caller commits)."""
    check_password(password)
    user = find_user(session, name)
    if user is None:
        raise AccountError(f"no user {name!r}")
    user.password_hash = generate_password_hash(password, method=HASH_METHOD)
    revoke_sessions(user)
    return user


def revoke_sessions(user: AdminUser) -> None:
    """End every dashboard session of ``user`` opened so far (the caller commits)."""
    user.session_epoch = (user.session_epoch or 0) + 1


def authenticate(session: Session, name: str, password: str) -> AdminUser | None:
    """The user if the password is right, else None (same work whether or not the name exists)."""
    user = find_user(session, name) if name else None
    if user is None:
        check_password_hash(_DUMMY_HASH, password or "")
        return None
    return user if check_password_hash(user.password_hash, password or "") else None
