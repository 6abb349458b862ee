"""Regenerate the initial migration from the models (only while no database in use depends on it).

Usage: python scripts/regenerate_initial_migration.py
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from alembic import command

from da_platform.db import MIGRATIONS, alembic_config

versions = MIGRATIONS / "versions"
for old in versions.glob("0001_*.py"):
    old.unlink()
with tempfile.TemporaryDirectory() as folder:
    config = alembic_config(f"sqlite:///{folder}/empty.sqlite")
    command.revision(config, message="initial schema", autogenerate=True, rev_id="0001")
for new in versions.glob("0001_*.py"):
    print(f"wrote {new}")
