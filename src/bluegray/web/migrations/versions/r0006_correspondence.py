"""Correspondence games (days per move, the side to move's deadline and the turn it was set
for), seeks' and challenges' days per move, and an account's email address with its choice of
notifications.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


# Plain ALTER TABLE, never a batch: on SQLite a batch copies the table and drops the old one,
# and dropping ``games`` or ``accounts`` would cascade to the rows that refer to them (the moves,
# seats and listings; the sessions and tokens). SQLite has ADD and DROP COLUMN (3.35 and later).


def upgrade() -> None:
    op.add_column("games", sa.Column("corr_days", sa.Integer, nullable=True))
    op.add_column("games", sa.Column("corr_deadline_ms", sa.BigInteger, nullable=True))
    op.add_column("games", sa.Column("corr_ply", sa.Integer, nullable=True))
    op.add_column("seeks", sa.Column("corr_days", sa.Integer, nullable=True))
    op.add_column("accounts", sa.Column("email", sa.String(254), nullable=True))
    for name in ("notify_turn", "notify_time"):
        column = sa.Column(name, sa.Boolean, nullable=False, server_default=sa.false())
        op.add_column("accounts", column)


def downgrade() -> None:
    for name in ("notify_time", "notify_turn", "email"):
        op.drop_column("accounts", name)
    op.drop_column("seeks", "corr_days")
    for name in ("corr_ply", "corr_deadline_ms", "corr_days"):
        op.drop_column("games", name)
