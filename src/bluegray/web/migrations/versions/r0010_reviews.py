"""Game reviews: a game's review (who asked, how far it is, the process driving it) and the
engine's analysis of each of its positions.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# New tables only (plain CREATE TABLE): no batch, see r0006's note.


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("positions", sa.Integer, nullable=False),
        sa.Column("nodes", sa.Integer, nullable=False),
        sa.Column("requested_ms", sa.BigInteger, nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=True),
        sa.Column("account_id", sa.Integer, nullable=True),
        sa.Column("address_hash", sa.String(64), nullable=False),
        sa.Column("runner", sa.String(64), nullable=True),
        sa.Column("lease_until_ms", sa.BigInteger, nullable=True),
        sa.Column("failure", sa.Text, nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_reviews_game_id", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_reviews_account_id", ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index("ix_reviews_status_lease", "reviews", ["status", "lease_until_ms"])
    op.create_index("ix_reviews_account_requested", "reviews", ["account_id", "requested_ms"])
    op.create_index("ix_reviews_address_requested", "reviews", ["address_hash", "requested_ms"])
    op.create_table(
        "review_positions",
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("turn", sa.String(8), nullable=False),
        sa.Column("blue_expected", sa.Float, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("best_move", sa.String(64), nullable=True),
        sa.Column("best_after", sa.Float, nullable=True),
        sa.Column("pv", sa.Text, nullable=False),
        sa.Column("depth", sa.Integer, nullable=False),
        sa.Column("nodes", sa.Integer, nullable=False),
        sa.Column("plies_to_end", sa.Integer, nullable=True),
        sa.Column("engine", sa.Integer, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["reviews.game_id"],
            name="fk_review_positions_game_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "ply"),
    )


def downgrade() -> None:
    op.drop_table("review_positions")
    op.drop_index("ix_reviews_address_requested", "reviews")
    op.drop_index("ix_reviews_account_requested", "reviews")
    op.drop_index("ix_reviews_status_lease", "reviews")
    op.drop_table("reviews")
