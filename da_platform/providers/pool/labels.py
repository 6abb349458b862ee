"""Labelled own-pool invites: the researcher's name for each link, stored with its worker.

``da-platform invite --label Ana --label Ben`` (or ``--labels names.csv``) mints one link per name
and creates each link's worker row with its label at once, so the dashboard shows "p-3f… (Ana)"
from the first arrival on. The label is the researcher's only: it is not in the link (links are
signed, not encrypted) and workers never see it.
"""
from __future__ import annotations

import csv
import secrets
import time
from pathlib import Path

from sqlalchemy.orm import Session

from da_core.errors import InputError
from da_platform.db.models import Worker
from da_platform.providers.pool.arrival import ARRIVAL_PATH, PoolSource
from da_platform.providers.tokens import Tokens

MAX_LABEL = 200
HEADERS = ("label", "name")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def read_labels(path: Path) -> list[str]:
    """Names from the first column of a CSV file (a header ``label`` or ``name`` is skipped)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(f))
    except OSError as error:
        raise InputError(f"cannot open: {error.strerror}", file=str(path)) from None
    except (csv.Error, UnicodeDecodeError) as error:
        raise InputError(f"not a readable CSV file: {error}", file=str(path)) from None
    labels: list[str] = []
    for line, row in enumerate(rows, start=1):
        name = row[0].strip() if row else ""
        if line == 1 and name.lower() in HEADERS:
            continue
        if not name:
            raise InputError("empty name", file=str(path), line=line, field="label")
        labels.append(name)
    if not labels:
        raise InputError("no names in the file", file=str(path))
    return labels


def check_labels(labels: list[str], source: str = "--label") -> None:
    """Every label non-empty, at most 200 characters, and used once."""
    seen: set[str] = set()
    for label in labels:
        if not label.strip():
            raise InputError("an empty label", file=source, field="label")
        if len(label) > MAX_LABEL:
            raise InputError(f"label {label[:20]!r}… is longer than {MAX_LABEL} characters", file=source,
                             field="label")
        if label in seen:
            raise InputError(f"label {label!r} is given twice: one link per person", file=source, field="label")
        seen.add(label)


def mint_labelled_invites(session: Session, tokens: Tokens, public_url: str, campaign_id: int, labels: list[str],
                          valid_days: float, now: float | None = None) -> list[tuple[str, str]]:
    """One link per label, each for a new worker created now with that label: (label, link) pairs."""
    expires_at = int((time.time() if now is None else now) + valid_days * 86400)
    base = public_url.rstrip("/")
    made = []
    for label in labels:
        worker_id = "p-" + secrets.token_hex(8)
        session.add(Worker(source=PoolSource.name, external_id=worker_id, blocked=False, label=label))
        made.append((label, base + ARRIVAL_PATH.format(token=tokens.invite(campaign_id, worker_id, expires_at))))
    session.flush()
    return made


def csv_cell(text: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text
