"""Puzzles: the puzzles, each solver's first attempt at each, and the solvers' puzzle ratings.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(160), nullable=False),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("position", sa.String(120), nullable=False),
        sa.Column("solution", sa.String(400), nullable=False),
        sa.Column("themes", sa.String(120), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key", name="uq_puzzles_key"),
    )
    op.create_index("ix_puzzles_rules_rating", "puzzles", ["rules", "rating"])
    op.create_table(
        "puzzle_attempts",
        sa.Column("puzzle_id", sa.Integer(), nullable=False),
        sa.Column("solver", sa.String(80), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["puzzle_id"],
            ["puzzles.id"],
            name="fk_puzzle_attempts_puzzle_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("puzzle_id", "solver"),
    )
    op.create_index("ix_puzzle_attempts_solver", "puzzle_attempts", ["solver"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("solver", sa.String(80), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("solver"),
    )


def downgrade() -> None:
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzle_attempts_solver", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_index("ix_puzzles_rules_rating", table_name="puzzles")
    op.drop_table("puzzles")
