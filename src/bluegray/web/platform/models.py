"""The database's declarative base, shared by every domain's tables (each domain's own
``rows.py``), and the platform's own table: small facts about the server itself.

Times are whole milliseconds since the Unix epoch (portable across databases, no time zones).
The whole schema (every domain's tables on ``Base.metadata``) is gathered in one place,
``migrations/schema.py``: the migrations, and the test that compares them with the tables.
"""

from __future__ import annotations

from sqlalchemy import String, Table, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


def table_of(row: type[Base]) -> Table:
    """The table of a row class (for Core statements: ``insert``, ``upsert``, ``.c``)."""
    table = row.__table__
    assert isinstance(table, Table)
    return table


class ServerStateRow(Base):
    """Small facts about the server itself, e.g. the last moment it was known to be running."""

    __tablename__ = "server_state"

    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
