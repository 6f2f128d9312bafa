"""Timers kept as data (``deadlines``: a clock's flag, the AI's move, each with a due time and the
process that has claimed it), each game's last event, and the address a seat was taken from.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deadlines",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("subject", sa.String(32), primary_key=True),
        sa.Column("due_ms", sa.BigInteger, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("holder", sa.String(64), nullable=True),
        sa.Column("held_until_ms", sa.BigInteger, nullable=True),
        sa.Column("note", sa.String(32), nullable=True),
    )
    op.create_index("ix_deadlines_due", "deadlines", ["due_ms"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("last_event", sa.Text, nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("address_hash", sa.String(64), nullable=True))
    # The games a server stopped before this revision left waiting: their clocks and AI moves.
    op.execute(
        """
        INSERT INTO deadlines (kind, subject, due_ms, version)
        SELECT 'flag', id,
               clock_since_ms + CASE WHEN turn = 'blue' THEN blue_ms ELSE gray_ms END, version
        FROM games WHERE status = 'active' AND clock_since_ms IS NOT NULL
        """
    )
    op.execute(
        """
        INSERT INTO deadlines (kind, subject, due_ms, version)
        SELECT 'ai', games.id, games.updated_ms, games.version
        FROM games JOIN seats ON seats.game_id = games.id AND seats.side = games.turn
        WHERE games.status = 'active' AND seats.kind = 'ai' AND games.ai_level IS NOT NULL
        """
    )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("address_hash")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("last_event")
    op.drop_index("ix_deadlines_due", table_name="deadlines")
    op.drop_table("deadlines")
