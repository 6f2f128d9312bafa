"""Tournaments (arena and Swiss): the tournaments, their players, their games and the Swiss
rounds' byes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# New tables only (plain CREATE TABLE): no batch, see r0006's note.


def _account(table: str, column: str, nullable: bool = False) -> sa.Column[int]:
    key = sa.ForeignKey("accounts.id", ondelete="CASCADE", name=f"fk_{table}_{column}")
    return sa.Column(column, sa.Integer, key, nullable=nullable)


def _tournament(table: str) -> sa.Column[str]:
    key = sa.ForeignKey("tournaments.id", ondelete="CASCADE", name=f"fk_{table}_tournament_id")
    return sa.Column("tournament_id", sa.String(16), key, nullable=False)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        _account("tournaments", "creator_id"),
        sa.Column("creator_name", sa.String(20), nullable=False),
        sa.Column("rules", sa.String(32), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger, nullable=False),
        sa.Column("clock_increment_ms", sa.BigInteger, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("starts_at_ms", sa.BigInteger, nullable=False),
        sa.Column("minutes", sa.Integer, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("ends_at_ms", sa.BigInteger, nullable=True),
        sa.Column("round", sa.Integer, nullable=False, server_default="0"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=True),
        sa.Column("note", sa.Text, nullable=True),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_at_ms"])
    op.create_table(
        "tournament_players",
        _tournament("tournament_players"),
        _account("tournament_players", "account_id"),
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("joined_ms", sa.BigInteger, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("waiting_ms", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "account_id"),
    )
    op.create_index("ix_tournament_players_account_id", "tournament_players", ["account_id"])
    op.create_table(
        "tournament_games",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_tournament_games_game_id"),
            primary_key=True,
        ),
        _tournament("tournament_games"),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=True),
        sa.Column("board", sa.Integer, nullable=True),
        _account("tournament_games", "blue_id"),
        _account("tournament_games", "gray_id"),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("forfeit", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("started_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_tournament_games_tournament", "tournament_games", ["tournament_id", "seq"])
    op.create_table(
        "tournament_byes",
        _tournament("tournament_byes"),
        sa.Column("round", sa.Integer, nullable=False),
        _account("tournament_byes", "account_id"),
        sa.PrimaryKeyConstraint("tournament_id", "round"),
    )


def downgrade() -> None:
    for table in ("tournament_byes", "tournament_games", "tournament_players", "tournaments"):
        op.drop_table(table)
