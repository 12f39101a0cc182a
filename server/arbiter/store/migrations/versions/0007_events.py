"""Events (issue 21): events, their entries, rounds, pairings and each game's result (additive).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _name(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.String(length=64), nullable=False)


def upgrade() -> None:
    op.create_table(
        "events",
        _name("name"),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("base", sa.Float(), nullable=True),
        sa.Column("increment", sa.Float(), nullable=False),
        sa.Column("per_decision", sa.Float(), nullable=True),
        sa.Column("on_timeout", sa.String(length=32), nullable=False),
        sa.Column("on_illegal", sa.String(length=32), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("games_per_pairing", sa.Integer(), nullable=False),
        sa.Column("duplicate_pairs", sa.Boolean(), nullable=False),
        _time("starts_at", nullable=True),
        _time("entry_closes_at", nullable=True),
        sa.Column("max_entrants", sa.Integer(), nullable=True),
        sa.Column("invite_only", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("duration", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=32), nullable=False),
        _time("created_at"),
        sa.CheckConstraint(
            "status IN ('scheduled', 'running', 'finished', 'cancelled')", name=op.f("ck_events_status")
        ),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_events")),
    )
    op.create_table(
        "event_entries",
        _name("event"),
        _name("bot"),
        sa.Column("seed", sa.Integer(), nullable=False),
        _time("entered_at"),
        _time("withdrawn_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["event"], ["events.name"], name=op.f("fk_event_entries_event_events"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["bot"], ["bots.name"], name=op.f("fk_event_entries_bot_bots"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event", "bot", name=op.f("pk_event_entries")),
        sa.UniqueConstraint("event", "seed", name=op.f("uq_event_entries_event_seed")),
    )
    op.create_table(
        "event_rounds",
        _name("event"),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("byes", sa.JSON(), nullable=False),
        _time("started_at"),
        sa.ForeignKeyConstraint(
            ["event"], ["events.name"], name=op.f("fk_event_rounds_event_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event", "number", name=op.f("pk_event_rounds")),
    )
    op.create_table(
        "event_pairings",
        _name("event"),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        _name("seat_1"),
        _name("seat_2"),
        sa.ForeignKeyConstraint(
            ["event", "round_number"],
            ["event_rounds.event", "event_rounds.number"],
            name=op.f("fk_event_pairings_event_event_rounds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event", "round_number", "board", name=op.f("pk_event_pairings")),
    )
    op.create_index(op.f("ix_event_pairings_seat_1"), "event_pairings", ["seat_1"])
    op.create_index(op.f("ix_event_pairings_seat_2"), "event_pairings", ["seat_2"])
    op.create_table(
        "event_results",
        _name("event"),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("game_number", sa.Integer(), nullable=False),
        _name("seat_1"),
        _name("seat_2"),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("match_id", sa.String(length=64), nullable=True),
        _time("recorded_at"),
        sa.CheckConstraint(
            "kind IN ('played', 'no_show', 'double_no_show')", name=op.f("ck_event_results_kind")
        ),
        sa.CheckConstraint("winner_seat IN (1, 2)", name=op.f("ck_event_results_winner_seat")),
        sa.ForeignKeyConstraint(
            ["event", "round_number", "board"],
            ["event_pairings.event", "event_pairings.round_number", "event_pairings.board"],
            name=op.f("fk_event_results_event_event_pairings"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], name=op.f("fk_event_results_match_id_matches")),
        sa.PrimaryKeyConstraint(
            "event", "round_number", "board", "game_number", name=op.f("pk_event_results")
        ),
    )


def downgrade() -> None:
    op.drop_table("event_results")
    op.drop_index(op.f("ix_event_pairings_seat_2"), table_name="event_pairings")
    op.drop_index(op.f("ix_event_pairings_seat_1"), table_name="event_pairings")
    op.drop_table("event_pairings")
    op.drop_table("event_rounds")
    op.drop_table("event_entries")
    op.drop_table("events")
