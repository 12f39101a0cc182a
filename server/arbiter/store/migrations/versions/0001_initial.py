"""The initial schema: bots, ladders, matches, moves, ratings, rating updates, mailbox, ladder status.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

NAME = sa.String(length=64)
SHORT = sa.String(length=32)


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _fk(table: str, column: str, target: str, cascade: bool = False) -> sa.ForeignKeyConstraint:
    referred_table = target.split(".")[0]
    return sa.ForeignKeyConstraint(
        [column],
        [target],
        name=op.f(f"fk_{table}_{column}_{referred_table}"),
        ondelete="CASCADE" if cascade else None,
    )


def upgrade() -> None:
    _bots_and_ladders()
    _matches_and_moves()
    _ratings()
    _mailbox_and_status()


def _bots_and_ladders() -> None:
    op.create_table(
        "bots",
        sa.Column("name", NAME, nullable=False),
        sa.Column("owner", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=80), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        _time("created_at"),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_bots")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_bots_token_hash")),
    )
    op.create_table(
        "ladders",
        sa.Column("name", NAME, nullable=False),
        sa.Column("game", SHORT, nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("base", sa.Float(), nullable=True),
        sa.Column("increment", sa.Float(), nullable=False),
        sa.Column("per_decision", sa.Float(), nullable=True),
        sa.Column("on_timeout", SHORT, nullable=False),
        sa.Column("on_illegal", SHORT, nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("duplicate_pairs", sa.Boolean(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        _time("created_at"),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_ladders")),
    )


def _matches_and_moves() -> None:
    op.create_table(
        "matches",
        sa.Column("id", NAME, nullable=False),
        sa.Column("ladder", NAME, nullable=True),
        sa.Column("game", SHORT, nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seat_1_bot", NAME, nullable=False),
        sa.Column("seat_1_version", NAME, nullable=False),
        sa.Column("seat_2_bot", NAME, nullable=False),
        sa.Column("seat_2_version", NAME, nullable=False),
        sa.Column("seed", sa.String(length=200), nullable=False),
        sa.Column("seed_commitment", sa.String(length=200), nullable=False),
        sa.Column("time_control", sa.JSON(), nullable=False),
        sa.Column("policy", sa.JSON(), nullable=False),
        sa.Column("status", SHORT, nullable=False),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("scores", sa.JSON(), nullable=True),
        sa.Column("reason", SHORT, nullable=True),
        sa.Column("termination", SHORT, nullable=True),
        sa.Column("faulty_seat", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        _time("started_at"),
        _time("ended_at", nullable=True),
        sa.Column("sequence", sa.Integer(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.CheckConstraint("status IN ('running', 'finished', 'aborted')", name=op.f("ck_matches_status")),
        sa.CheckConstraint("winner_seat IN (1, 2)", name=op.f("ck_matches_winner_seat")),
        sa.CheckConstraint("faulty_seat IN (1, 2)", name=op.f("ck_matches_faulty_seat")),
        _fk("matches", "ladder", "ladders.name"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("sequence", name=op.f("uq_matches_sequence")),
    )
    op.create_index(op.f("ix_matches_ladder_sequence"), "matches", ["ladder", "sequence"])
    op.create_index(op.f("ix_matches_seat_1_bot"), "matches", ["seat_1_bot"])
    op.create_index(op.f("ix_matches_seat_2_bot"), "matches", ["seat_2_bot"])
    op.create_index(op.f("ix_matches_status"), "matches", ["status"])
    op.create_table(
        "moves",
        sa.Column("match_id", NAME, nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("turn_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("charged", sa.Float(), nullable=True),
        sa.Column("clocks", sa.JSON(), nullable=False),
        sa.Column("auto", SHORT, nullable=True),
        _fk("moves", "match_id", "matches.id", cascade=True),
        sa.PrimaryKeyConstraint("match_id", "ply", name=op.f("pk_moves")),
    )


def _seat_columns(seat: int) -> list[sa.Column[object]]:
    prefix = f"seat_{seat}_"
    columns: list[sa.Column[object]] = [
        sa.Column(prefix + "bot", NAME, nullable=False),
        sa.Column(prefix + "version", NAME, nullable=False),
    ]
    for name in ("mu_before", "sigma_before", "mu_after", "sigma_after"):
        columns.append(sa.Column(prefix + name, sa.Float(), nullable=False))
    return columns


def _ratings() -> None:
    op.create_table(
        "ratings",
        sa.Column("ladder", NAME, nullable=False),
        sa.Column("bot", NAME, nullable=False),
        sa.Column("version", NAME, nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        _time("updated_at"),
        _fk("ratings", "ladder", "ladders.name"),
        _fk("ratings", "bot", "bots.name"),
        sa.PrimaryKeyConstraint("ladder", "bot", "version", name=op.f("pk_ratings")),
    )
    op.create_table(
        "rating_updates",
        sa.Column("match_id", NAME, nullable=False),
        sa.Column("ladder", NAME, nullable=False),
        *_seat_columns(1),
        *_seat_columns(2),
        _fk("rating_updates", "match_id", "matches.id", cascade=True),
        _fk("rating_updates", "ladder", "ladders.name"),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_rating_updates")),
    )
    op.create_index(op.f("ix_rating_updates_ladder"), "rating_updates", ["ladder"])


def _mailbox_and_status() -> None:
    op.create_table(
        "mailbox",
        sa.Column("bot", NAME, nullable=False),
        sa.Column("match_id", NAME, nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        _time("created_at"),
        _fk("mailbox", "bot", "bots.name", cascade=True),
        _fk("mailbox", "match_id", "matches.id", cascade=True),
        sa.PrimaryKeyConstraint("bot", "match_id", name=op.f("pk_mailbox")),
    )
    op.create_table(
        "ladder_status",
        sa.Column("ladder", NAME, nullable=False),
        sa.Column("bot", NAME, nullable=False),
        sa.Column("consecutive_failures", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("paused_reason", sa.Text(), nullable=True),
        _fk("ladder_status", "ladder", "ladders.name"),
        _fk("ladder_status", "bot", "bots.name"),
        sa.PrimaryKeyConstraint("ladder", "bot", name=op.f("pk_ladder_status")),
    )


def downgrade() -> None:
    tables = ("ladder_status", "mailbox", "rating_updates", "ratings", "moves", "matches", "ladders", "bots")
    for table in tables:
        op.drop_table(table)
