"""Correspondence games (days per move, the side to move's deadline and the turn it was set
for) and an account's email address with its choice of notifications.

Revision ID: 0006
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("corr_days", sa.Integer, nullable=True))
        batch.add_column(sa.Column("corr_deadline_ms", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("corr_ply", sa.Integer, nullable=True))
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("email", sa.String(254), nullable=True))
        batch.add_column(
            sa.Column("notify_turn", sa.Boolean, nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("notify_time", sa.Boolean, nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("notify_time")
        batch.drop_column("notify_turn")
        batch.drop_column("email")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("corr_ply")
        batch.drop_column("corr_deadline_ms")
        batch.drop_column("corr_days")
