"""The lobby's table: the open seeks and challenges.

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("accounts.id")``), so no domain's rows import another's. The
migrations (``migrations/``) create every domain's tables as one schema
(``migrations/schema.py``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class SeekRow(Base):
    """An open challenge in the lobby (a seek), or one sent to a named player (``target``)."""

    __tablename__ = "seeks"
    __table_args__ = (
        Index("ix_seeks_expires", "expires_ms"),
        Index("ix_seeks_connection", "connection"),
    )

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_seeks_account_id"),
        index=True,
    )
    account_name: Mapped[str] = mapped_column(String(20))
    bot: Mapped[bool] = mapped_column(Boolean, server_default=false())
    rating: Mapped[float] = mapped_column(Float)
    """The seeker's rating in the seek's pool when it was posted."""
    provisional: Mapped[bool] = mapped_column(Boolean, server_default=false())
    rules: Mapped[str] = mapped_column(Text)
    time_class: Mapped[str] = mapped_column(String(16))
    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger)
    clock_increment_ms: Mapped[int | None] = mapped_column(BigInteger)
    corr_days: Mapped[int | None] = mapped_column(Integer)
    """Correspondence days per move (``None``: a clock, or no time limit)."""
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    color: Mapped[str] = mapped_column(String(8))
    """The side the seeker plays: ``blue``, ``gray`` or ``random``."""
    rating_min: Mapped[int | None] = mapped_column(Integer)
    rating_max: Mapped[int | None] = mapped_column(Integer)
    target_id: Mapped[int | None] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_seeks_target_id"),
        index=True,
    )
    """A challenge's player (``None``: an open seek, in the lobby for anyone)."""
    target_name: Mapped[str | None] = mapped_column(String(20))
    quick: Mapped[str | None] = mapped_column(String(32))
    """The quick pairing it waits in (``None``: an ordinary seek)."""
    connection: Mapped[str | None] = mapped_column(String(32))
    """The lobby socket it was posted with: it goes when that socket closes."""
    process: Mapped[str] = mapped_column(String(64))
    """The process it was posted on: it goes if that process dies."""
    created_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int] = mapped_column(BigInteger)
