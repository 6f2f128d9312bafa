"""Ratings: each account's Glicko-2 rating per rating pool (a preset rule set and a time class),
a history row per rated game and player (for the profile's chart, and to recompute a pool when
an account's results are voided), and on each game whether it is rated, its time class and the
rating change its end made.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE, not a batch: on SQLite a batch copies the table, and dropping the old
    # ``games`` would take every game's seats and moves with it (their foreign keys cascade).
    op.add_column(
        "games", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.add_column(
        "games",
        sa.Column("time_class", sa.String(16), nullable=False, server_default="real-time"),
    )
    op.add_column("games", sa.Column("rating_result", sa.Text, nullable=True))
    op.create_table(
        "ratings",
        sa.Column(
            "account_id",
            sa.Integer,
            sa.ForeignKey("accounts.id", ondelete="CASCADE", name="fk_ratings_account_id"),
            primary_key=True,
        ),
        sa.Column("pool", sa.String(48), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("rated_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ratings_pool_rating", "ratings", ["pool", "rating"])
    op.create_table(
        "rating_history",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_rating_history_game_id"),
            primary_key=True,
        ),
        sa.Column(
            "account_id",
            sa.Integer,
            sa.ForeignKey("accounts.id", ondelete="CASCADE", name="fk_rating_history_account_id"),
            primary_key=True,
        ),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("side", sa.String(8), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("ended_ms", sa.BigInteger, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("deviation_before", sa.Float, nullable=False),
        sa.Column("volatility_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("deviation_after", sa.Float, nullable=False),
        sa.Column("volatility_after", sa.Float, nullable=False),
        sa.Column("voided", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index(
        "ix_rating_history_account_pool", "rating_history", ["account_id", "pool", "ended_ms"]
    )
    op.create_index("ix_rating_history_pool_ended", "rating_history", ["pool", "ended_ms"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_pool_ended", table_name="rating_history")
    op.drop_index("ix_rating_history_account_pool", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_pool_rating", table_name="ratings")
    op.drop_table("ratings")
    for column in ("rating_result", "time_class", "rated"):
        op.drop_column("games", column)
