"""The initial schema: games, seats, moves, listings and the server's own state.

Revision ID: 0001
Revises:
Create Date: 2024-06-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("start", sa.Text, nullable=False),
        sa.Column("position", sa.Text, nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("turn", sa.String(8), nullable=False),
        sa.Column("ai_level", sa.Integer, nullable=True),
        sa.Column("clock_initial_ms", sa.BigInteger, nullable=True),
        sa.Column("clock_increment_ms", sa.BigInteger, nullable=True),
        sa.Column("blue_ms", sa.BigInteger, nullable=True),
        sa.Column("gray_ms", sa.BigInteger, nullable=True),
        sa.Column("clock_since_ms", sa.BigInteger, nullable=True),
        sa.Column("termination", sa.String(16), nullable=True),
        sa.Column("winner", sa.String(8), nullable=True),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
        sa.Column("draw_offer", sa.String(8), nullable=True),
        sa.Column("takeback_offer", sa.String(8), nullable=True),
        sa.Column("rematch_offer", sa.String(8), nullable=True),
        sa.Column("rematch_id", sa.String(16), nullable=True),
        sa.Column("parent_id", sa.String(16), nullable=True),
        sa.Column("invite_hash", sa.String(64), nullable=True),
        sa.Column("record", sa.Text, nullable=True),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("side", sa.String(8), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("browser_hash", sa.String(64), nullable=True),
        sa.Column("joined_ms", sa.BigInteger, nullable=True),
    )
    op.create_table(
        "moves",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("ply", sa.Integer, primary_key=True),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("side", sa.String(8), nullable=False),
        sa.Column("clock_ms", sa.BigInteger, nullable=True),
        sa.Column("played_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "listings",
        sa.Column("browser_hash", sa.String(64), primary_key=True),
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_listings_browser_created", "listings", ["browser_hash", "created_ms"])
    op.create_table(
        "server_state",
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_state")
    op.drop_index("ix_listings_browser_created", table_name="listings")
    op.drop_table("listings")
    op.drop_table("moves")
    op.drop_table("seats")
    op.drop_index("ix_games_status", table_name="games")
    op.drop_table("games")
