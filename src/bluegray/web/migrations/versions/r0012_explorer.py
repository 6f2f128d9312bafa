"""The opening explorer: the moves played from each position (per rule set and source), the
site games counted and the books loaded.

The tables start empty: ``bluegray db upgrade`` (and ``bluegray explorer fill``) then counts the
games already stored and loads the shipped books (``explorer/service.py``: ``fill``).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

# New tables only (plain CREATE TABLE): no batch, see r0006's note.


def upgrade() -> None:
    op.create_table(
        "explorer_moves",
        sa.Column("rules", sa.String(24), nullable=False),
        sa.Column("position_key", sa.BigInteger, nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("move", sa.String(400), nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("blue_wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("gray_wins", sa.Integer, nullable=False),
        sa.Column("rated_games", sa.Integer, nullable=False),
        sa.Column("rating_sum", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("rules", "position_key", "source", "move"),
    )
    op.create_table(
        "explorer_games",
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("counted_ms", sa.BigInteger, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_explorer_games_game_id", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_table(
        "explorer_books",
        sa.Column("rules", sa.String(24), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("loaded_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("rules"),
    )


def downgrade() -> None:
    op.drop_table("explorer_books")
    op.drop_table("explorer_games")
    op.drop_table("explorer_moves")
