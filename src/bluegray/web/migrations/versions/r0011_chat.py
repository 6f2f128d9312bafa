"""The games' chat: its messages, the mutes each account chose, the reports of messages, the
moderators' mutes, and the accounts' setting that turns the chat off.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

# New tables, and a column with a server default added to ``accounts`` (SQLite adds such a
# column in place: no batch, see r0006's note).


def upgrade() -> None:
    op.add_column(
        "accounts",
        sa.Column("chat_off", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("sent_ms", sa.BigInteger(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("room", sa.String(10), nullable=False),
        sa.Column("after_end", sa.Boolean(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("author_name", sa.String(20), nullable=True),
        sa.Column("author_side", sa.String(4), nullable=True),
        sa.Column("text", sa.String(140), nullable=True),
        sa.Column("canned", sa.String(20), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name="fk_chat_messages_game_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["author_id"],
            ["accounts.id"],
            name="fk_chat_messages_author_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_chat_messages_game", "chat_messages", ["game_id", "id"])
    op.create_index("ix_chat_messages_author_id", "chat_messages", ["author_id"])
    op.create_table(
        "chat_mutes",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("muted_id", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name="fk_chat_mutes_account_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["muted_id"],
            ["accounts.id"],
            name="fk_chat_mutes_muted_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "muted_id"),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("decided_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["chat_messages.id"],
            name="fk_chat_reports_message_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["reporter_id"],
            ["accounts.id"],
            name="fk_chat_reports_reporter_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id", "reporter_id", name="uq_chat_reports_message_reporter"),
    )
    op.create_index("ix_chat_reports_state", "chat_reports", ["state", "id"])
    op.create_table(
        "chat_silences",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("moderator_id", sa.Integer(), nullable=True),
        sa.Column("since_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name="fk_chat_silences_account_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["moderator_id"],
            ["accounts.id"],
            name="fk_chat_silences_moderator_id",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("account_id"),
    )


def downgrade() -> None:
    op.drop_table("chat_silences")
    op.drop_index("ix_chat_reports_state", "chat_reports")
    op.drop_table("chat_reports")
    op.drop_table("chat_mutes")
    op.drop_index("ix_chat_messages_author_id", "chat_messages")
    op.drop_index("ix_chat_messages_game", "chat_messages")
    op.drop_table("chat_messages")
    op.drop_column("accounts", "chat_off")  # plain, never a batch: see r0006's note
