"""Ladder counts kept in the store (issue 18 items 11 and 12): each challenge sent (the daily limit
holds across restarts and failovers), each version of a bot with when it was first seen (a daily
limit on new versions), and a ladder's rule for matches between bots of one owner (additive only).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "ladder_challenges",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("ladder", sa.String(length=64), nullable=False),
        sa.Column("challenger", sa.String(length=64), nullable=False),
        sa.Column("opponent", sa.String(length=64), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder"], ["ladders.name"], name=op.f("fk_ladder_challenges_ladder_ladders")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_challenges")),
    )
    op.create_index(
        op.f("ix_ladder_challenges_ladder_challenger_opponent_sent_at"),
        "ladder_challenges",
        ["ladder", "challenger", "opponent", "sent_at"],
    )
    op.create_table(
        "bot_versions",
        sa.Column("bot", sa.String(length=64), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot"], ["bots.name"], name=op.f("fk_bot_versions_bot_bots"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("bot", "version", name=op.f("pk_bot_versions")),
    )
    op.create_index(op.f("ix_bot_versions_bot_first_seen"), "bot_versions", ["bot", "first_seen"])
    # The versions the ladders have seen so far, first seen at their first ladder match.
    op.execute(
        "INSERT INTO bot_versions (bot, version, first_seen)"
        " SELECT bot, version, MIN(started_at) FROM ("
        "  SELECT seat_1_bot AS bot, seat_1_version AS version, started_at FROM matches"
        "   WHERE ladder IS NOT NULL"
        "  UNION ALL"
        "  SELECT seat_2_bot, seat_2_version, started_at FROM matches WHERE ladder IS NOT NULL"
        " ) AS seen WHERE bot IN (SELECT name FROM bots) GROUP BY bot, version"
    )
    with op.batch_alter_table("ladders") as batch:
        batch.add_column(
            sa.Column("same_owner", sa.String(length=32), nullable=False, server_default="unrated")
        )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("same_owner", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("same_owner")
    with op.batch_alter_table("ladders") as batch:
        batch.drop_column("same_owner")
    op.drop_index(op.f("ix_bot_versions_bot_first_seen"), table_name="bot_versions")
    op.drop_table("bot_versions")
    op.drop_index(
        op.f("ix_ladder_challenges_ladder_challenger_opponent_sent_at"), table_name="ladder_challenges"
    )
    op.drop_table("ladder_challenges")
