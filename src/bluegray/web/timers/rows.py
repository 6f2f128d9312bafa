"""The timers' table: timers kept as data (``deadlines``).

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("accounts.id")``), so no domain's rows import another's. The
migrations (``migrations/``) create every domain's tables as one schema
(``migrations/schema.py``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class DeadlineRow(Base):
    """A timer kept as data: something due at a time (a clock's flag, the AI's move), claimed
    by whichever process is alive when it falls due, so that it fires once in the cluster
    however many processes run and whichever of them died."""

    __tablename__ = "deadlines"
    __table_args__ = (Index("ix_deadlines_due", "due_ms"),)

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    """``flag`` or ``ai``."""
    subject: Mapped[str] = mapped_column(String(32), primary_key=True)
    """What it is about: a game's id."""
    due_ms: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer)
    """The subject's version when the timer was set."""
    holder: Mapped[str | None] = mapped_column(String(64))
    """The process working on it (``None``: nobody)."""
    held_until_ms: Mapped[int | None] = mapped_column(BigInteger)
    """Until when the holder's claim stands; after it any process may claim the timer."""
    note: Mapped[str | None] = mapped_column(String(32))
    """What the holder says of it (of the AI's move: ``busy`` or ``unavailable``)."""
