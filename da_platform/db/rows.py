"""Load a row that must exist, by primary key, with a clear error instead of a ``None`` to trip over later."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

T = TypeVar("T")


class MissingRowError(LookupError):
    """A row whose id the caller holds is not in the database (a wrong id, or deleted meanwhile)."""


def get_row(session: Session, model: type[T], key: Any) -> T:
    """``session.get(model, key)``, raising :class:`MissingRowError` (naming table and id) when there is no such row."""
    row = session.get(model, key)
    if row is None:
        table = getattr(model, "__tablename__", model.__name__)
        raise MissingRowError(f"no row with id {key!r} in table {table}")
    return row
