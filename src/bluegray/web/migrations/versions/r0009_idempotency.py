"""Idempotency keys: the games created with an ``Idempotency-Key``, kept a day, so that a
request sent again answers the same game (generated with Alembic's autogenerate, then tidied).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# A new table only (plain CREATE TABLE): no batch, see r0006's note.


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("caller", sa.String(80), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("caller", "key_hash"),
    )
    op.create_index("ix_idempotency_keys_created", "idempotency_keys", ["created_ms"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_created", "idempotency_keys")
    op.drop_table("idempotency_keys")
