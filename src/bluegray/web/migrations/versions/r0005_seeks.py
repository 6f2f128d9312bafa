"""The lobby: open challenges (seeks), challenges to a named player (a seek with a target), and
quick pairings (a seek that names its preset).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column(
            "account_id",
            sa.Integer,
            sa.ForeignKey("accounts.id", ondelete="CASCADE", name="fk_seeks_account_id"),
            nullable=False,
        ),
        sa.Column("account_name", sa.String(20), nullable=False),
        sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("provisional", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("time_class", sa.String(16), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger, nullable=True),
        sa.Column("clock_increment_ms", sa.BigInteger, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("color", sa.String(8), nullable=False),
        sa.Column("rating_min", sa.Integer, nullable=True),
        sa.Column("rating_max", sa.Integer, nullable=True),
        sa.Column(
            "target_id",
            sa.Integer,
            sa.ForeignKey("accounts.id", ondelete="CASCADE", name="fk_seeks_target_id"),
            nullable=True,
        ),
        sa.Column("target_name", sa.String(20), nullable=True),
        sa.Column("quick", sa.String(32), nullable=True),
        sa.Column("connection", sa.String(32), nullable=True),
        sa.Column("process", sa.String(64), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_seeks_account_id", "seeks", ["account_id"])
    op.create_index("ix_seeks_target_id", "seeks", ["target_id"])
    op.create_index("ix_seeks_expires", "seeks", ["expires_ms"])
    op.create_index("ix_seeks_connection", "seeks", ["connection"])


def downgrade() -> None:
    for index in ("ix_seeks_connection", "ix_seeks_expires", "ix_seeks_target_id"):
        op.drop_index(index, table_name="seeks")
    op.drop_index("ix_seeks_account_id", table_name="seeks")
    op.drop_table("seeks")
