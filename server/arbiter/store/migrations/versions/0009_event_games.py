"""Event games (issue 21, part 2): which game of an event each match plays (additive).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "event_games",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("game_number", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_event_games_match_id_matches"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["event", "round_number", "board"],
            ["event_pairings.event", "event_pairings.round_number", "event_pairings.board"],
            name=op.f("fk_event_games_event_event_pairings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_event_games")),
    )
    op.create_index(
        op.f("ix_event_games_event_round_number_board_game_number"),
        "event_games",
        ["event", "round_number", "board", "game_number"],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_event_games_event_round_number_board_game_number"), table_name="event_games")
    op.drop_table("event_games")
