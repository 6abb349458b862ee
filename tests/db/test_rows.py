"""get_row: a row that must exist comes back typed, or a clear error names the table and the id."""
import pytest

from da_platform.db.models import Worker
from da_platform.db.rows import MissingRowError, get_row


def test_get_row_returns_the_row_or_names_table_and_id(session) -> None:
    worker = Worker(source="pool", external_id="w-1")
    session.add(worker)
    session.flush()
    assert get_row(session, Worker, worker.id) is worker
    with pytest.raises(MissingRowError, match=r"^no row with id 999 in table worker$"):
        get_row(session, Worker, 999)
    assert issubclass(MissingRowError, LookupError)
