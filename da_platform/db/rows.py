"""Load a row that must exist, by primary key or as a person names it, with a clear error instead of a ``None``
to trip over later."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement
    from sqlalchemy.orm import Session

T = TypeVar("T")

LARGEST_ID = 2**31 - 1  # ids are 32-bit integers on PostgreSQL: a larger number is no id (and never sent)


class MissingRowError(LookupError):
    """A row whose id the caller holds is not in the database (a wrong id, or deleted meanwhile)."""


class UnknownName(LookupError):
    """No row has the name, or the id, a person gave; the message lists the names there are and the database."""


def get_row(session: Session, model: type[T], key: Any) -> T:
    """``session.get(model, key)``, raising :class:`MissingRowError` (naming table and id) when there is no such row."""
    row = session.get(model, key)
    if row is None:
        table = getattr(model, "__tablename__", model.__name__)
        raise MissingRowError(f"no row with id {key!r} in table {table}")
    return row


def find_named(session: Session, model: type[T], given: str, *, kind: str,
               within: ColumnElement[bool] | None = None, scope: str = "") -> T:
    """The row of ``model`` (a model with ``id`` and ``name`` columns; a ``kind`` such as "campaign") that
    ``given`` names: the row called ``given``, else, when ``given`` is a whole number, the row with that id.
    ``within`` narrows the rows (a test set's systems), ``scope`` says so in the message (" in test set 'qa'").

    A name wins over an id: "7" finds the campaign named "7" if there is one, else the campaign with id 7.
    Raises :class:`UnknownName`, whose message lists the names there are and names the database.
    """
    from sqlalchemy import select

    columns: Any = model  # (its id and name columns: not expressible for mypy as a protocol of mapped columns)
    rows = select(model) if within is None else select(model).where(within)
    row = session.scalars(rows.where(columns.name == given)).first()
    number = _as_id(given)
    if row is None and number is not None:
        row = session.scalars(rows.where(columns.id == number)).first()
    if row is not None:
        return row
    names = select(columns.name) if within is None else select(columns.name).where(within)
    known = ", ".join(session.scalars(names.order_by(columns.name))) or "none yet"
    by_id = f" or with id {number}" if number is not None else ""
    raise UnknownName(f"no {kind} named {given!r}{by_id}{scope} ({kind}s: {known}) "
                      f"in database {database_name(session)}")


def _as_id(given: str) -> int | None:
    """The id a whole number names (ASCII digits, within the ids' range), else None."""
    if not (given.isascii() and given.isdigit()) or len(given.lstrip("0")) > len(str(LARGEST_ID)):
        return None
    number = int(given)
    return number if number <= LARGEST_ID else None


def database_name(session: Session) -> str:
    """The URL of the session's database (password hidden), for messages."""
    return session.get_bind().engine.url.render_as_string(hide_password=True)
