"""Why a game asked for as rated is played unrated (``games.unrated_reason``: its two accounts
had played their rated games for the day).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# Plain ALTER TABLE, never a batch: see r0006's note.


def upgrade() -> None:
    op.add_column("games", sa.Column("unrated_reason", sa.String(16), nullable=True))


def downgrade() -> None:
    op.drop_column("games", "unrated_reason")
