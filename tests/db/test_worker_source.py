"""``worker.source``, ``assignment.source`` and ``hit.provider`` hold a :class:`WorkerSource` in the VARCHAR(20)
columns that always held its name: read back as the member, written as the name (what the database holds is
what it held before), and a name that is not a source is refused before it reaches the database; on SQLite and
PostgreSQL."""
from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import StatementError

from da_platform.db.models import Worker
from da_platform.db.states import WorkerSource


def test_a_source_is_stored_as_its_name_and_read_back_as_the_member(session):
    session.add_all([Worker(source=WorkerSource.mturk, external_id="W1"), Worker(source="prolific", external_id="P1")])
    session.commit()
    stored = session.execute(text("SELECT source FROM worker ORDER BY id")).scalars().all()
    assert stored == ["mturk", "prolific"] and all(type(name) is str for name in stored)
    read = session.scalars(select(Worker.source).order_by(Worker.id)).all()
    assert read == [WorkerSource.mturk, WorkerSource.prolific]
    assert all(isinstance(source, WorkerSource) for source in read)
    assert session.scalar(select(Worker.external_id).where(Worker.source == "prolific")) == "P1"


def test_a_name_that_is_no_source_is_refused_and_nothing_is_written(session):
    session.add(Worker(source="sandbox", external_id="W1"))
    with pytest.raises(StatementError, match="'sandbox' is not a valid WorkerSource"):
        session.commit()
    session.rollback()
    assert session.execute(text("SELECT COUNT(*) FROM worker")).scalar_one() == 0
